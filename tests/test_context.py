"""Notebook 12's pieces on the saved modules: the window gauge, the three rungs, sessions.

- any sequence of the three ways to make room leaves a history the course model accepts
  (validated by the offline app itself, not by a re-implementation of its rules), and every
  thinking block left in it is one the model wrote, unaltered;
- the gauge's counts are what the calls were billed as input;
- what a strategy keeps decides the outcome: the course model writes the report where the
  person's words, wherever they now are, say; a summary keeps what its prompt asks for;
- sessions round-trip byte for byte, are refused with a clear message when broken, and
  continue in a fresh Python process. Files only under pytest's temporary folders.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import anthropic
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import as_plain
from course_helpers.fixtures.long_task import (
    ANSWER,
    REPORT_PATH,
    SYSTEM,
    Workspace,
    long_task_tools,
    opening_messages,
    succeeded,
)
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.context import (
    SUMMARY_PROMPT,
    KeepInBounds,
    SessionRefused,
    Summarise,
    Window,
    as_params,
    clear_old_results,
    context_window,
    cut_point,
    drop_old_turns,
    load_session,
    save_session,
    token_counter,
)
from course_helpers.lessons.pairing import content_blocks, pairing_problems, read_field
from course_helpers.offline import CourseModelApp

LIMIT = 5_000


def fresh_client() -> anthropic.Anthropic:
    return CourseModelApp().client(max_retries=0)


def settings_for_task() -> dict:
    tools = long_task_tools(Workspace())
    return {"model": MODEL, "system": SYSTEM, "tools": [t.definition() for t in tools]}


def long_run(wrap_sample=None, messages=None, max_steps=40):
    workspace = Workspace()
    run = run_agent(
        fresh_client(),
        messages=messages or opening_messages(),
        tools=long_task_tools(workspace),
        system=SYSTEM,
        max_steps=max_steps,
        wrap_sample=wrap_sample,
    )
    return run, workspace


@pytest.fixture(scope="module")
def full_history() -> list:
    run, workspace = long_run()
    assert succeeded(workspace)
    return run.messages


def accepted(messages: list) -> str | None:
    """None when the course model accepts the history as the next request; else its error."""
    try:
        fresh_client().messages.create(**settings_for_task(), max_tokens=256, messages=messages)
    except anthropic.APIStatusError as error:
        return str(error.body)
    return None


def thinking_blocks(messages: list) -> list[tuple[str, str]]:
    return [
        (read_field(b, "thinking"), read_field(b, "signature"))
        for m in messages
        for b in content_blocks(m)
        if read_field(b, "type") == "thinking"
    ]


# -- any sequence of strategies leaves a valid history ----------------------------------------

STEPS = st.one_of(
    st.just(("drop",)),
    st.tuples(st.just("clear"), st.integers(0, 4), st.sampled_from([0, 400, 5_000])),
    st.tuples(st.just("summarise"), st.integers(1, 3)),
    # The API's own context management: the edit is the server's, so the step is a request
    # that carries it; the history must be accepted with it, and the client's copy is unchanged.
    st.tuples(
        st.just("api"),
        st.integers(0, 4),
        st.sampled_from([0, 2_000, 100_000]),
        st.booleans(),
        st.booleans(),
    ),
)


def accepted_with_edits(messages: list, keep: int, trigger: int, inputs: bool, thinking: bool):
    """None when the course model accepts the history with server-side edits; else its error."""
    edits: list[dict] = [
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": trigger},
            "keep": {"type": "tool_uses", "value": keep},
            "clear_tool_inputs": inputs,
        }
    ]
    if thinking:
        edits.insert(0, {"type": "clear_thinking_20251015"})
    try:
        fresh_client().beta.messages.create(
            **settings_for_task(),
            max_tokens=256,
            messages=messages,
            betas=["context-management-2025-06-27"],
            context_management={"edits": edits},
        )
    except anthropic.APIStatusError as error:
        return str(error.body)
    return None


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ends=st.integers(4, 15),
    steps=st.lists(STEPS, min_size=1, max_size=4),
)
def test_any_sequence_of_the_three_strategies_leaves_a_history_the_model_accepts(
    full_history, ends, steps
):
    # A history as the loop leaves it before a call: ending with a user message (the results
    # of the last turn), `ends` assistant turns after the opening.
    turns = [i for i, m in enumerate(full_history) if read_field(m, "role") == "assistant"]
    messages = list(full_history[: turns[min(ends, len(turns) - 1)]])
    written = set(thinking_blocks(full_history))
    client = fresh_client()
    for step in steps:
        event(f"step: {step[0]}")  # --hypothesis-show-statistics: every kind is drawn
        if step[0] == "drop":
            drop_old_turns(messages)
        elif step[0] == "clear":
            clear_old_results(messages, keep=step[1], at_least=step[2])
        elif step[0] == "summarise":
            Summarise(client, settings_for_task(), keep_turns=step[1])(messages)
        else:
            before = copy.deepcopy(as_plain(messages))
            assert accepted_with_edits(messages, *step[1:]) is None, steps
            assert as_plain(messages) == before  # the server edits its copy, not yours
        assert pairing_problems(messages) == []
        assert accepted(messages) is None, (steps, accepted(messages))
        assert set(thinking_blocks(messages)) <= written  # none altered, none made up


def test_cut_point_opens_the_kept_part_with_a_whole_turn(full_history):
    for keep in (1, 2, 5):
        cut = cut_point(full_history, keep)
        assert read_field(full_history[cut], "role") == "assistant"
        assert read_field(full_history[cut - 1], "role") == "user"
        assert sum(read_field(m, "role") == "assistant" for m in full_history[cut:]) == keep
    assert cut_point(full_history[:3], 1) is None  # one turn: nothing before it to summarise


# -- the gauge and the wrapper ------------------------------------------------------------------


def test_the_window_comes_from_the_model_list_and_counts_match_the_bill():
    client = fresh_client()
    assert context_window(client, MODEL) == client.models.retrieve(MODEL).max_input_tokens
    gauge = Window(token_counter(client, **settings_for_task()))
    run, _ = long_run(gauge)
    # Without prompt caching, the input a call is billed for is the count taken before it.
    assert gauge.sizes == [usage["input_tokens"] for usage in run.usage]
    assert gauge.sizes == sorted(gauge.sizes)  # nothing done: every request is bigger


@pytest.mark.parametrize("rung", ["clear", "summarise", "drop"])
def test_keep_in_bounds_keeps_every_request_under_its_limit(rung):
    client = fresh_client()
    count = token_counter(client, **settings_for_task())
    rungs = {
        "clear": clear_old_results,
        "summarise": Summarise(client, settings_for_task()),
        "drop": drop_old_turns,
    }
    bounds = KeepInBounds(count, limit=LIMIT, rungs=(rungs[rung],))
    run, _ = long_run(bounds)
    assert run.ending == "end_turn"
    assert max(bounds.sizes) <= LIMIT and bounds.log
    assert all(f"> {LIMIT:,} tokens" in line for line in bounds.log)


def test_a_request_no_rung_can_bring_under_the_limit_goes_out_and_the_log_says_so():
    count = token_counter(fresh_client(), **settings_for_task())
    bounds = KeepInBounds(count, limit=2_500, rungs=(clear_old_results, drop_old_turns))
    run, _ = long_run(bounds)
    over = [size for size in bounds.sizes if size > 2_500]
    assert run.ending == "end_turn" and over  # the two rungs cannot make that much room
    said = [line for line in bounds.log if "no rung made room" in line]
    assert [int(line.split(" > ")[0].replace(",", "")) for line in said] == over


# -- the outcome follows from what is in the history -----------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        ANSWER.replace(REPORT_PATH, "docs/cent-off.md"),
        "Save the report as `docs/cent-off.md` when you are done.",
        "Put it in `docs/cent-off.md`.",
    ],
)
def test_the_report_goes_where_the_persons_words_say_wherever_they_are(answer):
    moved = opening_messages()
    moved[2] = {"role": "user", "content": answer}
    workspace = Workspace()
    run_agent(
        fresh_client(),
        messages=moved,
        tools=long_task_tools(workspace),
        system=SYSTEM,
        max_steps=40,
    )
    assert list(workspace.written) == ["docs/cent-off.md"]


def test_without_the_persons_answer_the_model_asks_instead_of_writing():
    workspace = Workspace()
    run = run_agent(
        fresh_client(),
        messages=opening_messages()[:1],
        tools=long_task_tools(workspace),
        system=SYSTEM,
        max_steps=40,
    )
    assert workspace.written == {} and "where you want the report" in run.final_text


def test_a_summary_keeps_what_its_prompt_asks_for_and_the_outcome_follows():
    client = fresh_client()
    count = token_counter(client, **settings_for_task())
    forgetful = SUMMARY_PROMPT.replace(
        "every request and constraint of the person, in their own words; ", ""
    )
    outcomes = {}
    for name, prompt in [("asks", SUMMARY_PROMPT), ("forgets", forgetful)]:
        rung = Summarise(client, settings_for_task(), prompt=prompt)
        _, workspace = long_run(KeepInBounds(count, limit=LIMIT, rungs=(rung,)))
        outcomes[name] = (succeeded(workspace), any(REPORT_PATH in s for s in rung.summaries))
        assert all("offline course model" in s for s in rung.summaries)
    assert outcomes == {"asks": (True, True), "forgets": (False, False)}


def test_dropping_turns_loses_the_persons_answer_and_clearing_keeps_it():
    count = token_counter(fresh_client(), **settings_for_task())
    _, dropped = long_run(KeepInBounds(count, limit=LIMIT, rungs=(drop_old_turns,)))
    _, cleared = long_run(KeepInBounds(count, limit=LIMIT, rungs=(clear_old_results,)))
    assert dropped.written == {} and succeeded(cleared)


# -- sessions -------------------------------------------------------------------------------


@pytest.fixture
def halfway():
    run, _ = long_run(max_steps=6)
    assert run.ending == "step_limit"
    return run.messages


def test_a_session_round_trips_byte_for_byte(tmp_path, halfway):
    path = save_session(tmp_path / "s.json", halfway, model=MODEL, system=SYSTEM)
    loaded = load_session(path)
    assert loaded["model"] == MODEL and loaded["system"] == SYSTEM
    assert loaded["messages"] == as_params(halfway)
    assert thinking_blocks(loaded["messages"]) == thinking_blocks(halfway)
    assert thinking_blocks(halfway)  # the default model thinks: there is something to keep
    assert accepted(loaded["messages"]) is None
    assert json.loads(path.read_text())["messages"] == loaded["messages"]


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        ("no_result", "has no tool_result in the next message"),
        ("orphan", "answers no tool_use"),
        ("unsigned", "a thinking block without its signature"),
        ("not_a_session", "is not a session file"),
    ],
)
def test_a_broken_session_is_refused_with_what_is_wrong(tmp_path, halfway, damage, said):
    path = save_session(tmp_path / "s.json", halfway, model=MODEL, system=SYSTEM)
    data = json.loads(path.read_text())
    if damage == "no_result":
        data["messages"][4]["content"] = "(lost)"
    elif damage == "orphan":
        del data["messages"][3]["content"][-1]  # the call goes, its result stays
    elif damage == "unsigned":
        del data["messages"][5]["content"][0]["signature"]
    else:
        data = data["messages"]
    path.write_text(json.dumps(data))
    with pytest.raises(SessionRefused) as refused:
        load_session(path)
    assert said in str(refused.value) and "s.json" in str(refused.value)
    if damage in ("no_result", "unsigned"):
        assert accepted(copy.deepcopy(data["messages"][:7])) is not None  # the API agrees


def test_a_session_continues_in_a_fresh_process(tmp_path, halfway):
    path = save_session(tmp_path / "s.json", halfway, model=MODEL, system=SYSTEM)
    code = """
import sys
from pathlib import Path
from course_helpers import make_client
from course_helpers.fixtures.long_task import Workspace, long_task_tools, succeeded
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.context import load_session, save_session
path = Path(sys.argv[1])
session = load_session(path)
workspace = Workspace()
run = run_agent(make_client(quiet=True), messages=session["messages"],
                tools=long_task_tools(workspace), system=session["system"], max_steps=40)
save_session(path, run.messages, model=session["model"], system=session["system"])
print(succeeded(workspace), "ipykernel" in sys.modules)
"""
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("ANTHROPIC")}
    env["COURSE_BACKEND"] = "offline"
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]
    continued = load_session(path)["messages"]
    assert continued[: len(halfway)] == as_params(halfway)  # resumed where it stopped
    assert len(continued) > len(halfway)
