"""The course model of notebook 12 decides from what the person asks: whether to start the long
task, where the report goes, what a summary keeps, and how much it says it has read."""

from __future__ import annotations

import re

import pytest

from course_helpers.client import MODEL
from course_helpers.fixtures.long_task import (
    CULPRIT,
    QUESTION,
    SYSTEM,
    TASK,
    Workspace,
    long_task_tools,
    opening_messages,
)
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.context import SUMMARY_PROMPT, Summarise
from course_helpers.lessons.pairing import content_blocks, read_field
from course_helpers.offline import CourseModelApp
from course_helpers.offline.scenarios.long_task_reading import (
    asks_for_work,
    report_path,
    summary_request,
)


def fresh_client():
    return CourseModelApp().client(max_retries=0)


def settings() -> dict:
    tools = long_task_tools(Workspace())
    return {"model": MODEL, "system": SYSTEM, "tools": [t.definition() for t in tools]}


def session(task: str, answer: str) -> list[dict]:
    return [
        {"role": "user", "content": task},
        {"role": "assistant", "content": [{"type": "text", "text": QUESTION}]},
        {"role": "user", "content": answer},
    ]


def run(messages: list[dict]):
    workspace = Workspace()
    result = run_agent(
        fresh_client(),
        messages=messages,
        tools=long_task_tools(workspace),
        system=SYSTEM,
        max_steps=40,
    )
    return result, workspace


def calls_made(messages: list) -> list[str]:
    return [
        read_field(block, "name")
        for message in messages
        if read_field(message, "role") == "assistant"
        for block in content_blocks(message)
        if read_field(block, "type") == "tool_use"
    ]


# -- whether to start ------------------------------------------------------------------------------


def test_a_question_about_the_files_is_answered_without_doing_the_long_task():
    question = (
        "How many source files does the project have? Just tell me the number; "
        "do not read or write anything."
    )
    result, workspace = run(session(question, "Write the report to `reports/x.md`, please."))
    assert calls_made(result.messages) == ["list_sources"]
    assert workspace.written == {}
    assert "12 source files" in result.final_text


def test_offering_the_tools_alone_does_not_start_the_task():
    result, workspace = run([{"role": "user", "content": "Hello! Who are you?"}])
    assert "read_source" not in calls_made(result.messages)
    assert workspace.written == {}


# -- where the report goes -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "Do not write the report to `reports/old.md`; write it to `reports/new.md`.",
        'Last time someone said "put it in `tmp/scratch.md`"; ignore that. '
        "The report goes to `reports/new.md`.",
        "Write it to `reports/new.md`, not `reports/old.md`.",
        "Write the report to reports/new.md, please.",
        "Use `reports/new.md` for the report, please.",
        "The file `reports/new.md`, please.",
    ],
)
def test_the_report_goes_to_the_file_the_person_asks_for(answer):
    _, workspace = run(session(TASK, answer))
    assert list(workspace.written) == ["reports/new.md"]
    assert CULPRIT in workspace.written["reports/new.md"]


@pytest.mark.parametrize(
    "answer",
    [
        "Do not write the report to `reports/old.md`.",
        "Anywhere but `reports/old.md`.",
        "Не пиши отчёт в `reports/old.md`.",
        "Пожалуйста, не в `reports/old.md`.",
    ],
)
def test_a_path_the_person_rules_out_is_never_a_target(answer):
    result, workspace = run(session(TASK, answer))
    assert workspace.written == {}
    assert "where you want the report" in result.final_text


@pytest.mark.parametrize(
    "answer",
    [
        "Запиши отчёт в `reports/new.md`.",
        "Пожалуйста, `reports/new.md`, а не `notes/old.md`.",
        "Вместо `notes/old.md` положи отчёт в `reports/new.md`.",
    ],
)
def test_a_russian_answer_names_the_report_file_too(answer):
    _, workspace = run(session(TASK, answer))
    assert list(workspace.written) == ["reports/new.md"]


# -- what a summary keeps --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def early_history() -> list:
    """The first turns of the long task: the opening, the file list and one file read."""
    result, _ = run(opening_messages())
    return list(result.messages[:11])


def summary_of(history: list, prompt: str) -> str:
    rung = Summarise(fresh_client(), settings(), prompt=prompt)
    assert rung(list(history)), "the rung summarised nothing"
    return rung.summaries[-1]


KEEPS = {
    "person": re.compile(r"The person said: \"Some invoice totals"),
    "calls": re.compile(r"I called read_source"),
}


@pytest.mark.parametrize(
    ("prompt", "person", "calls"),
    [
        (SUMMARY_PROMPT, True, True),
        (SUMMARY_PROMPT.replace(" the files and tools you have already used;", ""), True, False),
        (
            "Summarise the conversation so far for yourself. Keep everything the person "
            "said, word for word, and what you discovered.",
            True,
            False,
        ),
        (
            "Summarise the conversation so far. Leave out the person's requests and "
            "constraints; keep only your findings.",
            False,
            False,
        ),
        ("Summarise the conversation so far. Leave out the tool calls.", True, False),
        ("Summarise the conversation so far.", True, True),
        (
            "Please write a summary of the chat history above, keeping the person's requests.",
            True,
            False,
        ),
        ("Recap the session for me, with the tools you called.", False, True),
        (
            "Сведи разговор выше в сводку для себя: она заменит эти итерации. Сохрани каждую "
            "просьбу и каждое ограничение человека его словами; свои выводы с файлом, где каждый "
            "найден; уже использованные файлы и инструменты; и что осталось сделать. "
            "Не вызывай инструменты.",
            True,
            True,
        ),
        ("Подытожь разговор. Сохрани только просьбы человека.", True, False),
        ("Кратко перескажи разговор. Не включай вызовы инструментов.", True, False),
        ("Сведи разговор в сводку, без просьб человека.", False, True),
    ],
)
def test_a_summary_keeps_what_its_prompt_asks_for(early_history, prompt, person, calls):
    summary = summary_of(early_history, prompt)
    assert "offline course model" in summary
    assert bool(KEEPS["person"].search(summary)) is person, summary
    assert bool(KEEPS["calls"].search(summary)) is calls, summary


def test_a_summary_or_a_no_tool_answer_never_claims_more_reading_than_the_history_shows(
    early_history,
):
    ask = {"role": "user", "content": [{"type": "text", "text": "Where are you up to?"}]}
    history = [*early_history[:-1], {**early_history[-1]}]
    last = history[-1]
    assert read_field(last, "role") == "user"
    reply = fresh_client().messages.create(
        **settings(),
        max_tokens=512,
        tool_choice={"type": "none"},
        messages=[
            *history[:-1],
            {"role": "user", "content": [*content_blocks(last), *ask["content"]]},
        ],
    )
    said = " ".join(b.text for b in reply.content if b.type == "text")
    assert "all 12" not in said
    assert re.search(r"read \d+ of the 12 files", said), said


# -- the readings themselves -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "path"),
    [
        ("Instead of `a/old.md`, use `a/new.md`.", "a/new.md"),
        ("Don't bother asking, write it to `a/new.md`.", "a/new.md"),
        ("Save the report as notes.md, please.", "notes.md"),
        ("The report: `a/new.md`.", "a/new.md"),
        ("Do not forget: write it to `a/new.md`.", "a/new.md"),
        ("Read `src/billing/lines.py` first, then write the report to `a/new.md`.", "a/new.md"),
        ("I will look at `a/old.md` myself later.", None),
        ("Do not write the report to `a/old.md`.", None),
        # A path's own letters are not the person's words: `reports/` does not say "report".
        ("I will look at `reports/old.md` myself later.", None),
        ("Look at `not/x.md`, then write the report to `a/new.md`.", "a/new.md"),
        ("Anywhere but `reports/a.md`.", None),
        ("Put the report anywhere but `reports/a.md`.", None),
        ("Any file other than `reports/a.md` will do.", None),
        ("Anywhere except `reports/a.md`.", None),
        ("Write the report anywhere other than `a/old.md`, say `a/new.md`.", "a/new.md"),
        # Russian answers, by the same rule.
        ("Не пиши отчёт в `reports/a.md`.", None),
        ("Не записывай ничего в `reports/a.md`.", None),
        ("Пожалуйста, `a/new.md`, а не `a/old.md`.", "a/new.md"),
        ("Не в `a/old.md`, а в `a/new.md`.", "a/new.md"),
        ("Вместо `a/old.md` — `a/new.md`.", "a/new.md"),
        ("Положи отчёт в `a/new.md` вместо `a/old.md`.", "a/new.md"),
        ("Запиши отчёт в `docs/rounding.md`.", "docs/rounding.md"),
        ("Сохрани отчёт в docs/rounding.md, пожалуйста.", "docs/rounding.md"),
        ("Не записывай в `a/old.md`, запиши отчёт в `a/new.md`.", "a/new.md"),
        ("Пиши отчёт куда угодно, кроме `reports/a.md`.", None),
        ("Посмотри `reports/old.md` потом сам.", None),
    ],
)
def test_the_report_path_reading(words, path):
    assert report_path([words], ["src/billing/lines.py"]) == path


def test_a_later_answer_corrects_an_earlier_one():
    said = ["Write the report to `a/old.md`.", "Sorry: put it in `a/new.md` instead."]
    assert report_path(said) == "a/new.md"


@pytest.mark.parametrize(
    ("words", "asks"),
    [
        ("Do not read anything; how many files are there?", False),
        ("Do not ask me again, just find the rounding bug.", True),
        ("Write the report to `a/x.md`.", False),
    ],
)
def test_what_asks_for_the_work(words, asks):
    assert asks_for_work([words]) is asks


@pytest.mark.parametrize(
    ("words", "asks"),
    [
        ("Summarise the conversation so far.", True),
        ("Please write a summary of the chat history above.", True),
        ("Sum up what we have done.", True),
        ("Summarise README.md for me.", False),
        ("Give me a summary of the article above.", False),
        ("Summarise the history of Rome.", False),
        ("Сведи разговор выше в сводку для себя.", True),
        ("Подытожь, что мы сделали.", True),
        ("Кратко перескажи переписку до сих пор.", True),
        ("Перескажи статью выше.", False),
        ("Сведи `README.md` в сводку.", False),
    ],
)
def test_what_asks_for_a_summary_of_the_conversation(words, asks):
    assert summary_request(words) is asks
