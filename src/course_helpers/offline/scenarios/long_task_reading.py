"""Course machinery (offline course model): how the model of notebook 12 reads the person's words.

Four readings, each by one rule for every caller, from the person's own text (never a system
prompt, a tool result or words the person quotes from someone else):

- `asks_for_work(texts)`: the person asks for the long task (find, track down, investigate,
  read or review something, or "write me a report"), in a sentence that does not forbid it
  ("do not read anything" asks for nothing). Saying where a report goes is not asking for one.
- `asks_file_count(texts)`: the person asks how many files there are, or which ones.
- `report_path(texts, sources)`: the file the person wants the report in (see the rule below).
- `summary_request(text)` and `summary_wants(text)`: whether a message asks for a summary of
  the conversation, and what that summary should keep.

**The report's file.** Every path the person writes is a candidate: in backticks (`` `x` ``) or
bare (`reports/x.md`, `notes.md`). A candidate does not count when it sits inside a quotation of
several words (`someone said "put it in tmp/x.md"`), when its clause rules it out ("do not write
to `x`", "`y`, not `x`", "instead of `x`"; a negation reaches up to the next comma, colon,
semicolon, "but", "then" or "and", so "instead of `x`, use `y`" rules out `x` only), when it is one of the project's source files, or when
its clause does not speak of the report or of writing (report, write, save, put, store, goes, use,
file, output). Of those left, the last one the person wrote wins: a later answer corrects an
earlier one. So all of these name `reports/x.md`: "Write the report to `reports/x.md`", "write
the report to reports/x.md", "Use `reports/x.md` for the report", "The file `reports/x.md`,
please", "Put it in `reports/x.md`", "Do not write to `reports/old.md`; write it to
`reports/x.md`".

**What a summary keeps.** There are three kinds of thing to keep: the person's words (their
requests, constraints, instructions), the model's findings (what it found, discovered,
concluded), and its actions (the tools, calls and files it used). A keep verb (keep, include,
list, mention, note, record, preserve, quote...) or a leave verb (leave out, omit, exclude, drop,
skip, without; or "do not keep") sets what the words after it in the same sentence ask, until
the next verb. When the prompt says what to keep, only that is kept ("keep only ..." keeps that
alone); when it only says what to leave out, the rest is kept; when it names nothing, the
summary keeps all three.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REQUESTS, FINDINGS, ACTIONS = "requests", "findings", "actions"
KINDS = (REQUESTS, FINDINGS, ACTIONS)

# -- clauses ----------------------------------------------------------------------------------------

_NEGATED = re.compile(
    r"\b(?:not|never|don't|do\s+not|nowhere|no\s+need\s+to|instead\s+of|rather\s+than|except)\b",
    re.IGNORECASE,
)
_TURN = re.compile(r"[,;:]|\b(?:but|then|and)\b", re.IGNORECASE)
# A quotation of several words (someone else's words): "put it in `x`".
_QUOTED = re.compile(r"\"[^\"\n]*\s[^\"\n]*\"|“[^”\n]*\s[^”\n]*”")


def clauses(text: str) -> list[str]:
    """The text cut into clauses: at sentence ends, semicolons, new lines, and before
    a ', but' / ', not' that turns the sentence round."""
    text = _QUOTED.sub(" ", text)
    pieces = re.split(r"(?<=[.!?;])\s+|\n+|,\s*(?=(?:but|not|never|rather|instead)\b)", text)
    return [p.strip() for p in pieces if p and p.strip()]


def _ruled_out(clause: str, at: int) -> bool:
    """True when a negation before `at` still governs it: no comma, 'but', 'then' or 'and'
    between ("instead of `a`, use `b`" rules out `a` only)."""
    negations = list(_NEGATED.finditer(clause[:at]))
    return bool(negations) and not _TURN.search(clause[negations[-1].end() : at])


# -- the work and the question ----------------------------------------------------------------------

_WORK = re.compile(
    r"\b(?:find|finds|look\s+(?:for|into|at)|locate|track\s+down|hunt|investigate|fix|debug|"
    r"check|read|review|go\s+through|audit|write\s+(?:me\s+|us\s+)?an?\s+(?:\w+\s+)?report|"
    r"report\s+(?:on|about))\b",
    re.IGNORECASE,
)
_FILE_COUNT = re.compile(
    r"\b(?:how\s+many\s+(?:\w+\s+)?files|which\s+(?:\w+\s+)?files|list\s+(?:the\s+|its\s+)?"
    r"(?:\w+\s+)?files|what\s+(?:\w+\s+)?files)\b",
    re.IGNORECASE,
)


def asks_for_work(texts: Iterable[str]) -> bool:
    """True when a clause of the person's words asks for the work, and does not forbid it."""
    return any(
        not _ruled_out(clause, m.start())
        for text in texts
        for clause in clauses(text)
        for m in _WORK.finditer(clause)
    )


def asks_file_count(texts: Iterable[str]) -> bool:
    return any(_FILE_COUNT.search(text) for text in texts)


# -- the report's file -------------------------------------------------------------------------------

_CANDIDATE = re.compile(
    r"`([^`\s]+)`|(?<![\w/.`-])((?:[\w-]+/)+[\w.-]*\w\.[A-Za-z]{1,5}|[\w-]+\.(?:md|txt|rst))\b"
)
_ABOUT_REPORT = re.compile(
    r"\b(?:report|write|writ|save|put|store|goes|go|use|file|output|there)\w*", re.IGNORECASE
)


def report_path(texts: Iterable[str], sources: Iterable[str] = ()) -> str | None:
    """The file the person wants the report in, by the rule of the module's docstring."""
    skip = set(sources)
    found = None
    for text in texts:
        for clause in clauses(text):
            if not _ABOUT_REPORT.search(clause):
                continue
            for m in _CANDIDATE.finditer(clause):
                path = m.group(1) or m.group(2)
                if path in skip or _ruled_out(clause, m.start()):
                    continue
                found = path
    return found


# -- summaries ---------------------------------------------------------------------------------------

_SUMMARISE = re.compile(r"\b(?:summar(?:ise|ize|y)|recap|sum\s+up)\b", re.IGNORECASE)
_OF_WHAT = re.compile(
    r"\b(?:conversation|session|turns|messages|so\s+far|chat|discussion|dialogue|"
    r"history\s+(?:above|so\s+far)|"
    r"what\s+(?:we|you|I)\s+(?:have\s+)?(?:did|done|said|discussed))\b",
    re.IGNORECASE,
)


def summary_request(text: str) -> bool:
    """True when the words ask for a summary of the conversation (not of some other text)."""
    return bool(_SUMMARISE.search(text) and _OF_WHAT.search(text))


_VERB = (
    r"(?P<leave>leave\s+out|leaving\s+out|leave|omit\w*|exclud\w*|drop\w*|skip\w*|without)|"
    r"(?P<keep>keep\w*|includ\w*|list\w*|mention\w*|note\w*|record\w*|retain\w*|preserv\w*|"
    r"cover\w*|repeat\w*|quot\w*|stat(?:e|ing)|with)"
)
_KIND = (
    r"(?P<requests>requests?|constraints?|instructions?|wishes|asked|person|user|their\s+own\s+words)|"
    r"(?P<findings>findings?|found|discover\w*|conclu\w*|learn\w*|decisions?)|"
    r"(?P<actions>tools?|tool\s+calls?|calls|actions|steps|files\s+(?:you|I|we|and|read|used))"
)
_WORDS = re.compile(
    rf"\b(?:(?P<not>do\s+not|don't|never|not)\s+)?(?:{_VERB}|{_KIND}|(?P<only>only))\b", re.I
)


def summary_wants(text: str) -> set[str]:
    """What a summary request asks to keep: a subset of `KINDS` (see the module's docstring)."""
    keep: set[str] = set()
    leave: set[str] = set()
    only: set[str] = set()
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", _QUOTED.sub(" ", text)):
        polarity, alone = None, False
        for m in _WORDS.finditer(sentence):
            if m.group("keep") or m.group("leave"):
                if m.group("keep") == "with" and polarity is not None:
                    continue  # "your findings, with the file": still the same verb
                polarity = bool(m.group("keep")) != bool(m.group("not"))
                alone = False
            elif m.group("only"):
                alone = polarity is True
            elif polarity is not None:
                kind = next(k for k in KINDS if m.group(k))
                (keep if polarity else leave).add(kind)
                if alone:
                    only.add(kind)
    if only:
        return only - leave
    if keep:
        return keep - leave
    return set(KINDS) - leave
