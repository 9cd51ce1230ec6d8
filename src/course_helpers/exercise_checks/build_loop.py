"""Checks for notebook 04, Build the loop.

Requirements, one per line (each proven both ways in
tests/exercise_variants/test_04_build_the_loop.py):

`check_simple_dispatcher(run_tool)`: see `simple_dispatcher`.

`check_loop(agent_loop)`, `agent_loop(sample, run_tool, messages, max_steps)` reviewing PR #482
(`sample` and `run_tool` are given by the check: notebook 04's `sampler` and the course's
dispatcher):
- it calls the model through `sample`, and runs the calls through `run_tool`;
- the history grows by two per turn, each assistant turn the response's whole content;
- the final answer is appended too, and the last response is returned;
- it goes on while the model asks for tools (stop_reason exactly `tool_use`), and hands
  `run_tool` only the tool_use blocks (never a thinking or text block);
- a turn with two calls in parallel (the weather in Paris and Tokyo): both calls run, once each,
  and their results go back in ONE user message, the next message after that turn;
- it stops on any stop_reason but `tool_use`: an answer cut off by `max_tokens` inside its
  `tool_use` is returned as it is, one call, nothing run (its input is half-written);
- with `max_steps=2`: exactly two calls, then a `RuntimeError` (e.g. StepLimitReached) with a
  message, and a history that keeps both turns, the last one's calls answered (not dropped).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import partial
from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    Recorder,
    ReviewerKit,
    as_plain,
    fail,
    passed,
    recording_client,
    require_pairing,
    reviewer_kit,
    run_learner,
    short_repr,
)
from course_helpers.lessons.dispatch import dispatch
from course_helpers.lessons.loop import agent_loop as saved_loop
from course_helpers.lessons.loop import sampler
from course_helpers.lessons.pairing import content_blocks, read_field


def loop_line(start: str) -> str:
    """The line of notebook 04's saved loop that starts with `start`, without its comment.

    Hints quote the loop as it is saved in `course_helpers.lessons.loop`, so a change to the
    loop in notebook 04 (then `make promote`) changes the hints with it.
    """
    for line in inspect.getsource(saved_loop).splitlines():
        code = line.split("  #", 1)[0].strip()
        if code.startswith(start):
            return code
    raise LookupError(f"notebook 04's loop has no line starting with {start!r}")


SAMPLE_LINE = loop_line("response = ")
RUN_CALLS_LINE = loop_line("results = ")


def calls_only(run_one: Callable) -> Callable:
    """The dispatcher the loop is given, refusing (with the loop's mistake) a block that is not a
    tool call: the API would answer 400 about the result's empty tool_use_id."""

    def run_tool(block: Any) -> Any:
        __tracebackhide__ = True
        kind = read_field(block, "type")
        if kind != "tool_use":
            fail(
                f"agent_loop passed a {kind} block to run_tool: only the tool_use blocks of a "
                "response are calls (thinking and text blocks are part of the turn, not "
                "requests to run anything).",
                f"run only the calls: {RUN_CALLS_LINE}.",
            )
        return run_one(block)

    return run_tool


def seams(client: Any, kit: ReviewerKit) -> tuple[Callable, Callable]:
    """The loop's two functions for the reviewer: notebook 04's sampler, the course's dispatcher."""
    definitions = [t.definition() for t in kit.tools.values()]
    sample = sampler(client, model=MODEL, max_tokens=2048, tools=definitions)
    return sample, calls_only(partial(dispatch, kit.tools))


def check_loop(agent_loop: Callable) -> None:
    """04 · `agent_loop(sample, run_tool, messages, max_steps)`: five phases, step limit."""
    __tracebackhide__ = True
    kit = reviewer_kit()
    try:
        client, recorder = recording_client()
        sample, run_one = seams(client, kit)
        messages = [{"role": "user", "content": "Review PR #482."}]

        def first_run(*args: Any) -> Any:
            __tracebackhide__ = True
            try:
                return agent_loop(*args)
            except anthropic.APIStatusError:
                # The API refused the history: say which rule the loop broke, if it is ours.
                _check_turns_whole(messages, recorder)
                raise

        first_run.__name__ = "agent_loop"
        final = run_learner(first_run, sample, run_one, messages, 20, name="agent_loop")
        last = recorder.responses[-1]["body"] if recorder.responses else {}
        if last.get("stop_reason") == "tool_use":
            named = _stop_reasons_named(agent_loop)
            fail(
                f"agent_loop stopped after {len(recorder.requests)} call(s) though the model "
                "still asked for tools (stop_reason 'tool_use'): the loop's stop condition "
                + (
                    f"compares stop_reason with {named}, which the API never sends."
                    if named
                    else "does not recognise a request for tools."
                ),
                "the stop reason of a turn that asks for tools is exactly 'tool_use': "
                f"{loop_line('if response.stop_reason')}",
            )
        _check_loop_run(messages, recorder, kit)
        if getattr(final, "stop_reason", None) != last.get("stop_reason"):
            fail(
                f"agent_loop returned {short_repr(final)}, not the last response.",
                "return the response that ended the loop.",
            )
        _check_parallel_calls(agent_loop)
        _check_cut_off_stop(agent_loop, kit)
        _check_step_limit(agent_loop, kit)
    finally:
        kit.close()
    passed("agent_loop runs the five phases and respects the step limit")


STOP_REASONS = {"end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"}


def _stop_reasons_named(function: Callable) -> str:
    """The string constants in `function`'s code that look like stop reasons the API has not."""
    code = getattr(function, "__code__", None)
    found: list[str] = []
    for const in getattr(code, "co_consts", ()) or ():
        looks = isinstance(const, str) and const.isidentifier() and "tool" in const
        if looks and const not in STOP_REASONS and const not in found:
            found.append(const)
    return ", ".join(repr(f) for f in found)


def _check_loop_run(messages: list, recorder: Recorder, kit: ReviewerKit) -> None:
    __tracebackhide__ = True
    if not recorder.requests:
        fail("agent_loop made no call to the model.", f"phase 1: {SAMPLE_LINE}.")
    for step, sent in enumerate(recorder.messages_sent, start=1):
        expected = 1 + 2 * (step - 1)
        if len(sent) != expected:
            fail(
                f"call {step} sent {len(sent)} messages; expected {expected} (the history grows "
                "by two per turn: the assistant's turn and the results).",
                "append the assistant's content and one user message of results every turn.",
            )
    if len(recorder.requests) > 1 and not kit.ran:
        fail(
            "the model asked for tools, but none ran.",
            f"phase 3: {RUN_CALLS_LINE}.",
        )
    turns = [m for m in messages if read_field(m, "role") == "assistant"]
    answers = [r["body"].get("content", []) for r in recorder.responses]
    _check_turns_whole(messages, recorder)
    if len(turns) != len(answers):
        fail(
            f"messages holds {len(turns)} assistant turns for {len(answers)} responses; the "
            "final answer (or a turn) is missing.",
            "append every response's content, the last one included, before you return.",
        )
    require_pairing(messages, "the history breaks a pairing rule", "see notebook 03.")


def _check_turns_whole(messages: list, recorder: Recorder) -> None:
    """Each assistant turn kept so far is the whole content of its response."""
    __tracebackhide__ = True
    turns = [m for m in messages if read_field(m, "role") == "assistant"]
    answers = [r["body"].get("content", []) for r in recorder.responses if r["status"] == 200]
    for step, (turn, answer) in enumerate(zip(turns, answers, strict=False), start=1):
        if as_plain(content_blocks(turn)) != answer:
            fail(
                f"assistant turn {step} in messages is not the response's whole content "
                f"(blocks {[read_field(b, 'type') for b in content_blocks(turn)]}, the response "
                f"had {[b.get('type') for b in answer]}).",
                "append {'role': 'assistant', 'content': response.content} unchanged: the "
                "tool_use blocks (and thinking blocks) are part of the turn.",
            )


def _check_step_limit(agent_loop: Callable, kit: ReviewerKit) -> None:
    __tracebackhide__ = True
    client, recorder = recording_client()
    sample, run_one = seams(client, kit)
    messages = [{"role": "user", "content": "Review PR #482."}]
    try:
        agent_loop(sample, run_one, messages, 2)
    except Exception as error:
        raised: Exception | None = error
    else:
        raised = None
    calls = len(recorder.requests)
    if calls > 2:
        fail(
            f"with max_steps=2, agent_loop called the model {calls} times.",
            "count the calls: for step in range(max_steps): ...",
        )
    if calls < 2:
        fail(
            f"with max_steps=2, agent_loop stopped after {calls} call(s) though the model still "
            "wanted tools.",
            "go round until the model stops asking for tools or max_steps calls are made.",
        )
    if raised is None:
        fail(
            "agent_loop stopped at the step limit without saying so: the caller cannot tell a "
            "finished review from a cut one.",
            "after the last step, raise StepLimitReached('...') with a clear message.",
        )
    if not isinstance(raised, RuntimeError) or not str(raised):
        fail(
            f"at the step limit agent_loop raised {type(raised).__name__}: {raised}.",
            "raise StepLimitReached (a RuntimeError) with a message that names the limit.",
        )
    require_pairing(
        messages,
        "at the step limit the history is left broken",
        "answer the last calls before you stop, so the run can be resumed.",
    )
    turns = [m for m in messages if read_field(m, "role") == "assistant"]
    last = messages[-1] if messages else {}
    answered = read_field(last, "role") == "user" and any(
        read_field(b, "type") == "tool_result" for b in content_blocks(last)
    )
    if len(turns) != 2 or not answered:
        fail(
            f"at the step limit the history holds {len(turns)} assistant turn(s) for 2 calls"
            f"{'' if answered else ', and does not end with the results of the last calls'}: "
            "the last turn was dropped or left unanswered instead of answered.",
            "keep every turn and run the last turn's calls (append their results) before you "
            "raise, so the run can be resumed.",
        )


def _weather_kit() -> tuple[dict, list[tuple[str, dict]]]:
    """get_weather for one city (the model calls it once per city, in parallel), with a log."""
    from course_helpers.lessons.tools import tool

    ran: list[tuple[str, dict]] = []
    known = {"Paris": "18°C, light rain", "Tokyo": "24°C, clear sky"}

    @tool
    def get_weather(city: str) -> str:
        """Get the current weather for one city: temperature and sky, e.g. '18°C, light rain'."""
        ran.append(("get_weather", {"city": city}))
        if city not in known:
            raise LookupError(f"No weather data for {city!r}")
        return known[city]

    return {"get_weather": get_weather}, ran


def _watched(sample: Callable, seen: list[int]) -> Callable:
    """`sample`, refusing with a clear message a history whose last turn's calls are not all
    answered in the one message after it (before the API would answer 400)."""

    def sample_watched(messages: list, **changes: Any) -> Any:
        __tracebackhide__ = True
        seen.append(len(messages))
        turns = [i for i, m in enumerate(messages) if read_field(m, "role") == "assistant"]
        if turns:
            index = turns[-1]
            calls = [
                b for b in content_blocks(messages[index]) if read_field(b, "type") == "tool_use"
            ]
            after = messages[index + 1 :]
            if calls and len(after) > 1:
                fail(
                    f"for a turn with {len(calls)} calls in parallel, agent_loop appended "
                    f"{len(after)} user messages (one per result); the API answers 400: "
                    '"tool_use ids were found without tool_result blocks immediately after".',
                    "collect every result in a list, then append ONE user message with all of "
                    "them: {'role': 'user', 'content': results}.",
                )
            if calls and after:
                answered = {
                    read_field(b, "tool_use_id")
                    for b in content_blocks(after[0])
                    if read_field(b, "type") == "tool_result"
                }
                missing = [c for c in calls if read_field(c, "id") not in answered]
                if missing:
                    fail(
                        f"the model asked for {len(calls)} calls in one turn and the results "
                        f"message answers {len(calls) - len(missing)}: "
                        f"{read_field(missing[0], 'name')}({read_field(missing[0], 'input')}) "
                        "has no result, and the API answers 400.",
                        "run every tool_use block of the response, not only the first: "
                        f"{RUN_CALLS_LINE}.",
                    )
        return sample(messages, **changes)

    return sample_watched


def _check_parallel_calls(agent_loop: Callable) -> None:
    """A turn with two calls in parallel: both run once, both results in one message."""
    __tracebackhide__ = True
    tools, ran = _weather_kit()
    client, recorder = recording_client()
    definitions = [t.definition() for t in tools.values()]
    seen: list[int] = []
    sample = _watched(sampler(client, model=MODEL, max_tokens=1024, tools=definitions), seen)
    runs: list[str] = []

    @calls_only
    def run_one(call: Any) -> Any:
        runs.append(str(read_field(call, "id")))
        return dispatch(tools, call)

    messages = [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}]
    run_learner(agent_loop, sample, run_one, messages, 20, name="agent_loop")
    first = recorder.responses[0]["body"] if recorder.responses else {}
    asked = [b["id"] for b in first.get("content", []) if b.get("type") == "tool_use"]
    if len(recorder.requests) < 2:
        fail(
            f"asked the weather in Paris and Tokyo, the model made {len(asked)} calls in one "
            "turn, and agent_loop stopped after that first call to the model.",
            "run the calls, append their results, and call the model again.",
        )
    repeated = [i for i in set(runs) if runs.count(i) > 1]
    if repeated or sorted(runs) != sorted(asked):
        fail(
            f"for a turn with {len(asked)} calls in parallel, run_tool was called {len(runs)} "
            f"times ({len(set(runs) & set(asked))} of the calls ran"
            + (", some more than once)." if repeated else ")."),
            "call run_tool once for each tool_use block of the response.",
        )
    _check_loop_run_counts(messages, recorder)
    require_pairing(messages, "after a turn with two parallel calls, the history breaks a rule")


def _check_loop_run_counts(messages: list, recorder: Recorder) -> None:
    __tracebackhide__ = True
    for step, sent in enumerate(recorder.messages_sent, start=1):
        expected = 1 + 2 * (step - 1)
        if len(sent) != expected:
            fail(
                f"after a turn with two calls in parallel, call {step} sent {len(sent)} "
                f"messages; expected {expected} (the assistant's turn, then ONE message with "
                "both results).",
                "append all the results of a turn in one user message.",
            )


def _check_cut_off_stop(agent_loop: Callable, kit: ReviewerKit) -> None:
    """An answer cut off by max_tokens inside its tool_use: returned, nothing run."""
    __tracebackhide__ = True
    from course_helpers.exercise_checks.stop_reasons import cutting_limit

    client, recorder = recording_client()
    definitions = [t.definition() for t in kit.tools.values()]
    limit, _ = cutting_limit(definitions)
    sample = sampler(client, model=MODEL, max_tokens=limit, tools=definitions)
    runs: list[Any] = []

    @calls_only
    def run_one(call: Any) -> Any:
        runs.append(call)
        return dispatch(kit.tools, call)

    messages = [{"role": "user", "content": "Review PR #482."}]
    try:
        final = agent_loop(sample, run_one, messages, 20)
    except Exception as error:
        raised: Exception | None = error
        final = None
    else:
        raised = None
    if runs:
        call = runs[0]
        fail(
            f"agent_loop ran {read_field(call, 'name')}({read_field(call, 'input')}) from an "
            "answer cut off by max_tokens: its input is half-written (stop_reason "
            "'max_tokens', not 'tool_use').",
            "run tools only when stop_reason == 'tool_use'; on any other stop_reason, return "
            "the response.",
        )
    if raised is not None and not isinstance(raised, anthropic.APIStatusError):
        fail(
            f"for an answer cut off by max_tokens, agent_loop raised {type(raised).__name__}: "
            f"{raised}.",
            "on any stop_reason but 'tool_use', append the turn and return the response: the "
            "caller decides what to do (notebook 06).",
        )
    if len(recorder.requests) != 1 or raised is not None:
        fail(
            f"for an answer cut off by max_tokens, agent_loop called the model "
            f"{len(recorder.requests)} times; expected one call, then the response returned.",
            "stop unless stop_reason == 'tool_use' (max_tokens, end_turn, refusal... all end "
            "the loop).",
        )
    if getattr(final, "stop_reason", None) != "max_tokens":
        fail(
            f"for an answer cut off by max_tokens, agent_loop returned {short_repr(final)}, not "
            "the response.",
            "return the response that ended the loop, whatever its stop_reason.",
        )
