"""Forum, code-host and review threads as carriers: where web agents meet injected posts.

A web agent reads pages made of many short posts by different people, each
wrapped in interface text (who wrote it, when, votes, "Reply", labels). An
attack planted there is one post, or the end of one. The same thread shape
without an attack is an ordinary page, so the model learns that the wrapping,
the second person and the requests between people are not the signal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .goals import ordinary_request

__all__ = ["thread"]

_USERS = ("mkoller", "dev_anna", "throwaway_8812", "j.park", "octo-fan", "sysadmin42", "lena_w", "rbrown",
          "quietcoder", "the_real_omar", "pixelpusher", "nora.s", "bugfinder", "maintainer-bot", "chenli")
_FORUM_TITLES = ("Has anyone tried the new firmware?", "Best budget laptop for students?", "Weekly discussion thread",
                 "Help: build fails after upgrading", "What are you reading this month?", "Review: two weeks in")
_ISSUE_TITLES = ("Crash when opening large files", "Add dark mode to settings", "Docs: install steps are outdated",
                 "Login button does nothing on mobile", "Support for Python 3.12", "Memory leak in worker pool")
_REPLIES = (
    "Same here, it started after the last update.", "Thanks, that fixed it for me.",
    "Could you share the full error message? It is hard to tell without it.",
    "Try clearing the cache first and then restart the app.", "I can reproduce this on version 2.3.1.",
    "Please open a separate issue for that, it is a different bug.", "Closing as duplicate of #{n}.",
    "You need to run the migration before starting the server.", "Great write-up, bookmarked.",
    "Make sure you read the FAQ before posting, most of this is covered there.", "+1, would love to see this.",
    "I sent you a message with the details.", "Please don't bump old threads.",
    "Can a maintainer take a look? This blocks our release.", "Fixed in {n}, please update and confirm.",
)


def _header(rng: random.Random, kind: str, user: str) -> str:
    if kind == "issue":
        return rng.choice((f"{user} commented {rng.randint(1, 20)} days ago", f"{user} opened this issue",
                           f"{user} commented · edited", f"@{user} replied"))
    return rng.choice((f"{user} · {rng.randint(1, 900)} points · {rng.randint(1, 23)} hours ago",
                       f"Posted by u/{user} {rng.randint(1, 11)} months ago", f"{user} wrote:",
                       f"{user} ★★★★☆ Verified purchase"))


def _footer(rng: random.Random, kind: str) -> str:
    if kind == "issue":
        return rng.choice((f"👍 {rng.randint(1, 40)}", "Reply", "Labels: bug, needs-triage",
                           "Assignees: none", ""))
    return rng.choice(("Reply Share Report Save", f"Helpful ({rng.randint(0, 99)})",
                       "reply · permalink · embed", "Was this review helpful? Yes No", ""))


def thread(rng: random.Random, carrier: Sequence[str], payload: str | None) -> tuple[list[str], int | None]:
    """A thread's lines; ``payload`` (when given) is one post's body or its last line, at the returned index."""
    kind = rng.choice(("forum", "issue", "review"))
    title = rng.choice(_ISSUE_TITLES if kind == "issue" else _FORUM_TITLES)
    lines = [title if kind != "issue" else f"{title} #{rng.randint(10, 9999)}"]
    posts = rng.randint(2, 6)
    target = rng.randrange(posts)
    where: int | None = None
    sentences = [s for p in carrier for s in p.split(". ") if len(s) > 20] or ["Welcome to the thread."]
    for number in range(posts):
        lines.append(_header(rng, kind, rng.choice(_USERS)))
        body = rng.choice((rng.choice(sentences), rng.choice(_REPLIES).format(n=rng.randint(10, 999)),
                           ordinary_request(rng)))
        if payload is not None and number == target:
            if rng.random() < 0.5:
                lines.append(body)
            body = payload
            where = len(lines)
        lines.append(body)
        footer = _footer(rng, kind)
        if footer:
            lines.append(footer)
    return lines, where
