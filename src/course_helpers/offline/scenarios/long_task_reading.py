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
bare (`reports/x.md`, `notes.md`). A path's own letters are never read as words (`reports/x.md`
does not say "report", `not/x.md` does not say "not"). A candidate does not count when it sits
inside a quotation of several words (`someone said "put it in tmp/x.md"`), when its clause rules
it out, when it is one of the project's source files, or when its sentence neither speaks of the
report or of writing (report, write, save, put, store, goes, use, file, output; отчёт, запиши,
пиши, сохрани, положи, файл, используй) nor picks one path over another it rules out ("`y`, not
`x`", "`y`, а не `x`"). A negation (not, never, do not, nowhere; не, нигде, нельзя) reaches up to
the next comma, colon, semicolon, dash, "but", "then", "and", "но", "а", "и"; a word of exclusion
(instead of, rather than, except, other than, anywhere but; вместо, кроме) rules out only the
path right after it. So "instead of `x`, use `y`", "вместо `x` положи отчёт в `y`" and "не в
`x`, а в `y`" rule out `x` only, and "Anywhere but `x`" names nothing. Of those left, the last
one the person wrote wins: a later answer corrects an earlier one. So all of these name
`reports/x.md`: "Write the report to `reports/x.md`", "write the report to reports/x.md", "Use
`reports/x.md` for the report", "The file `reports/x.md`, please", "Put it in `reports/x.md`",
"Do not write to `reports/old.md`; write it to `reports/x.md`", "Запиши отчёт в
`reports/x.md`", "Пожалуйста, `reports/x.md`, а не `notes/x.md`".

**What a summary keeps.** There are three kinds of thing to keep: the person's words (their
requests, constraints, instructions), the model's findings (what it found, discovered,
concluded), and its actions (the tools, calls and files it used). A keep verb (keep, include,
list, mention, note, record, preserve, quote...; сохрани, включи, перечисли, упомяни...) or a
leave verb (leave out, omit, exclude, drop, skip, without; опусти, пропусти, исключи, без; or
"do not keep", «не включай») sets what the words after it in the same sentence ask, until the
next verb. A summary request is a summary verb (summarise, recap, sum up; сведи, подытожь,
перескажи, сводка) with the conversation as its object (the conversation, the chat, so far;
разговор, переписка, диалог, итерации, до сих пор). When the prompt says what to keep, only that is kept ("keep only ..." keeps that
alone); when it only says what to leave out, the rest is kept; when it names nothing, the
summary keeps all three.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REQUESTS, FINDINGS, ACTIONS = "requests", "findings", "actions"
KINDS = (REQUESTS, FINDINGS, ACTIONS)

# -- clauses ----------------------------------------------------------------------------------------

_CANDIDATE = re.compile(
    r"`([^`\s]+)`|(?<![\w/.`-])((?:[\w-]+/)+[\w.-]*\w\.[A-Za-z]{1,5}|[\w-]+\.(?:md|txt|rst))\b"
)
# A negation governs everything up to the next turn; a word of exclusion ("instead of",
# "вместо") governs only the path right after it.
_NEGATED = re.compile(
    r"\b(?:not|never|don't|do\s+not|nowhere|no\s+need\s+to|не|нигде|нельзя)\b", re.IGNORECASE
)
_EXCLUDING = re.compile(
    r"\b(?:instead\s+of|rather\s+than|except(?:\s+for)?|other\s+than|anywhere\s+but|"
    r"anything\s+but|вместо|кроме)\b",
    re.IGNORECASE,
)
_TURN = re.compile(r"[,;:—–]|\b(?:but|then|and|но|потом|затем|и|а)\b", re.IGNORECASE)
# A quotation of several words (someone else's words): "put it in `x`".
_QUOTED = re.compile(r"\"[^\"\n]*\s[^\"\n]*\"|“[^”\n]*\s[^”\n]*”")


def clauses(text: str) -> list[str]:
    """The text cut into clauses: at sentence ends, semicolons, new lines, and before
    a ', but' / ', not' that turns the sentence round."""
    text = _QUOTED.sub(" ", text)
    pieces = re.split(
        r"(?<=[.!?;])\s+|\n+|,\s*(?=(?:but|not|never|rather|instead|а\s+не|но|не|вместо)\b)",
        text,
        flags=re.IGNORECASE,
    )
    return [p.strip() for p in pieces if p and p.strip()]


def _masked(text: str) -> str:
    """The text with every path blanked out, same length: a path's own letters (`reports/`,
    `not-used/`) are never read as the person's words."""
    return _CANDIDATE.sub(lambda m: " " * len(m.group(0)), text)


def _ruled_out(clause: str, at: int) -> bool:
    """True when a negation before `at` still governs it (no comma, dash, 'but', 'then', 'and',
    'но', 'а', 'и' between: "do not write to `a`, use `b`" rules out `a` only), or when a word of
    exclusion stands right before it ("instead of `a` use `b`", "вместо `a` — `b`": `a` only)."""
    masked = _masked(clause)
    negations = list(_NEGATED.finditer(masked[:at]))
    if negations and not _TURN.search(masked[negations[-1].end() : at]):
        return True
    excluding = list(_EXCLUDING.finditer(masked[:at]))
    if not excluding:
        return False
    between = clause[excluding[-1].end() : at]
    return not _TURN.search(masked[excluding[-1].end() : at]) and not _CANDIDATE.search(between)


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
        for m in _WORK.finditer(_masked(clause))
    )


def asks_file_count(texts: Iterable[str]) -> bool:
    return any(_FILE_COUNT.search(text) for text in texts)


# -- the report's file -------------------------------------------------------------------------------

_ABOUT_REPORT = re.compile(
    r"\b(?:report|write|writ|save|put|store|goes|go|use|file|output|there|"
    r"отч[её]т|запи[шс]|пи[шс]|напи[шс]|сохран|полож|клад|помест|файл|использ|туда)\w*",
    re.IGNORECASE,
)


def report_path(texts: Iterable[str], sources: Iterable[str] = ()) -> str | None:
    """The file the person wants the report in, by the rule of the module's docstring."""
    skip = set(sources)
    found = None
    for text in texts:
        for sentence in _sentences(text):
            named = [
                (m.group(1) or m.group(2), _ruled_out(clause, m.start()))
                for clause in clauses(sentence)
                for m in _CANDIDATE.finditer(clause)
            ]
            picks = [(path, out) for path, out in named if path not in skip]
            chooses = any(out for _, out in picks) and not all(out for _, out in picks)
            if not (_ABOUT_REPORT.search(_masked(sentence)) or chooses):
                continue
            found = next((path for path, out in reversed(picks) if not out), found)
    return found


def _sentences(text: str) -> list[str]:
    """The text cut at sentence ends, semicolons and new lines (not yet at ', not')."""
    text = _QUOTED.sub(" ", text)
    return [p.strip() for p in re.split(r"(?<=[.!?;])\s+|\n+", text) if p.strip()]


# -- summaries ---------------------------------------------------------------------------------------

_SUMMARISE = re.compile(
    r"\b(?:summar(?:ise|ize|y)|recap|sum\s+up|"
    r"свед(?:и|ите)|сводк\w*|подытож\w*|перескаж\w*|резюмир\w*)\b",
    re.IGNORECASE,
)
_OF_WHAT = re.compile(
    r"\b(?:conversation|session|turns|messages|so\s+far|chat|discussion|dialogue|"
    r"history\s+(?:above|so\s+far)|"
    r"what\s+(?:we|you|I)\s+(?:have\s+)?(?:did|done|said|discussed)|"
    r"разговор\w*|бесед\w*|диалог\w*|переписк\w*|сообщени\w*|итераци\w*|чат\w*|"
    r"до\s+сих\s+пор|истори\w*\s+(?:выше|до\s+сих\s+пор)|"
    r"что\s+(?:мы|ты|я)\s+(?:сделали|сделал|обсудили|сказали|сказал))\b",
    re.IGNORECASE,
)


def summary_request(text: str) -> bool:
    """True when the words ask for a summary of the conversation (not of some other text)."""
    return bool(_SUMMARISE.search(text) and _OF_WHAT.search(text))


_VERB = (
    r"(?P<leave>leave\s+out|leaving\s+out|leave|omit\w*|exclud\w*|drop\w*|skip\w*|without|"
    r"опуст\w*|пропуст\w*|исключ\w*|убер\w*|без)|"
    r"(?P<keep>keep\w*|includ\w*|list\w*|mention\w*|note\w*|record\w*|retain\w*|preserv\w*|"
    r"cover\w*|repeat\w*|quot\w*|stat(?:e|ing)|with|"
    r"сохран\w*|оставь\w*|включ\w*|перечисл\w*|упомян\w*|упомина\w*|отметь\w*|"
    r"процитир\w*|цитир\w*|повтори\w*|укажи\w*)"
)
_KIND = (
    r"(?P<requests>requests?|constraints?|instructions?|wishes|asked|person|user|their\s+own\s+words|"
    r"просьб\w*|ограничени\w*|инструкци\w*|указани\w*|пожелани\w*|человек\w*|пользовател\w*)|"
    r"(?P<findings>findings?|found|discover\w*|conclu\w*|learn\w*|decisions?|"
    r"вывод\w*|находк\w*|найден\w*|нашёл|нашел|обнаруж\w*|заключени\w*|решени\w*)|"
    r"(?P<actions>tools?|tool\s+calls?|calls|actions|steps|files\s+(?:you|I|we|and|read|used)|"
    r"инструмент\w*|вызов\w*|действи\w*|шаг\w*|(?:использованн|прочитанн)\w*\s+файл\w*)"
)
_WORDS = re.compile(
    rf"\b(?:(?P<not>do\s+not|don't|never|not|не)\s+)?(?:{_VERB}|{_KIND}|(?P<only>only|только))\b",
    re.I,
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
