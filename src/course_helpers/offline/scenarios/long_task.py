"""Course machinery (offline course model): the long task of notebook 12, and the summaries the
course model writes when a program asks it to summarise a conversation.

**The long task.** Offered tools named `list_sources`, `read_source` and `write_report`, the model
takes the task on only when the person asks for it: their words ask it to find, track down,
investigate, read or review something, or to write them a report (`long_task_reading`), or it has
already started (a `read_source` call is in the messages). A person who asks something else gets
an answer to that: "How many source files does the project have? Do not read anything" gets one
`list_sources` call and the number; any other request is left to the other scenarios. Once at
work, it lists the project's files, reads them one a turn, and writes a report when it has read
them all. Everything it does follows from what the request holds, by one rule whatever shortened
it:

- the file list is the latest `list_sources` result still in the messages; without one (it was
  dropped, or its content was cleared) it lists the files again;
- a file counts as read when a `read_source` call for it is in the messages, or when any text of
  the conversation (the person's, its own, a note or a summary; not tool results) names it;
- when a result it has just received holds the rounding mistake, it says so in its own words
  (`FINDING`); at the end it knows the culprit only if such a sentence, or the file's own text,
  is still in the messages;
- it writes the report only to the file the person's words name for it, wherever those words now
  sit (their own message, or a summary that quotes them); when no such words are left, it asks
  where the report should go instead of writing it. The person's words are read by the rule of
  `long_task_reading.report_path`: a path in backticks or bare, in a clause about the report or
  about writing, not ruled out ("do not write to `x`", "anywhere but `x`", «не пиши в `x`»)
  and not inside someone else's quoted words; the last one named wins. Russian answers are read
  by the same rule («Запиши отчёт в `reports/x.md`», «`reports/x.md`, а не `notes/x.md`»). "Write the report to `reports/x.md`", "write the report to
  reports/x.md", "Use `reports/x.md` for the report", "The file `reports/x.md`, please" and
  "Put it in `reports/x.md`" all name `reports/x.md`;
- when it may not call a tool (`tool_choice` none) it says how many of the files it has read, and
  never claims more than the messages show.

**Summaries.** When the last message's own words ask for a summary of the conversation
("Summarise the conversation so far", "Please write a summary of the chat history above", "Recap
the session", «Сведи разговор выше в сводку»: a summary verb and the conversation as its object), it answers in words, labelled
as the course model's summary, with what the request asks it to keep
(`long_task_reading.summary_wants`): the person's requests and constraints (their words,
quoted), its own findings (its earlier sentences), the files and tools used (the calls it made).
A prompt that says what to keep gets only that; one that only says what to leave out ("leave out
the tool calls") gets the rest; one that names nothing gets all three. A summary reports only
what the messages it is sent show: tool results are never copied into it, and it claims no call,
file or finding that is not in them.
"""

from __future__ import annotations

import json
import re

from course_helpers.fixtures.long_task import FINDING, ROUNDING_BUG
from course_helpers.offline.conversation import Conversation, blocks_of, own_words
from course_helpers.offline.policy import Reply, say, scenario, text, tool_use
from course_helpers.offline.scenarios.long_task_reading import (
    ACTIONS,
    FINDINGS,
    REQUESTS,
    asks_file_count,
    asks_for_work,
    report_path,
    summary_request,
    summary_wants,
)

SUMMARY_HEADER = "Summary of the earlier conversation, written by the offline course model"
QUOTED_CHARS = 400

_FOUND = re.compile(r"`([^`\s]+)` " + re.escape(FINDING))
_PATH = re.compile(r"^[\w./-]+\.py$")


def _own_texts(conv: Conversation, *, roles=("user", "assistant")) -> list[str]:
    """Every text block of the conversation (not tool results), in order."""
    return [
        block.get("text", "")
        for message in conv.messages
        if message.get("role") in roles
        for block in blocks_of(message)
        if block.get("type") == "text"
    ]


# -- summaries -------------------------------------------------------------------------------------


def _asks_for_summary(conv: Conversation) -> str | None:
    """The last message's own words, when they ask for a summary of the conversation."""
    if conv.last.get("role") != "user":
        return None
    asked = "\n".join(b.get("text", "") for b in blocks_of(conv.last) if b.get("type") == "text")
    return asked if summary_request(own_words(asked, conv.model_texts)) else None


_CARRIED = {"- The person said: ": REQUESTS, "- I said: ": FINDINGS, "- I called ": ACTIONS}
_PERSON_SAID = re.compile(r'^- The person said: "(.*)"$', re.MULTILINE)


def _kind_of(line: str) -> str | None:
    """Which kind of thing a line of an earlier summary keeps."""
    return next((kind for start, kind in _CARRIED.items() if line.startswith(start)), None)


def _person_texts(conv: Conversation) -> list[str]:
    """The person's own words, in order: each user text (without what it quotes or wraps), and
    inside a summary, the lines that quote the person."""
    texts = []
    for message in conv.messages:
        if message.get("role") != "user":
            continue
        for block in blocks_of(message):
            value = block.get("text", "") if block.get("type") == "text" else ""
            if SUMMARY_HEADER in value:
                texts += _PERSON_SAID.findall(value)
            elif value.strip():
                texts.append(own_words(value, conv.model_texts))
    return texts


def _quote(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= QUOTED_CHARS else value[: QUOTED_CHARS - 1] + "…"


@scenario(
    "summary",
    "Summarise a conversation it is sent: 'Summarise the conversation so far: ...' (keeps what "
    "the request asks for: notebook 12)",
    priority=4,
)
def summary(conv: Conversation) -> Reply | None:
    asked = _asks_for_summary(conv)
    if asked is None:
        return None
    wants = summary_wants(own_words(asked, conv.model_texts))
    lines = [f"{SUMMARY_HEADER} ({len(conv.messages)} messages):"]
    earlier = conv.messages[:-1]
    last_own = [b for b in blocks_of(conv.last) if b.get("type") != "text"]
    messages = [*earlier, {**conv.last, "content": last_own}]
    for message in messages:
        role = message.get("role")
        for block in blocks_of(message):
            kind = block.get("type")
            if kind == "text" and SUMMARY_HEADER in block.get("text", ""):
                # An earlier summary: what it kept is carried over as it is.
                kept = block["text"].split(SUMMARY_HEADER, 1)[1]
                lines += [line for line in kept.splitlines()[1:] if _kind_of(line) in wants]
            elif kind == "text" and role == "user" and REQUESTS in wants:
                lines.append(f'- The person said: "{_quote(block.get("text", ""))}"')
            elif kind == "text" and role == "assistant" and FINDINGS in wants:
                lines.append(f"- I said: {_quote(block.get('text', ''))}")
            elif kind == "tool_use" and ACTIONS in wants:
                arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
                lines.append(f"- I called {block.get('name')}({arguments}).")
    if len(lines) == 1:
        lines.append("- Nothing the request asked me to keep.")
    return say("\n".join(lines))


# -- the long task ---------------------------------------------------------------------------------


def _listing(conv: Conversation) -> list[str]:
    for call in reversed(conv.calls_to("list_sources")):
        if call.result and not call.is_error:
            paths = [line.strip() for line in call.result.splitlines()]
            if paths and all(_PATH.match(p) for p in paths):
                return paths
    return []


def _report(culprit: str | None, read: int) -> str:
    if culprit is None:
        return (
            f"# Rounding report\n\nI read {read} files, but I cannot tell you which one rounds "
            "wrongly: what I found is no longer in front of me.\n"
        )
    return (
        f"# Rounding report\n\n`{culprit}` {FINDING}: each line total is rounded to the cent, "
        "then the rounded totals are added, so an invoice can be a cent off the sum of its "
        f"lines. Round once, on the invoice total. I read {read} files; no other file rounds.\n"
    )


@scenario(
    "long_task",
    "Find a rounding bug with tools named list_sources, read_source and write_report: 'Some "
    "invoice totals are one cent off...' (a long run: notebook 12)",
    priority=37,
)
def long_task(conv: Conversation) -> Reply | None:
    if not conv.offers("list_sources", "read_source", "write_report") or conv.forced_tool:
        return None
    person = _person_texts(conv)
    if not asks_for_work(person) and not conv.calls_to("read_source"):
        return _answer_about_files(conv, person)
    written = [c for c in conv.latest_results() if c.name == "write_report"]
    if written:
        call = written[-1]
        if call.is_error:
            return say(f"I could not write the report: {(call.result or '').strip()[:200]}")
        return say(f"Done: the report is in `{call.input.get('path')}`. {call.result}")
    found = [
        c
        for c in conv.latest_results()
        if c.name == "read_source" and not c.is_error and ROUNDING_BUG in (c.result or "")
    ]
    said = [
        f"Found it: `{c.input.get('path')}` {FINDING}. I will check the other files for the "
        "same mistake."
        for c in found
    ]
    listing = _listing(conv)
    if not listing:
        if not conv.tools_allowed:
            return say("I have not seen the project's file list yet, so I have read no file.")
        return Reply(
            [*map(text, said), text("The list of source files first."), tool_use("list_sources")]
        )
    texts = "\n".join(_own_texts(conv))
    done = {str(c.input.get("path")) for c in conv.calls_to("read_source") if c.result}
    done |= {path for path in listing if path in texts}
    waiting = [path for path in listing if path not in done]
    if waiting and conv.tools_allowed:
        step = f"Reading `{waiting[0]}` ({len(listing) - len(waiting) + 1} of {len(listing)})."
        return Reply([*map(text, said), text(step), tool_use("read_source", path=waiting[0])])
    culprits = [m.group(1) for m in _FOUND.finditer(texts)]
    culprits += [
        str(c.input.get("path"))
        for c in conv.calls_to("read_source")
        if ROUNDING_BUG in (c.result or "")
    ]
    culprit = culprits[0] if culprits else None
    asked_path = report_path(person, listing)
    finding = f"`{culprit}` {FINDING}." if culprit else "I cannot tell which file rounds."
    if waiting:  # tools not allowed: say what the messages show, no more
        read = len(listing) - len(waiting)
        return say(f"I have read {read} of the {len(listing)} files so far. {finding}")
    if asked_path is None or not conv.tools_allowed:
        where = (
            "I do not know where you want the report: tell me the file and I will write it."
            if asked_path is None
            else f"I would write the report to `{asked_path}`, but no tool may be used."
        )
        return say(f"I have read all {len(listing)} files. {finding} {where}")
    report = _report(culprit, len(done))
    write = tool_use("write_report", path=asked_path, text=report)
    return Reply([*map(text, said), text("Writing the report."), write])


def _answer_about_files(conv: Conversation, person: list[str]) -> Reply | None:
    """Not asked for the long task: a question about the project's files gets its answer (one
    `list_sources` call when the list is not in the messages); anything else is not this
    scenario's."""
    if not asks_file_count(person):
        return None
    listing = _listing(conv)
    if listing:
        names = ", ".join(f"`{path}`" for path in listing)
        return say(f"The project has {len(listing)} source files: {names}.")
    if not conv.tools_allowed or conv.calls_to("list_sources"):
        return say("I cannot see the project's file list, so I cannot tell you how many there are.")
    return Reply([text("Let me look at the file list."), tool_use("list_sources")])
