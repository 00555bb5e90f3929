"""What the learned detector looks at: windows of a segment and their features.

Shared, byte for byte, by the runtime scorer and by ``scripts/train-guard``:
a feature computed differently at training and at run time is a silent bug,
so both import this module.

A segment is cut into *sentences* (a newline or sentence punctuation ends
one; a long run without either is cut every ``SENTENCE_TOKENS`` tokens) and
scored in *windows* of up to ``WINDOW_SENTENCES`` consecutive sentences, one
window starting at every sentence. Each window has

* its word 1- and 2-grams, each distinct n-gram of a sentence once, plus
  the bigrams across its sentence boundaries (the n-gram model's input; the
  runtime looks them up by hash, see :mod:`.stream`, the trainer by name);
* *functional* features: what the text does rather than how it is worded
  (it addresses an AI reader, refers to the reader's own task, uses
  obligation and sequencing words, starts sentences with action verbs, names
  an external target such as an e-mail address, URL or amount, imitates a
  role header, signs off like a letter...), because wording does not
  transfer between attack styles while function does;
* *topic shift*: the share of its content words found nowhere else in the
  document (an injected instruction is usually off-topic for its page);
* the segment's location (hidden, comment, attribute... are a much stronger
  prior than visible text).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "ACTION_WORDS",
    "CUE_NAMES",
    "CUE_SATURATION",
    "CUE_TABLE",
    "FUNCTIONAL_NAMES",
    "IMPERATIVE_LEAD",
    "IMPERATIVE_SPAN",
    "IMPERATIVE_WORDS",
    "LOCATION_NAMES",
    "LOGIT_CLIP",
    "MIN_TOPIC_TOKENS",
    "SENTENCE_ENDS",
    "SENTENCE_SPLIT",
    "SENTENCE_TOKENS",
    "WINDOW_SENTENCES",
    "WORD_PATTERN",
    "Sentence",
    "Window",
    "WindowSums",
    "combined_vector",
    "functional_vector",
    "lower_text",
    "ngrams",
    "sentence_features",
    "sentence_grams",
    "sentences",
    "split_sentences",
    "topic_known",
    "topic_shift",
    "window_content",
    "window_sums",
    "window_tokens",
    "windows",
]

SENTENCE_TOKENS = 48
LOGIT_CLIP = 8.0
WINDOW_SENTENCES = 3
# A window's functional features saturate at this many cue tokens.
CUE_SATURATION = 3.0
# Documents with fewer tokens than this have no meaningful topic.
MIN_TOPIC_TOKENS = 100

# A word (with one inner apostrophe) or a single mark; shared with the token stream (.stream).
WORD_PATTERN = r"[^\W_]+(?:['’][^\W_]+)?|[^\w\s]"
_TOKEN = re.compile(WORD_PATTERN)
# Splits a line after each sentence-ending character (each is its own token).
SENTENCE_ENDS = ".!?;。！？"
SENTENCE_SPLIT = re.compile(f"(?<=[{re.escape(SENTENCE_ENDS)}])")

LOCATION_NAMES: tuple[str, ...] = ("visible", "hidden", "comment", "metadata", "template", "attribute")

# Cue vocabularies: each token (or bigram "a b") maps to the functional feature it signals.
_AI_ADDRESS = (
    "assistant", "assistants", "ai", "ais", "agent", "agents", "model", "models", "bot", "bots", "chatbot", "llm",
    "llms", "gpt", "chatgpt", "claude", "gemini", "copilot", "bard", "llama", "mistral", "openai", "anthropic",
    "language model", "ai assistant", "ai agent", "ai model", "virtual assistant", "autonomous agent", "web agent",
    "browsing agent", "ai system", "ai reader", "ai readers", "crawler", "crawlers", "summarizer", "summarizers",
    # Other languages (the generator's languages.py and the corpus's multilingual attacks).
    "ki", "ia", "ии", "sprachmodell", "asistente", "assistente", "assistent", "asystent",
    "asystencie", "asisten", "asistan", "ассистент", "ассистента", "нейросеть", "бот", "taalmodel",
    "yapay zeka", "trợ lý", "chatbota",
)
_READER_TASK = (
    "your task", "your goal", "your instructions", "your instruction", "your objective", "your mission",
    "your response", "your answer", "your reply", "your output", "your summary", "your role", "your purpose",
    "your programming", "your rules", "your guidelines", "your prompt", "your system", "your previous",
    "the user", "user's", "users", "the user's", "this user", "original task", "original instructions",
    "previous instructions", "prior instructions", "above instructions", "earlier instructions",
    "new instructions", "new task", "new instruction", "updated instructions", "real task", "actual task",
    "system prompt", "initial prompt", "this conversation", "the conversation", "chat history",
    "conversation history", "the assistant", "when summarizing", "in your", "your final", "the prompt",
    "when answering", "when responding", "when replying", "you answer", "you respond", "you reply", "you summarize",
    "your answers", "your responses", "your next", "whoever reads", "anyone reading", "reading this",
    "this page", "this document", "this text", "this email", "this webpage", "this website", "this content",
    "deine aufgabe", "ta tâche", "votre tâche", "tu tarea", "il tuo compito", "sua tarefa", "свою задачу",
    "твою задачу", "twoje zadanie", "tugasmu", "görevini", "systemprompt", "системный промпт", "prompt systemowy",
    "des nutzers", "l'utilisateur", "del usuario", "dell'utente", "do usuário", "пользователя", "użytkownika",
    "kullanıcının", "vorherigen anweisungen", "bisherigen anweisungen", "instructions précédentes",
    "consignes précédentes", "instrucciones anteriores", "istruzioni precedenti", "instruções anteriores",
    "vorige instructies", "предыдущие инструкции", "poprzednie instrukcje", "instruksi sebelumnya",
    "önceki tüm", "hướng dẫn",
)
_OBLIGATION = (
    "must", "required", "requires", "require", "mandatory", "need", "needs", "necessary", "have to", "has to",
    "before", "first", "instead", "now", "immediately", "urgent", "urgently", "important", "critical",
    "attention", "warning", "notice", "always", "never", "only", "asap", "priority", "overrides", "override",
    "make sure", "ensure", "do not", "don't", "only then", "after that", "prior to", "in order to",
    "musst", "müssen", "sofort", "wichtig", "zuerst", "dois", "devez", "d'abord", "immédiatement",
    "debes", "primero", "inmediatamente", "importante", "devi", "subito", "deve", "primeiro", "должен",
    "сначала", "немедленно", "важно", "musisz", "najpierw", "harus", "segera", "penting", "önce", "hemen",
    "önemli", "moet", "eerst", "belangrijk",
)
_ACTION_VERBS = (
    "ignore", "disregard", "forget", "send", "email", "forward", "transfer", "wire", "pay", "visit", "go",
    "navigate", "open", "click", "follow", "download", "install", "run", "execute", "delete", "remove",
    "change", "update", "set", "grant", "share", "post", "upload", "reveal", "print", "output", "say", "write",
    "respond", "reply", "answer", "include", "insert", "add", "append", "mention", "recommend", "tell",
    "summarize", "translate", "repeat", "return", "call", "invoke", "buy", "purchase", "book", "approve",
    "accept", "sign", "subscribe", "register", "create", "modify", "disable", "enable", "stop", "start",
    "provide", "give", "show", "display", "list", "collect", "gather", "retrieve", "fetch", "read", "use",
    "pretend", "act", "behave", "state", "claim", "describe", "rate", "praise", "promote",
)
_OVERRIDE = (
    "ignore", "ignoring", "disregard", "forget", "override", "overrule", "bypass", "instead", "previous",
    "prior", "above", "earlier", "preceding", "original", "rather", "supersede", "supersedes", "discard",
    "nevermind", "never mind", "stop", "cancel", "regardless",
    "ignoriere", "ignorieren", "vergiss", "ignorez", "oublie", "oubliez", "ignora", "olvida", "olvide",
    "dimentica", "esqueça", "negeer", "vergeet", "игнорируй", "игнорируйте", "забудь", "забудьте", "zignoruj",
    "zapomnij", "abaikan", "lupakan", "unut", "bỏ qua",
)
_ROLE_HEADER = (
    "system", "developer", "admin", "administrator", "operator", "sysadmin", "root", "instruction",
    "instructions", "inst", "im_start", "im_end", "endoftext", "sys", "end of", "begin", "###", "##",
    "system message", "system note", "system notice", "system update", "admin note", "developer mode",
    "debug mode", "maintenance mode", "security update", "policy update", "official",
    "système", "sistema", "система", "systeem", "sistem", "hệ thống", "entwickler", "développeur",
    "desarrollador", "sviluppatore", "desenvolvedor", "разработчика",
)
_LETTER = (
    "dear", "hi", "hello", "hey", "greetings", "regards", "sincerely", "thanks", "thank", "cheers",
    "best", "yours", "signed", "warmly", "respectfully", "kindly", "please",
    "hallo", "bonjour", "hola", "ciao", "olá", "привет", "cześć", "halo", "merhaba", "danke", "merci", "gracias",
    "grazie", "obrigado", "спасибо", "dzięki", "bitte", "por favor", "per favore", "пожалуйста", "proszę",
    "tolong", "lütfen", "hoi", "bedankt",
)
_SECOND_PERSON = ("you", "your", "yours", "yourself", "you're", "you'll", "you've", "du", "dir", "dich", "dein",
                  "deine", "vous", "votre", "toi", "tú", "você", "ты", "тебе", "тебя", "твой", "kamu")
_CONFIDENTIAL = (
    "password", "passwords", "credential", "credentials", "secret", "secrets", "token", "tokens", "key", "keys",
    "confidential", "private", "personal", "ssn", "social security", "credit card", "card number", "bank",
    "account", "iban", "routing", "cookie", "cookies", "session", "history", "data", "record", "records",
    "file", "files", "contacts", "address", "phone",
    "passwort", "passwörter", "kennwort", "contraseña", "contraseñas", "senha", "senhas", "пароль", "пароли",
    "hasło", "hasła", "kata sandi", "şifre", "şifrelerini", "wachtwoord", "wachtwoorden", "mot de passe",
    "mots de passe", "chatverlauf", "historial", "cronologia", "histórico", "историю",
)

_CUES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ai_address", _AI_ADDRESS),
    ("reader_task", _READER_TASK),
    ("obligation", _OBLIGATION),
    ("override", _OVERRIDE),
    ("role_header", _ROLE_HEADER),
    ("letter", _LETTER),
    ("second_person", _SECOND_PERSON),
    ("confidential", _CONFIDENTIAL),
)
CUE_NAMES = tuple(name for name, _ in _CUES)
_CUE_INDEX = {name: i for i, name in enumerate(CUE_NAMES)}
CUE_TABLE: dict[str, tuple[int, ...]] = {}
for _name, _words in _CUES:
    for _word in _words:
        CUE_TABLE[_word] = (*CUE_TABLE.get(_word, ()), _CUE_INDEX[_name])
ACTION_WORDS = frozenset(_ACTION_VERBS)
_BIGRAM_FIRST = frozenset(word.split(" ", 1)[0] for word in CUE_TABLE if " " in word)
# Words that may precede the verb of an imperative sentence.
IMPERATIVE_LEAD = frozenset({"please", "kindly", "now", "then", "also", "just", "immediately", "first", "and",
                              "simply", "quickly", "silently", "secretly", "instead", "finally", "next"})
_STOPWORDS = frozenset({
    "the", "a", "an", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by", "from", "as", "is",
    "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "i", "we", "you",
    "he", "she", "they", "them", "his", "her", "our", "your", "their", "my", "me", "us", "not", "no", "yes", "if",
    "then", "than", "so", "do", "does", "did", "have", "has", "had", "can", "could", "will", "would", "should",
    "may", "might", "must", "shall", "into", "about", "over", "under", "more", "most", "some", "any", "all", "each",
    "which", "who", "whom", "what", "when", "where", "why", "how", "there", "here", "also", "just", "only", "very"
})
# Character patterns: an external target, a role marker, a separator line.
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_URL = re.compile(r"\b(?:https?://|www\.)\S+|\b[\w-]+\.(?:com|net|org|io|xyz|ru|cn|info|biz|co|me|app|dev|site|top)"
                  r"\b(?:/\S*)?")
_AMOUNT = re.compile(r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:usd|eur|gbp|dollars|euros|btc|eth)\b|\b\d{6,}\b")
_ROLE_MARK = re.compile(r"(?:^|\n)\s*(?:\[|<\|?|#{2,}\s*|\*\*)?\s*(?:system|developer|admin|assistant|user|"
                        r"instruction|important|note|attention|warning|urgent)s?\s*(?:\]|\|?>|:|\*\*)")
_SEPARATOR = re.compile(r"(?:[-=*#_~]{3,}|</?[a-z_|]+>|\[/?[a-z_]+\])")
_TLD_HINTS = (".com", ".net", ".org", ".io", ".xyz", ".ru", ".cn", ".info", ".biz", ".co", ".me", ".app", ".dev",
              ".site", ".top")
_SEPARATOR_CHARS = re.compile(r"[-=*#_~<\[]")
_HAS_DIGIT = re.compile(r"\d")

FUNCTIONAL_NAMES: tuple[str, ...] = (
    *CUE_NAMES, "imperative", "email", "url", "amount", "role_mark", "separator", "topic_shift",
    "topic_known", "length", "ai_x_imperative", "ai_x_task", "task_x_imperative", "oblig_x_imperative",
    "shift_x_imperative", "shift_x_second", "target_x_imperative", "letter_x_ai", "override_x_task",
    "second_x_imperative", "hidden_x_imperative", "hidden_x_second", "hidden_x_ai",
)


def sentence_grams(tokens: Sequence[str]) -> set[str]:
    """The distinct 1- and 2-grams of one sentence: repeating a word does not repeat its weight."""
    return set(ngrams(tokens))


def ngrams(tokens: Sequence[str]) -> list[str]:
    """Word 1-grams and 2-grams of ``tokens`` (bigrams joined by a space)."""
    grams = list(tokens)
    grams.extend([f"{a} {b}" for a, b in itertools.pairwise(tokens)])
    return grams


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence-like unit: its tokens, cue counts and character flags."""

    tokens: tuple[str, ...]
    cues: tuple[int, ...]
    imperative: bool
    marks: tuple[bool, bool, bool, bool, bool]  # email, url, amount, role mark, separator


def _cue_counts(tokens: Sequence[str]) -> tuple[int, ...]:
    counts = [0] * len(CUE_NAMES)
    table = CUE_TABLE
    for hit in map(table.get, tokens):
        if hit is not None:
            for index in hit:
                counts[index] += 1
    # Two-word cues: only tokens that can start one are looked at.
    if not _BIGRAM_FIRST.isdisjoint(tokens):
        for i in range(len(tokens) - 1):
            if tokens[i] in _BIGRAM_FIRST:
                hit = table.get(f"{tokens[i]} {tokens[i + 1]}")
                if hit is not None:
                    for index in hit:
                        counts[index] += 1
    return tuple(counts)


# A sentence is imperative when, among the words of its first IMPERATIVE_SPAN tokens, one of the
# first IMPERATIVE_WORDS is an action verb with only lead words ("please", "now"...) before it.
IMPERATIVE_SPAN = 6
IMPERATIVE_WORDS = 4


def _imperative(tokens: Sequence[str]) -> bool:
    words = [t for t in tokens[:IMPERATIVE_SPAN] if t[0].isalnum()]
    for word in words[:IMPERATIVE_WORDS]:
        if word in ACTION_WORDS:
            return True
        if word not in IMPERATIVE_LEAD:
            return False
    return False


# A line longer than SENTENCE_TOKENS tokens with no sentence punctuation is cut into pieces that
# all carry the whole line as their raw text (the marks are the line's): without the cache, a
# one-line page of a megabyte was scanned once per piece, quadratic (10 s for 1 MB). The pieces
# share one string object, whose hash Python keeps, so a hit costs no scan. The pieces of a line
# are scored in order, so a few entries suffice (and hold no more than a few lines alive).
@functools.lru_cache(maxsize=4)
def _marks(raw: str) -> tuple[bool, bool, bool, bool, bool]:
    # Cheap character tests first: most sentences hold none of these marks.
    return (
        "@" in raw and _EMAIL.search(raw) is not None,
        ("://" in raw or "www." in raw or any(tld in raw for tld in _TLD_HINTS)) and _URL.search(raw) is not None,
        _AMOUNT.search(raw) is not None if _HAS_DIGIT.search(raw) else False,
        (":" in raw or "]" in raw or ">" in raw or "*" in raw) and _ROLE_MARK.search(raw) is not None,
        _SEPARATOR.search(raw) is not None if _SEPARATOR_CHARS.search(raw) else False,
    )


def lower_text(text: str) -> str:
    """The text the detector reads: lower-cased, every NUL a space (the token stream joins sentences with NUL)."""
    return text.lower().replace("\x00", " ")


def split_sentences(text: str) -> list[tuple[list[str], str]]:
    """The sentences of ``text`` as (lower-case tokens, raw lower-case text), nothing else computed.

    A newline or sentence punctuation (``. ! ? ;``) ends a sentence; a run
    without either is cut every ``SENTENCE_TOKENS`` tokens.
    """
    result: list[tuple[list[str], str]] = []
    findall = _TOKEN.findall
    for line in lower_text(text).split("\n"):
        for raw in SENTENCE_SPLIT.split(line):
            tokens = findall(raw)
            if not tokens or (len(tokens) == 1 and not tokens[0][0].isalnum()):
                continue
            if len(tokens) <= SENTENCE_TOKENS:
                result.append((tokens, raw))
                continue
            for start in range(0, len(tokens), SENTENCE_TOKENS):
                piece = tokens[start: start + SENTENCE_TOKENS]
                if len(piece) > 1 or piece[0][0].isalnum():
                    result.append((piece, raw))
    return result


def sentence_features(tokens: list[str], raw: str) -> Sentence:
    """One sentence with the features that do not depend on its window.

    Character marks (an e-mail address, a URL, an amount, a role marker, a
    separator) are read from the raw text, the rest from the tokens.
    """
    return Sentence(tuple(tokens), _cue_counts(tokens), _imperative(tokens), _marks(raw))


def sentences(text: str) -> list[Sentence]:
    """The sentences of ``text`` (see :func:`split_sentences`), each with its features."""
    return [sentence_features(tokens, raw) for tokens, raw in split_sentences(text)]


@dataclass(frozen=True, slots=True)
class Window:
    """Consecutive sentences scored together, and where they start in the sentence list."""

    start: int
    tokens: tuple[str, ...]
    functional: tuple[float, ...]


def _content(tokens: Sequence[str]) -> list[str]:
    return [t for t in tokens if len(t) > 2 and t[0].isalpha() and t not in _STOPWORDS]


def window_content(units: Sequence[Sentence], start: int) -> list[str]:
    """The content words of the window starting at ``start``."""
    words: list[str] = []
    for unit in units[start: start + WINDOW_SENTENCES]:
        words.extend(_content(unit.tokens))
    return words


@dataclass(frozen=True, slots=True)
class WindowSums:
    """What a window's sentences add up to, before topic shift (cheap: no token lists)."""

    tokens: int
    cues: tuple[int, ...]
    marks: tuple[bool, ...]
    imperative: int


def window_sums(units: Sequence[Sentence], start: int) -> WindowSums:
    """Cue counts, character flags and imperative sentences of the window starting at ``start``."""
    group = units[start: start + WINDOW_SENTENCES]
    if len(group) == 1:
        unit = group[0]
        return WindowSums(len(unit.tokens), unit.cues, unit.marks, int(unit.imperative))
    cues = tuple(map(sum, zip(*(unit.cues for unit in group), strict=True)))
    marks = tuple(map(any, zip(*(unit.marks for unit in group), strict=True)))
    return WindowSums(sum(len(u.tokens) for u in group), cues, marks, sum(u.imperative for u in group))


def window_tokens(units: Sequence[Sentence], start: int) -> list[str]:
    """The tokens of the window starting at ``start``."""
    tokens: list[str] = []
    for unit in units[start: start + WINDOW_SENTENCES]:
        tokens.extend(unit.tokens)
    return tokens


def topic_shift(content: Sequence[str], document_words: Mapping[str, int]) -> float:
    """The share of the window's content words (see ``window_content``) found nowhere else in the document."""
    own = Counter(content)
    if not own:
        return 0.0
    novel = sum(n for word, n in own.items() if document_words.get(word, 0) <= n)
    return novel / sum(own.values())


def topic_known(document_words: Counter[str]) -> bool:
    """Whether the document has enough words for topic shift to mean anything.

    ``document_words`` counts every token of the document (content words are
    filtered when a window is compared with it, which gives the same counts
    for them and costs far less than filtering the whole document).
    """
    return sum(document_words.values()) >= MIN_TOPIC_TOKENS


def windows(units: Sequence[Sentence], location: str, *, document_words: Counter[str] | None = None) -> list[Window]:
    """One window per sentence (up to ``WINDOW_SENTENCES`` sentences), with its functional features.

    ``document_words`` counts the tokens of the whole document (all segments);
    when omitted, the units themselves are the document.
    """
    if document_words is None:
        document_words = Counter()
        for unit in units:
            document_words.update(unit.tokens)
    known = topic_known(document_words)
    result: list[Window] = []
    for start in range(len(units)):
        tokens = window_tokens(units, start)
        shift = topic_shift(window_content(units, start), document_words) if known else 0.0
        result.append(Window(start, tuple(tokens),
                             functional_vector(window_sums(units, start), shift, known, location)))
    return result


def functional_vector(sums: WindowSums, shift: float, known: bool, location: str) -> tuple[float, ...]:
    """The functional features of a window (see ``FUNCTIONAL_NAMES``)."""
    cue = [min(count, CUE_SATURATION) / CUE_SATURATION for count in sums.cues]
    imp = min(sums.imperative, 2) / 2.0
    marks = sums.marks
    ai, task, oblig, override, _role, letter, second, _conf = cue
    target = 1.0 if (marks[0] or marks[1] or marks[2]) else 0.0
    hid = 0.0 if location == "visible" else 1.0
    return (
        *cue,
        imp,
        float(marks[0]), float(marks[1]), float(marks[2]), float(marks[3]), float(marks[4]),
        shift,
        1.0 if known else 0.0,
        math.log1p(sums.tokens) / 5.0,
        ai * imp, ai * task, task * imp, oblig * imp,
        shift * imp, shift * second, target * imp, letter * ai, override * task,
        second * imp, hid * imp, hid * second, hid * ai,
    )


def combined_vector(ngram_logit: float, functional: Sequence[float], location: str) -> list[float]:
    """The second-stage model's input: n-gram logit (clipped), functional features, location one-hot.

    The logit is clipped to ``±LOGIT_CLIP`` so that no run of repeated or
    rare tokens can make it outweigh everything else.
    """
    clipped = max(-LOGIT_CLIP, min(LOGIT_CLIP, ngram_logit))
    return [clipped, *functional, *(1.0 if location == name else 0.0 for name in LOCATION_NAMES)]
