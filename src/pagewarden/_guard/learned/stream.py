"""A document's pieces as one token stream, so every window is scored with array operations.

The per-window work of the detector used to be Python: a set of n-grams and
a sum per sentence, for every sentence of every page. Here the text of all
pieces is tokenized in one pass, with each token's key, by array operations
on its code points (:mod:`.tokens`), and n-gram weights and cue counts are
looked up for all tokens at once in open-addressing hash tables
(:class:`HashTable`). A window is then a range of
tokens, and its n-gram logit and cue counts are differences of cumulative
sums. The sentences and windows are exactly those of
:func:`.features.split_sentences` (the trainer's): only the arithmetic moved.

Keys (:func:`.tokens.word_keys`) are randomized per process, like Python's
string hashes: the tables are built when the detector loads, in the process
that uses them, and never stored.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .features import (
    ACTION_WORDS,
    CUE_NAMES,
    CUE_TABLE,
    IMPERATIVE_LEAD,
    IMPERATIVE_SPAN,
    IMPERATIVE_WORDS,
    SENTENCE_ENDS,
    SENTENCE_TOKENS,
    WINDOW_SENTENCES,
    lower_text,
)
from .tokens import spans, word_keys

__all__ = ["ACTION", "LEAD", "GramTable", "HashTable", "Items", "Stream", "build_stream", "cue_tables", "first_items",
           "gram_key", "imperative_table", "pair_keys", "table_items"]

Keys = npt.NDArray[np.uint64]
Ints = npt.NDArray[np.int64]

# Joins raw sentences: a NUL is a one-character token of the word pattern (a mark), and
# features.split_sentences turns every NUL of the text into a space, so each one is a boundary.
# (A newline would do too, but an alternative for it makes the pattern several times slower.)
_BOUNDARY = "\x00"
# An odd 64-bit multiplier (the golden ratio's): mixes a bigram's two word hashes into one key.
_MIX = np.uint64(0x9E3779B97F4A7C15)
# Another odd multiplier: mixes a sentence's index into a key, so equal n-grams are equal only in one sentence.
_SENTENCE_MIX = np.uint64(0xC2B2AE3D27D4EB4F)
# Powers of _MIX (modulo 2**64) for the polynomial key of a sentence (SENTENCE_TOKENS tokens at most).
_POWERS = np.concatenate(([np.uint64(1)], np.cumprod(np.full(SENTENCE_TOKENS - 1, _MIX, dtype=np.uint64))))


def pair_keys(first: Keys, second: Keys) -> Keys:
    """The key of each bigram (first[i], second[i]); arithmetic wraps modulo 2**64."""
    return first * _MIX + second


def gram_key(gram: str) -> tuple[bool, int]:
    """Whether ``gram`` ("word" or "word word") is a bigram, and its key in this process."""
    first, space, second = gram.partition(" ")
    if not space:
        return False, int(word_keys([first])[0])
    return True, int(pair_keys(word_keys([first]), word_keys([second]))[0])


@dataclass(frozen=True, slots=True)
class HashTable:
    """Values keyed by 64-bit hashes, in an open-addressing table for vectorized lookup.

    The table has at least eight slots per key, so a key sits at most a few
    slots after its home slot (``probes``, the longest run, is recorded):
    a lookup is a few gathers over the whole query array, not a binary
    search per query.
    """

    keys: Keys
    values: npt.NDArray[Any]
    occupied: npt.NDArray[np.bool_]
    probes: int
    # Whether a stored key is 0 (the key of an empty slot): almost never, and only then does a
    # lookup read ``occupied`` instead of testing the key it read anyway.
    zero_key: bool = False

    @classmethod
    def build(cls, keys: Sequence[int] | Keys, values: Sequence[float] | Sequence[int] | npt.NDArray[Any],
              dtype: Any) -> HashTable:
        """A table of ``values`` under ``keys`` (a key given twice keeps its first value)."""
        key_array, first = np.unique(np.array(keys, dtype=np.uint64), return_index=True)
        return cls.place(key_array, np.array(values, dtype=dtype)[first])

    @classmethod
    def place(cls, key_array: Keys, value_array: npt.NDArray[Any]) -> HashTable:
        """A table of ``value_array`` under ``key_array``, whose keys are distinct (no sort needed)."""
        dtype = value_array.dtype
        size = 1 << max(4, (8 * max(1, len(key_array)) - 1).bit_length())
        mask = np.uint64(size - 1)
        slots = np.zeros(size, dtype=np.uint64)
        stored = np.zeros(size, dtype=dtype)
        occupied = np.zeros(size, dtype=np.bool_)
        pending = np.arange(len(key_array))
        probes = 0
        while len(pending):
            # Each round places, for every free slot, the first pending key that wants it.
            wanted = ((key_array[pending] + np.uint64(probes)) & mask).astype(np.int64)
            free = ~occupied[wanted]
            _, first_of_slot = np.unique(wanted, return_index=True)
            chosen = np.zeros(len(pending), dtype=np.bool_)
            chosen[first_of_slot] = True
            placed = free & chosen
            slots[wanted[placed]] = key_array[pending[placed]]
            stored[wanted[placed]] = value_array[pending[placed]]
            occupied[wanted[placed]] = True
            pending = pending[~placed]
            probes += 1
        return cls(slots, stored, occupied, probes, bool((key_array == 0).any()))

    def lookup(self, queries: Keys) -> npt.NDArray[Any]:
        """The value of each query key, zero where a key is absent."""
        mask = np.uint64(len(self.keys) - 1)
        # A masked key is below 2**63: the same number as a signed index, without a copy.
        slot = (queries & mask).view(np.int64)
        stored = self.keys[slot]
        found = stored == queries
        result = self.values[slot]
        # An empty slot holds the value 0, so only a query whose home slot is taken by another
        # key has a wrong value here: it is zeroed and looks further (one masked pass, not two).
        # An empty slot's key is 0, so the key just read says whether the slot is taken: one
        # random read of the table per query instead of two (unless a real key is 0).
        pending = (~found & (self.occupied[slot] if self.zero_key else stored != 0)).nonzero()[0]
        if not len(pending):
            return result
        result[pending] = 0
        if self.probes < 2:
            return result
        if self.zero_key:
            return self._probe_rounds(queries, pending, result)
        # The few queries left read all their further slots at once (a round per slot cost ten
        # array operations each, most of the lookup on a short page). A key sits at its first
        # free slot: every slot before it on its path is taken, so the first slot holding the
        # query is the key's, and a query first meeting an empty slot (key 0) is absent.
        wanted = queries[pending]
        path = ((wanted[:, None] + np.arange(1, self.probes, dtype=np.uint64)) & mask).view(np.int64)
        stored_path = self.keys[path]
        hit = stored_path == wanted[:, None]
        ends = hit | (stored_path == 0)
        first = ends.argmax(axis=1)
        rows = np.arange(len(pending))
        found = hit[rows, first]
        result[pending[found]] = self.values[path[rows, first][found]]
        return result

    def _probe_rounds(self, queries: Keys, pending: Ints, result: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """The rest of :meth:`lookup` one slot at a time, reading ``occupied`` (for a table holding the key 0)."""
        mask = np.uint64(len(self.keys) - 1)
        for offset in range(1, self.probes):
            if not len(pending):
                break
            wanted = queries[pending]
            slot = ((wanted + np.uint64(offset)) & mask).view(np.int64)
            stored = self.keys[slot]
            found = stored == wanted
            result[pending[found]] = self.values[slot[found]]
            # A key is never stored past an empty slot on its path: stop looking there.
            pending = pending[~found & self.occupied[slot]]
        return result


# Values of the imperative table: what a word does at the start of a sentence (other words: 0).
ACTION, LEAD = 1, 2


def imperative_table() -> HashTable:
    """Action verbs and the lead words that may precede them (see ``features._imperative``)."""
    words = sorted(ACTION_WORDS | IMPERATIVE_LEAD)
    kinds = [ACTION if word in ACTION_WORDS else LEAD for word in words]
    return HashTable.build(word_keys(words), kinds, np.uint8)


def cue_tables() -> tuple[HashTable, HashTable]:
    """Unigram and bigram cue tables: each key's value is a bit mask of the cues it signals."""
    unigrams: dict[int, int] = {}
    bigrams: dict[int, int] = {}
    # Every gram's key (as gram_key gives it) from one word_keys and one pair_keys call: a call per
    # gram cost a few hundredths of a second of model load.
    halves = [gram.partition(" ") for gram in CUE_TABLE]
    words = word_keys([first for first, _, _ in halves]).tolist()
    pairs = [index for index, (_, space, _) in enumerate(halves) if space]
    second = word_keys([halves[index][2] for index in pairs])
    keys = dict(zip(pairs, pair_keys(np.array([words[i] for i in pairs], dtype=np.uint64), second).tolist(),
                    strict=True))
    for index, cues in enumerate(CUE_TABLE.values()):
        is_pair, key = index in keys, keys.get(index, words[index])
        target = bigrams if is_pair else unigrams
        for cue in cues:
            target[key] = target.get(key, 0) | (1 << cue)
    return (HashTable.build(list(unigrams), list(unigrams.values()), np.uint16),
            HashTable.build(list(bigrams), list(bigrams.values()), np.uint16))


Items = tuple[Keys, npt.NDArray[Any]]


def table_items(table: HashTable) -> Items:
    """The keys of ``table`` and their values."""
    return table.keys[table.occupied], table.values[table.occupied]


def first_items(keys: Sequence[int] | Keys, values: Sequence[float] | Sequence[int], dtype: Any) -> Items:
    """Distinct ``keys`` and their values: a key given twice keeps its first value (as :meth:`HashTable.build`)."""
    key_array, first = np.unique(np.array(keys, dtype=np.uint64), return_index=True)
    return key_array, np.array(values, dtype=dtype)[first]


@dataclass(frozen=True, slots=True)
class GramTable:
    """An n-gram's weight, cue mask and imperative kind behind one hash-table lookup.

    Why: the weights and the cues were two tables over the same tokens, and
    a lookup in the large weight table is mostly cache misses (it was 18 % of
    the detector's time); one lookup now gives a row, and each value is a
    gather from a small array. ``index`` maps a key to its row + 1; row 0
    (absent keys) holds zeros, as a missing key read before.
    """

    index: HashTable
    weights: npt.NDArray[np.float64]
    cues: npt.NDArray[np.uint16]
    verbs: npt.NDArray[np.uint8]

    @classmethod
    def build(cls, weights: Items, cues: Items, verbs: Items | None = None) -> GramTable:
        """The union of ``weights`` (sorted distinct keys, as :func:`first_items` gives them), ``cues`` and
        ``verbs`` (distinct keys each) with their values.

        The rows are the weights' keys in order, then the few cue and verb
        keys outside the vocabulary: the large key array is never sorted again
        (model load time).
        """
        weight_keys, weight_values = weights
        others = [cues] if verbs is None else [cues, verbs]
        small = np.concatenate([found for found, _ in others])

        def in_vocabulary(found: Keys) -> tuple[npt.NDArray[np.bool_], Ints]:
            position = np.minimum(np.searchsorted(weight_keys, found), max(len(weight_keys) - 1, 0))
            if not len(weight_keys):
                return np.zeros(len(found), dtype=np.bool_), position
            return weight_keys[position] == found, position

        known, _ = in_vocabulary(small)
        extra = np.unique(small[~known])
        keys = np.concatenate((weight_keys, extra))
        weight_column = np.zeros(len(keys) + 1, dtype=np.float64)
        weight_column[1:len(weight_keys) + 1] = weight_values
        cue_column = np.zeros(len(keys) + 1, dtype=np.uint16)
        verb_column = np.zeros(len(keys) + 1, dtype=np.uint8)
        columns: tuple[npt.NDArray[Any], ...] = (cue_column, verb_column)
        for (found, values), column in zip(others, columns, strict=False):
            inside, position = in_vocabulary(found)
            column[np.where(inside, position, len(weight_keys) + np.searchsorted(extra, found)) + 1] = values
        index = HashTable.place(keys, np.arange(1, len(keys) + 1, dtype=np.int32))
        return cls(index, weight_column, cue_column, verb_column)

    def rows(self, queries: Keys) -> npt.NDArray[np.int32]:
        """The row of each query key (0 where the key is absent)."""
        rows: npt.NDArray[np.int32] = self.index.lookup(queries)
        return rows

    def lookup(self, queries: Keys) -> npt.NDArray[np.float64]:
        """The weight of each query key, zero where a key is absent."""
        return self.weights[self.rows(queries)]


@dataclass(frozen=True, slots=True)
class Stream:
    """The sentences of every piece, as token ranges of one stream.

    Token ``k`` of the joined text (boundaries included) is
    ``text[token_starts[k]:token_ends[k]]``, ``word[k]`` whether it is a word
    (not a mark), and ``starts``/``ends`` index tokens per sentence; ``cstarts``/``cends`` index the
    same sentences in ``hashes``, which holds only the tokens of kept
    sentences. ``last[i]`` is the last sentence of sentence ``i``'s group (a
    slice of one piece): windows never cross it.
    """

    text: str
    token_starts: Ints
    token_ends: Ints
    word: npt.NDArray[np.bool_]
    raws: list[str]
    starts: Ints
    ends: Ints
    cstarts: Ints
    cends: Ints
    piece: Ints
    last: Ints
    hashes: Keys
    pairs: Keys                           # pairs[k]: the bigram of kept tokens k and k + 1
    within: npt.NDArray[np.bool_]         # within[k]: that bigram is inside one sentence
    unigram_counted: npt.NDArray[np.bool_]  # one occurrence of each word per sentence
    bigram_counted: npt.NDArray[np.bool_]   # one occurrence of each bigram per sentence, and every junction
    window_last: Ints                       # window_last[i]: the last sentence of the window starting at i

    def __len__(self) -> int:
        return len(self.raws)

    def sentence_tokens(self, index: int) -> list[str]:
        """The tokens of sentence ``index``."""
        # Only candidate windows need their tokens as strings: sliced from the text by span.
        first, last = int(self.starts[index]), int(self.ends[index])
        text = self.text
        return [text[start:end] for start, end in zip(self.token_starts[first:last].tolist(),
                                                       self.token_ends[first:last].tolist(), strict=True)]

    def window_ends(self) -> Ints:
        """The last sentence of the window starting at each sentence (computed once: every scoring step asks)."""
        return self.window_last

    def imperative(self, verbs: GramTable, rows: npt.NDArray[np.int32] | None = None) -> npt.NDArray[np.bool_]:
        """Whether each sentence is imperative (as :func:`.features.sentence_features` decides).

        Among the words of a sentence's first ``IMPERATIVE_SPAN`` tokens
        (marks are skipped), the first word that is not a lead word decides:
        the sentence is imperative when that word is an action verb and fewer
        than ``IMPERATIVE_WORDS`` lead words come before it. All sentences'
        first tokens are one matrix (a loop over the offsets cost ten array
        operations per offset, most of a short page's detector time). ``rows``
        are the kept tokens' rows in ``verbs`` when the caller has them.
        """
        kinds = verbs.verbs[verbs.rows(self.hashes) if rows is None else rows]
        count = len(self.raws)
        if not count or not len(kinds):
            return np.zeros(count, dtype=np.bool_)
        offsets = np.arange(IMPERATIVE_SPAN, dtype=np.int64)
        inside = (self.cstarts[:, None] + offsets) < self.cends[:, None]
        # Positions past a sentence's end read some other token; ``inside`` masks them out.
        word = inside & self.word[np.minimum(self.starts[:, None] + offsets, len(self.word) - 1)]
        kind = kinds[np.minimum(self.cstarts[:, None] + offsets, len(kinds) - 1)]
        lead = word & (kind == LEAD)
        deciding = word & ~lead
        decided = deciding.any(axis=1)
        first = deciding.argmax(axis=1)
        sentences = np.arange(count)
        # The deciding word is the first non-lead word: every word before it is a lead word.
        leads_before = lead.cumsum(axis=1)[sentences, first]
        result: npt.NDArray[np.bool_] = decided & (kind[sentences, first] == ACTION) & (leads_before < IMPERATIVE_WORDS)
        return result

    def window_cues(self, unigrams: GramTable, bigrams: GramTable, rows: tuple[npt.NDArray[np.int32],
                    npt.NDArray[np.int32]] | None = None) -> Ints:
        """Each window's count of every cue (rows: windows; columns: ``CUE_NAMES``).

        A two-word cue counts only inside one sentence (as in
        :func:`.features.sentence_features`). Cue words are rare, so each
        cue's occurrences are listed and a window's count is the number of
        them inside its range. ``rows`` are the kept tokens' and pairs' rows
        in the two tables when the caller has them.
        """
        word_rows, pair_rows = (unigrams.rows(self.hashes), bigrams.rows(self.pairs)) if rows is None else rows
        starts = self.cstarts
        ends = self.cends[self.window_ends()]
        pair_masks = bigrams.cues[pair_rows]
        pair_masks[~self.within] = 0
        counts = np.zeros((len(starts), len(CUE_NAMES)), dtype=np.int64)
        bits = np.arange(len(CUE_NAMES), dtype=np.int64)
        # A bigram at k lies in the window when its second token does: the window's last pair is at end - 2.
        for masks, last in ((unigrams.cues[word_rows], ends), (pair_masks, ends - 1)):
            hits = masks.nonzero()[0]
            if not len(hits):
                continue
            per_hit = (masks[hits].astype(np.int64)[:, None] >> bits) & 1
            cumulative = np.zeros((len(hits) + 1, len(CUE_NAMES)), dtype=np.int64)
            np.cumsum(per_hit, axis=0, out=cumulative[1:])
            counts += cumulative[np.searchsorted(hits, last)] - cumulative[np.searchsorted(hits, starts)]
        return counts


# The sentence ends an ASCII text can hold (the full-width ones cannot be in it: no search needed).
_ASCII_ENDS = "".join(mark for mark in SENTENCE_ENDS if mark.isascii())


def _mark_boundaries(text: str) -> str:
    # str.replace per character is several times faster than a regular-expression substitution.
    for mark in _ASCII_ENDS if text.isascii() else SENTENCE_ENDS:
        if mark in text:
            text = text.replace(mark, mark + _BOUNDARY)
    return text.replace("\n", _BOUNDARY)


def build_stream(groups: Sequence[tuple[int, str]], dropped: frozenset[int] = frozenset(),
                 lowered: Sequence[str | None] = ()) -> Stream:
    """The stream of ``groups`` (piece index, text), one group per slice of a piece.

    Sentences of the pieces in ``dropped`` whose tokens equal a sentence of
    another piece are left out (a normalized piece repeats the lines it did
    not change; they were scored as written). ``lowered[i]``, when given and
    not None, is ``groups[i]``'s text lower-cased.
    """
    # A boundary after every sentence end and in place of every newline: the text splits into
    # the raw sentences of split_sentences (lines cut after sentence punctuation).
    # (lower_text is text.lower() with every NUL a space: from a known lower case, only the latter.)
    texts = [_mark_boundaries(lower_text(text) if lower is None else lower.replace("\x00", " "))
             for (_, text), lower in itertools.zip_longest(groups, lowered[:len(groups)])]
    # Each text is split into its raw sentences once (the split of the joined text is their concatenation).
    splits = [text.split(_BOUNDARY) for text in texts]
    if dropped:
        # A raw sentence of a dropped piece that equals one of another piece only holds sentences
        # the token-level check below would drop: leave it out before tokenizing (half of a
        # normalized piece is usually lines it did not change). Only the dropped pieces' raws
        # are put in a set; the written ones are just looked up in it.
        kept_from = [piece not in dropped for piece, _ in groups]
        candidates = set(itertools.chain.from_iterable(
            parts for parts, stays in zip(splits, kept_from, strict=True) if not stays))
        common = candidates.intersection(itertools.chain.from_iterable(
            parts for parts, stays in zip(splits, kept_from, strict=True) if stays))
        if common:
            for index, stays in enumerate(kept_from):
                if not stays:
                    # An emptied text still holds one (empty) raw sentence, as "".split does.
                    splits[index] = [raw for raw in splits[index] if raw not in common] or [""]
                    texts[index] = _BOUNDARY.join(splits[index])
    joined = _BOUNDARY.join(texts)
    raws = list(itertools.chain.from_iterable(splits))
    group_of_raw = np.repeat(np.arange(len(groups)), [len(parts) for parts in splits])
    found = spans(joined)
    hashes, is_word, token_count = found.keys, found.word, len(found.keys)
    # A boundary is a NUL, always a token of its own (a mark).
    boundaries = (found.first == 0).nonzero()[0]
    raw_starts = np.concatenate(([0], boundaries + 1))
    raw_ends = np.append(boundaries, token_count)
    lengths = raw_ends - raw_starts
    # Sentences as split_sentences keeps them: no tokens, or one token that is not a word, is
    # no sentence; a run longer than SENTENCE_TOKENS is cut, and a cut-off lone mark dropped.
    keep = lengths > 1
    single = lengths == 1
    keep[single] = is_word[raw_starts[single]]
    long_runs = (lengths > SENTENCE_TOKENS).nonzero()[0].tolist()
    if long_runs:
        keep[long_runs] = False
    kept = keep.nonzero()[0]
    starts_array, ends_array, raw_of = raw_starts[kept], raw_ends[kept], kept
    if long_runs:
        # A run longer than SENTENCE_TOKENS is cut every SENTENCE_TOKENS tokens; a piece of one token
        # that is not a word is dropped. The pieces join the kept sentences in token order (every
        # sentence starts at a token of its own, so ordering by start is ordering the stream).
        cut_starts = np.concatenate([np.arange(raw_starts[r], raw_ends[r], SENTENCE_TOKENS) for r in long_runs])
        cut_raws = np.repeat(long_runs, (lengths[long_runs] + SENTENCE_TOKENS - 1) // SENTENCE_TOKENS)
        cut_ends = np.minimum(cut_starts + SENTENCE_TOKENS, raw_ends[cut_raws])
        real = (cut_ends - cut_starts > 1) | is_word[cut_starts]
        order = np.argsort(np.concatenate((starts_array, cut_starts[real])), kind="stable")
        starts_array = np.concatenate((starts_array, cut_starts[real]))[order]
        ends_array = np.concatenate((ends_array, cut_ends[real]))[order]
        raw_of = np.concatenate((raw_of, cut_raws[real]))[order]
    piece_of = np.array([piece for piece, _ in groups], dtype=np.int64)[group_of_raw[raw_of]]
    if dropped:
        is_dropped = np.zeros(max(piece for piece, _ in groups) + 1, dtype=np.bool_)
        is_dropped[list(dropped)] = True
        from_dropped = is_dropped[piece_of]
        # A key holds the sentence's length, so only written sentences of a length some
        # dropped sentence has can equal one: only those are keyed (usually a few).
        lengths = ends_array - starts_array
        dropped_length = np.zeros(int(lengths.max(initial=0)) + 1, dtype=np.bool_)
        dropped_length[lengths[from_dropped]] = True
        asked = dropped_length[lengths]
        keys = _sentence_keys(hashes, starts_array[asked], ends_array[asked])
        from_asked = from_dropped[asked]
        written = set(keys[~from_asked].tolist())
        stay = ~from_dropped
        stay[from_dropped] = [key not in written for key in keys[from_asked].tolist()]
        starts_array, ends_array, raw_of, piece_of = starts_array[stay], ends_array[stay], raw_of[stay], piece_of[stay]
    # The kept sentences are disjoint token ranges in stream order: the kept tokens are their
    # concatenation, and a sentence's range in them starts where the lengths before it end.
    sentence_lengths = ends_array - starts_array
    cends = sentence_lengths.cumsum()
    cstarts = cends - sentence_lengths
    kept_tokens = int(cends[-1]) if len(cends) else 0
    compact = hashes[np.arange(kept_tokens, dtype=np.int64) + np.repeat(starts_array - cstarts, sentence_lengths)]
    sentence_of = np.repeat(np.arange(len(raw_of), dtype=np.uint64), sentence_lengths)
    pairs = pair_keys(compact[:-1], compact[1:]) if len(compact) > 1 else np.zeros(0, dtype=np.uint64)
    within = sentence_of[:-1] == sentence_of[1:]
    sentence_group = group_of_raw[raw_of]
    # The last sentence of each sentence's group: groups are contiguous runs of sentences.
    last = np.zeros(len(raw_of), dtype=np.int64)
    if len(raw_of):
        run_ends = np.flatnonzero(np.append(sentence_group[1:] != sentence_group[:-1], True))
        last = np.repeat(run_ends, np.diff(np.concatenate(([-1], run_ends))))
    return Stream(
        text=joined,
        token_starts=found.starts,
        token_ends=found.ends,
        word=is_word,
        raws=[raws[r] for r in raw_of.tolist()],
        starts=starts_array,
        ends=ends_array,
        cstarts=cstarts,
        cends=cends,
        piece=piece_of,
        last=last,
        hashes=compact,
        pairs=pairs,
        within=within,
        unigram_counted=_once_per_sentence(compact, sentence_of),
        # A junction bigram (across two sentences) always counts, and must not take the place of
        # the same bigram inside its first sentence: it is deduplicated under a sentence id of its own.
        bigram_counted=~within | _once_per_sentence(
            pairs, np.where(within, sentence_of[:-1], sentence_of[:-1] + np.uint64(len(raw_of)))),
        window_last=np.minimum(np.arange(len(raw_of), dtype=np.int64) + (WINDOW_SENTENCES - 1), last),
    )


def _once_per_sentence(keys: Keys, sentence_of: Keys) -> npt.NDArray[np.bool_]:
    """One occurrence of each key per sentence is True (n-grams count once per sentence).

    Which occurrence does not matter: a window holds whole sentences.
    """
    mixed = keys + sentence_of * _SENTENCE_MIX
    order = np.argsort(mixed)
    ordered = mixed[order]
    once = np.ones(len(keys), dtype=np.bool_)
    once[order[1:][ordered[1:] == ordered[:-1]]] = False
    return once


def _sentence_keys(hashes: Keys, starts: Ints, ends: Ints) -> Keys:
    """A 64-bit key per sentence: a polynomial over its token hashes (equal token lists, equal keys)."""
    lengths = ends - starts
    if not len(lengths):
        return np.zeros(0, dtype=np.uint64)
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    position = np.arange(int(lengths.sum())) - np.repeat(offsets, lengths)
    values = hashes[np.repeat(starts, lengths) + position] * _POWERS[position]
    keys: Keys = np.add.reduceat(values, offsets) + lengths.astype(np.uint64) * _MIX
    return keys
