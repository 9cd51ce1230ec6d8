"""Every notebook and solution must survive a model that answers in words instead of calling a tool.

Real models may answer from what they know when a lesson expected a tool call. Here each course
notebook (lessons and solutions) is run against the course model served on loopback in its
*reluctant* mode (`course_helpers/offline/reluctant.py`: it never calls a tool unless
`tool_choice` forces one), reached the way a compatible server is reached (`ANTHROPIC_BASE_URL`,
the real SDK over HTTP).

Every cell runs, even after an error, as a learner who keeps going would run them. A cell may
finish, or stop with the course's own message (`ModelWentAnotherWay`, one short line instead of
a traceback); nothing else: no raw Python error (StopIteration, IndexError, KeyError, TypeError,
NameError, AttributeError...) and no API error caused by the notebook's own history.

The notebooks run in `tests/notebook_runner.py`'s runner process, one fork per notebook.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from notebook_runner import NotebookRunner, problem
from test_live_path import compatible_environment

from course_helpers.lessons.agent import AgentRun
from course_helpers.offline.engine import CourseModel
from course_helpers.offline.serve import start_server
from course_helpers.support.expect import (
    ModelWentAnotherWay,
    needs_ending,
    needs_json,
    needs_tool_calls,
    needs_turn,
)

COURSE_STOP = ModelWentAnotherWay.__name__


@pytest.fixture(scope="session")
def reluctant_server():
    with start_server(reluctant=True) as server:
        yield server


@pytest.fixture(scope="session")
def reluctant_runner(
    reluctant_server, notebook_executor, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NotebookRunner]:
    env = compatible_environment(notebook_executor, reluctant_server.url)
    env.pop("COURSE_MODEL")  # the default model: only the reluctance differs from nbval's run
    runner = NotebookRunner(env, tmp_path_factory.mktemp("reluctant"))
    yield runner
    runner.close()


# "BadRequestError 400: ...", "400 messages.2: ...", "refused: 400 tool_choice ...", a bare "400"
# (not a number in a table of token counts)
API_ERROR = re.compile(r"BadRequestError|\b400(:? [A-Za-z`']|$)")


def stored_text(notebook: Path) -> dict[int, str]:
    """What each code cell printed when the notebook was executed offline (its stored outputs)."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return {
        index: "".join(
            "".join(output.get("text", ""))
            for output in cell.get("outputs", [])
            if output.get("output_type") == "stream"
        )
        for index, cell in enumerate(cells)
        if cell["cell_type"] == "code"
    }


def unexpected_errors(outcome: dict, notebook: Path) -> list[str]:
    """Each error a cell showed that is not the course's own stop, and each API error a cell
    printed that the lesson does not print offline (a request its own history broke)."""
    found = []
    stored = stored_text(notebook)
    for cell in outcome["outputs"]:
        for error in cell["errors"]:
            if error["ename"] != COURSE_STOP:
                found.append(f"cell {cell['cell']}: {error['ename']}: {error['evalue']}")
        for line in cell["stdout"].splitlines():
            if API_ERROR.search(line) and line not in stored[cell["cell"]]:
                found.append(f"cell {cell['cell']} printed: {line}")
    return found


@pytest.mark.slow
def test_notebook_runs_or_stops_with_the_course_message(
    notebook_path: Path, reluctant_runner: NotebookRunner
) -> None:
    outcome = reluctant_runner.run(notebook_path, keep_going=True)
    # With keep_going, only a runner that could not run the notebook reports a failure.
    assert outcome["outputs"] is not None, problem(outcome)
    assert outcome["cells"] > 0
    errors = unexpected_errors(outcome, notebook_path)
    assert not errors, f"{notebook_path.name} against the reluctant model:\n" + "\n".join(errors)


# -- the reluctant model itself ----------------------------------------------------------------

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Get the current weather for one city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
WEATHER_QUESTION = {
    "model": "claude-sonnet-5-5",
    "max_tokens": 500,
    "tools": [WEATHER_TOOL],
    "messages": [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}],
}


def kinds(message: dict) -> list[str]:
    return [block["type"] for block in message["content"]]


def test_the_course_model_calls_where_the_reluctant_one_answers_in_words() -> None:
    willing = CourseModel().respond(WEATHER_QUESTION).message
    reluctant = CourseModel(reluctant=True).respond(WEATHER_QUESTION).message
    assert "tool_use" in kinds(willing) and willing["stop_reason"] == "tool_use"
    assert "tool_use" not in kinds(reluctant) and reluctant["stop_reason"] == "end_turn"
    said = " ".join(b["text"] for b in reluctant["content"] if b["type"] == "text")
    assert "get_weather" in said  # it says which tool it did without


@pytest.mark.parametrize(
    "choice", [{"type": "any"}, {"type": "tool", "name": "get_weather"}], ids=["any", "tool"]
)
def test_the_reluctant_model_calls_when_tool_choice_forces_it(choice: dict) -> None:
    forced = CourseModel(reluctant=True).respond({**WEATHER_QUESTION, "tool_choice": choice})
    assert forced.message["stop_reason"] == "tool_use"
    assert {b["name"] for b in forced.message["content"] if b["type"] == "tool_use"} == {
        "get_weather"
    }


def test_without_its_search_the_reluctant_model_does_not_pause() -> None:
    body = {
        **WEATHER_QUESTION,
        "tools": [{"type": "web_search_20260318", "name": "web_search"}],
        "messages": [{"role": "user", "content": "Search the web: what is the agent loop?"}],
    }
    willing = CourseModel().respond(body).message
    reluctant = CourseModel(reluctant=True).respond(body).message
    assert "server_tool_use" in kinds(willing)
    assert not {"server_tool_use", "web_search_tool_result"} & set(kinds(reluctant))
    assert reluctant["stop_reason"] == "end_turn"  # a pause_turn would ask to be resent


# -- the course's message ----------------------------------------------------------------------


def test_needs_tool_calls_returns_the_calls_it_needs() -> None:
    answer = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {"city": "Oslo"}},
        ],
    }
    assert [c["id"] for c in needs_tool_calls(answer)] == ["toolu_1", "toolu_2"]
    assert [c["id"] for c in needs_tool_calls(answer, "get_time")] == ["toolu_2"]
    with pytest.raises(ModelWentAnotherWay, match="needs a call to get_news, but the model called"):
        needs_tool_calls(answer, "get_news")


def test_needs_tool_calls_says_what_the_model_said_instead_shortened() -> None:
    words = "It is probably mild in Paris at this time of year. " * 10
    answer = {"role": "assistant", "content": [{"type": "text", "text": words}]}
    with pytest.raises(ModelWentAnotherWay) as stop:
        needs_tool_calls(answer)
    message = str(stop.value)
    assert message.startswith("This cell needs a tool call, but the model answered in words")
    assert "It is probably mild in Paris" in message and words not in message
    assert "A real model may do this" in message and "COURSE_BACKEND=offline" in message
    assert "an earlier cell" in message  # the request may have been sent before this cell


def test_needs_turn_and_needs_ending_say_how_the_run_ended_instead() -> None:
    said = {"role": "assistant", "content": [{"type": "text", "text": "All shipments look fine."}]}
    history = [{"role": "user", "content": "Audit the shipments."}, said]
    with pytest.raises(ModelWentAnotherWay, match=r"messages\[3\], but the history has 2"):
        needs_turn(history, 3)
    assert needs_turn(history, 1, with_tool_calls=False) is said
    run = AgentRun(messages=history, ending="end_turn")
    assert needs_ending(run, "end_turn") is run
    with pytest.raises(
        ModelWentAnotherWay, match="ended with budget_limit, but it ended with end_turn"
    ):
        needs_ending(run, "budget_limit")


def test_needs_json_parses_structured_output_or_says_what_came_instead() -> None:
    assert needs_json('{"city": "Oslo", "unit": "fahrenheit"}') == {
        "city": "Oslo",
        "unit": "fahrenheit",
    }
    with pytest.raises(ModelWentAnotherWay) as stop:
        needs_json("Oslo, and the unit is fahrenheit.")
    message = str(stop.value)
    assert message.startswith("This cell needs a JSON answer (structured output)")
    assert "“Oslo, and the unit is fahrenheit.”" in message and "output_config" in message


@pytest.mark.slow
def test_a_kernel_shows_the_stop_as_one_message_and_later_cells_say_the_same(
    tmp_path: Path, reluctant_runner: NotebookRunner
) -> None:
    """What Jupyter receives: the message alone as the traceback, for the cell and the next one."""
    cells = [
        "from course_helpers.support.expect import needs_tool_calls\n"
        "answer = {'role': 'assistant', 'content': [{'type': 'text', 'text': 'Sunny, I think.'}]}\n"
        "calls = needs_tool_calls(answer)",
        "needs_tool_calls(answer)\nprint(calls)",
    ]
    notebook = tmp_path / "stop.ipynb"
    notebook.write_text(
        json.dumps(
            {
                "cells": [{"cell_type": "code", "source": source} for source in cells],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        )
    )
    outcome = reluctant_runner.run(notebook, keep_going=True)
    shown = [error for cell in outcome["outputs"] for error in cell["errors"]]
    assert [error["ename"] for error in shown] == [COURSE_STOP, COURSE_STOP]
    for error in shown:
        assert len(error["traceback"]) == 1  # no frames, no source lines: one message
        assert error["traceback"][0].startswith(f"{COURSE_STOP}: This cell needs a tool call")
        assert "Sunny, I think." in error["traceback"][0]
