"""Checks for notebook 05, Return errors as results.

Requirements, one per line (each proven both ways in
tests/exercise_variants/test_05_return_errors_as_results.py):

`check_dispatcher(dispatch)`, `dispatch(tools, block)`:
- never raises: an unknown tool, invalid or missing arguments and a raising tool each give a
  `tool_result` with `is_error: true`; a call that works is not marked;
- the unknown tool's message names the tools that exist, read from the dict it is given (a
  second dict too);
- invalid arguments never reach the tool, and the message names the argument at fault;
- a raising tool's message keeps the tool's own words;
- a tool that calls `sys.exit()` (SystemExit, not an `Exception`), or raises any other
  BaseException (a library's own), is a failure like any other:
  an `is_error` result with its words; a Ctrl-C (`KeyboardInterrupt`) passes through, to stop
  the run.

`check_declined_call(dispatch)`, `dispatch(tools, block, approve)`:
- approve is asked after validation, before running; a "no" is an `is_error` result, the tool
  does not run, and the message says what to do next (4 words or more);
- only an explicit yes approves: an approve that answers "no", "n" or "deny" is a refusal;
- an approved call runs as usual; approve is asked once per call;
- nobody is asked about a call that cannot run (unknown tool, invalid arguments).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from course_helpers.exercise_checks.common import (
    fail,
    fail_if_not_written,
    passed,
    reviewer_kit,
    run_learner,
    short_repr,
    tool_call_block,
    verify_result_block,
    word_count_tools,
)


def check_dispatcher(dispatch: Callable) -> None:
    """05 · `dispatch(tools, block)`: unknown tool, invalid arguments, a raising tool → results."""
    __tracebackhide__ = True
    kit = reviewer_kit(with_list_files=True)
    try:
        cases = [
            ("get_diff(pr=482)", tool_call_block("get_diff", "toolu_ok", pr=482), False),
            (
                "an unknown tool get_difff",
                tool_call_block("get_difff", "toolu_unknown", pr=482),
                True,
            ),
            (
                "get_diff(pr='latest')",
                tool_call_block("get_diff", "toolu_invalid", pr="latest"),
                True,
            ),
            ("get_diff() with no pr", tool_call_block("get_diff", "toolu_missing"), True),
            (
                "get_diff(pr=999), which raises",
                tool_call_block("get_diff", "toolu_raises", pr=999),
                True,
            ),
        ]
        for what, call, should_fail in cases:
            before = len(kit.ran)
            try:
                result = dispatch(kit.tools, call)
            except Exception as error:
                fail_if_not_written(error, "dispatch")
                fail(
                    f"dispatch raised {type(error).__name__} for {what}: the exception escapes "
                    "the loop and leaves a tool_use without its result.",
                    "turn every failure into a tool_result with 'is_error': True.",
                )
            text = verify_result_block(result, call, "dispatch", what)
            is_error = result.get("is_error") is True
            if should_fail and not is_error:
                fail(
                    f"the result for {what} does not have is_error: True, so the model takes "
                    "it for a normal answer.",
                    "set 'is_error': True on every failure.",
                )
            if not should_fail and is_error:
                fail(f"the result for {what}, which worked, is marked is_error.", "only failures.")
            if call.id in ("toolu_invalid", "toolu_missing") and kit.ran[before:]:
                fail(
                    f"get_diff ran for {what}: invalid arguments reached the tool.",
                    "validate first: tool.arguments.model_validate_json(json.dumps(block.input)), then run.",
                )
            # The unknown name contains a real one ("get_difff"): look past it.
            listed = text.replace(call.name, "")
            if what.startswith("an unknown") and not any(n in listed for n in kit.tools):
                fail(
                    f"the error for {what} does not tell the model which tools exist: "
                    f"{short_repr(text)}.",
                    "list the available tool names in the message, so it can correct itself.",
                )
            if "no pr" in what and "pr" not in text:
                fail(
                    f"the error for {what} does not name the argument at fault: {short_repr(text)}.",
                    "say which argument is wrong (pydantic's errors() give its name).",
                )
            if "raises" in what and "999" not in text:
                fail(
                    f"the error for {what} lost the tool's own words: {short_repr(text)}.",
                    "put the exception's message in the content.",
                )
        _check_exits_and_interrupts(dispatch, kit.tools)
        _check_names_listed(dispatch)
    finally:
        kit.close()
    passed("dispatch turns every failure into an is_error result")


def _check_names_listed(dispatch: Callable) -> None:
    """With another tools dict, the unknown-tool message lists that dict's names."""
    __tracebackhide__ = True
    call = tool_call_block("wordcount", "toolu_unknown_2", text="one two")
    result = run_learner(dispatch, word_count_tools(), call, name="dispatch")
    text = verify_result_block(result, call, "dispatch", "an unknown tool wordcount")
    if "count_words" not in text:
        fail(
            "with a tools dict holding only count_words, the error for an unknown tool does not "
            f"name it ({short_repr(text)}): the list of tools is written into the message, not "
            "read from the dict.",
            "build the list from the dict you are given: ', '.join(tools).",
        )


def _check_exits_and_interrupts(dispatch: Callable, tools: dict) -> None:
    """sys.exit() in a tool is a failure like any other; Ctrl-C stops the run."""
    __tracebackhide__ = True
    from course_helpers.lessons.tools import tool

    @tool
    def run_script(script: str) -> str:
        """Run one of the project's scripts by name; it exits with a status when it fails."""
        raise SystemExit(f"script {script!r} failed: exit status 2")

    @tool
    def wait_for_ci(pr: int) -> str:
        """Wait until the CI of pull request `pr` has finished (the person may press Ctrl-C)."""
        raise KeyboardInterrupt

    class BuildAborted(BaseException):
        """A library's own way of stopping: a BaseException that is neither of the two above."""

    @tool
    def build_docs(pr: int) -> str:
        """Build the documentation of pull request `pr`; the build tool aborts on a bad page."""
        raise BuildAborted(f"page 3 of #{pr} has a broken link")

    every = {
        **tools,
        "run_script": run_script,
        "wait_for_ci": wait_for_ci,
        "build_docs": build_docs,
    }
    call = tool_call_block("run_script", "toolu_exit", script="lint")
    try:
        result = dispatch(every, call)
    except BaseException as error:
        fail_if_not_written(error, "dispatch")
        fail(
            f"dispatch let {type(error).__name__} escape from a tool that calls sys.exit(): "
            "SystemExit is not an Exception, so `except Exception` does not catch it.",
            "catch BaseException around the tool's run, and re-raise only KeyboardInterrupt "
            "(Ctrl-C): except KeyboardInterrupt: raise, then except BaseException as error.",
        )
    text = verify_result_block(result, call, "dispatch", "run_script(script='lint'), which exits")
    if result.get("is_error") is not True or "status 2" not in text:
        fail(
            "the result for run_script(script='lint'), which called sys.exit(), is not an "
            f"is_error result with the exit's words: {short_repr(text)}.",
            "return it like any other failure: 'is_error': True and the exception's message.",
        )
    call = tool_call_block("build_docs", "toolu_aborted", pr=482)
    try:
        result = dispatch(every, call)
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):
            raise
        fail(
            f"dispatch let {type(error).__name__} escape from build_docs: it is a BaseException "
            "that is neither SystemExit nor KeyboardInterrupt, and your dispatcher catches only "
            "the cases it names (SystemExit is one of many things that are not an Exception).",
            "catch BaseException itself around the tool's run, and re-raise only "
            "KeyboardInterrupt: except KeyboardInterrupt: raise, then except BaseException.",
        )
    text = verify_result_block(result, call, "dispatch", "build_docs(pr=482), which aborts")
    if result.get("is_error") is not True or "broken link" not in text:
        fail(
            "the result for build_docs(pr=482), which raised BuildAborted (a BaseException), is "
            f"not an is_error result with its words: {short_repr(text)}.",
            "return it like any other failure: 'is_error': True and the exception's message.",
        )
    call = tool_call_block("wait_for_ci", "toolu_interrupt", pr=482)
    try:
        dispatch(every, call)
    except KeyboardInterrupt:
        return
    except BaseException as error:
        fail(
            f"for a Ctrl-C (KeyboardInterrupt) in a tool, dispatch raised {type(error).__name__}.",
            "let KeyboardInterrupt through unchanged: except KeyboardInterrupt: raise.",
        )
    fail(
        "dispatch turned a Ctrl-C (KeyboardInterrupt) in a tool into a result: the person who "
        "pressed it to stop the run cannot stop it.",
        "catch BaseException, but re-raise KeyboardInterrupt first: except KeyboardInterrupt: "
        "raise.",
    )


def check_declined_call(dispatch: Callable) -> None:
    """05 · `dispatch(tools, block, approve)`: a declined call is answered, not run, not skipped."""
    __tracebackhide__ = True
    from course_helpers.lessons.tools import tool

    merged: list[int] = []

    @tool
    def merge_pr(pr: int) -> str:
        """Merge pull request `pr` into main."""
        merged.append(pr)
        return f"merged #{pr}"

    asked: list[tuple[str, dict]] = []

    def says(answer: Any) -> Callable:
        def approve(name: str, tool_input: dict) -> Any:
            asked.append((name, dict(tool_input)))
            return answer

        return approve

    tools = {"merge_pr": merge_pr}
    call = tool_call_block("merge_pr", "toolu_merge", pr=482)
    result = run_learner(dispatch, tools, call, approve=says(False), name="dispatch")
    text = verify_result_block(result, call, "dispatch", "a declined merge_pr")
    if not asked:
        fail(
            "dispatch never asked approve() before running merge_pr.",
            "call approve(block.name, block.input) after validating, before running.",
        )
    if len(asked) > 1:
        fail(
            f"dispatch asked approve() {len(asked)} times for one call: a person is asked once.",
            "call approve(block.name, block.input) once, keep its answer, then decide.",
        )
    if merged:
        fail(
            "merge_pr ran although approve() said no.",
            "return the declined result instead of running the tool.",
        )
    if result.get("is_error") is not True:
        fail(
            "the result of a declined call does not have is_error: True.",
            "a person saying no is a failure of the call: set 'is_error': True.",
        )
    if len(text.split()) < 4:
        fail(
            f"the message for a declined call is too short to act on: {short_repr(text)}.",
            "say it was declined, that it did not run, and what to do next (ask the user).",
        )
    for answer in ("no", "n", "deny"):
        asked.clear()
        result = run_learner(dispatch, tools, call, approve=says(answer), name="dispatch")
        verify_result_block(result, call, "dispatch", f"merge_pr answered {answer!r}")
        if merged:
            fail(
                f"merge_pr ran although approve() answered {answer!r}: only an explicit yes "
                "approves, and bool('no') is True.",
                "run the tool only when approve(...) is True; anything else is a refusal.",
            )
        if result.get("is_error") is not True:
            fail(
                f"approve() answered {answer!r}, and the result does not have is_error: True.",
                "anything but an explicit yes is a refusal: answer it like a 'no'.",
            )
    asked.clear()
    result = run_learner(dispatch, tools, call, approve=says(True), name="dispatch")
    verify_result_block(result, call, "dispatch", "an approved merge_pr")
    if len(asked) > 1:
        fail(
            f"dispatch asked approve() {len(asked)} times for one approved call: a person is "
            "asked once.",
            "call approve(block.name, block.input) once, keep its answer, then decide.",
        )
    if merged != [482] or result.get("is_error"):
        fail(
            "an approved merge_pr did not run (or its result is marked is_error).",
            "when approve() says yes, run the tool as usual.",
        )
    asked.clear()
    for what, bad in [
        ("an unknown tool", tool_call_block("merge_everything", "toolu_unknown", pr=1)),
        ("invalid arguments", tool_call_block("merge_pr", "toolu_invalid", pr="all")),
    ]:
        result = run_learner(dispatch, tools, bad, approve=says(True), name="dispatch")
        verify_result_block(result, bad, "dispatch", what)
        if asked:
            fail(
                f"dispatch asked a person to approve {what}, a call that cannot run anyway.",
                "check in order: the tool exists → the arguments are valid → approval → run.",
            )
        if result.get("is_error") is not True:
            fail(f"the result for {what} does not have is_error: True.", "see exercise 1.")
    passed("a declined call becomes an is_error result")
