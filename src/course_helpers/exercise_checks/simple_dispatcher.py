"""Checks for notebook 04, Build the loop: its first exercise, the dispatcher `run_tool`.

Requirements, one per line (each proven both ways in
tests/exercise_variants/test_04_build_the_loop.py):

`check_simple_dispatcher(run_tool)`, `run_tool(tools, block)`:
- returns a `tool_result` dict with the call's id and non-empty content (string or blocks);
- looks the tool up in the `tools` dict it is given, on every call (a second, different dict
  too);
- runs the named tool once with the block's input, and its whole output is in the content
  (the end of a file too: nothing cut);
- a tool that worked and returned nothing ('') is a result, not `is_error`;
- a tool that raises becomes `is_error: true` with the exception's words; nothing escapes.
"""

from __future__ import annotations

from collections.abc import Callable

from course_helpers.exercise_checks.common import (
    fail,
    passed,
    reviewer_kit,
    run_learner,
    short_repr,
    tool_call_block,
    verify_result_block,
    word_count_tools,
)


def check_simple_dispatcher(run_tool: Callable) -> None:
    """04 · `run_tool(tools, block)`: look the tool up, run it, wrap what it returns."""
    __tracebackhide__ = True
    kit = reviewer_kit()
    try:
        call = tool_call_block("read_file", "toolu_check_1", path="invoicing/checkout.py")
        result = run_learner(run_tool, kit.tools, call, name="run_tool")
        text = verify_result_block(result, call, "run_tool", "read_file")
        if kit.ran != [("read_file", {"path": "invoicing/checkout.py"})]:
            fail(
                f"run_tool ran {kit.ran or 'nothing'} for one read_file call.",
                "look the tool up by block.name and run it once with block.input.",
            )
        whole = kit.repo.read_file("invoicing/checkout.py")
        if "apply_discount" not in text:
            fail(
                "the result does not hold the file's text that read_file returned.",
                "put the tool's output in 'content'.",
            )
        if whole.strip()[-80:] not in text:
            fail(
                f"the result holds {len(text)} characters, not the whole of what read_file "
                f"returned ({len(whole)}): the end of the file is missing, so the model reviews "
                "a file it has not seen.",
                "put the tool's whole output in 'content': str(output), uncut.",
            )
        if result.get("is_error"):
            fail("the result of a call that worked is marked is_error.", "only on a failure.")
        call = tool_call_block("get_diff", "toolu_check_2", pr=999)
        try:
            result = run_tool(kit.tools, call)
        except Exception as error:
            fail(
                f"run_tool let the tool's {type(error).__name__} escape for get_diff(pr=999).",
                "catch the exception and return it as a result with 'is_error': True.",
            )
        text = verify_result_block(result, call, "run_tool", "get_diff(pr=999)")
        if result.get("is_error") is not True:
            fail(
                "the result for get_diff(pr=999), which failed, does not have is_error: True.",
                "set 'is_error': True when the tool raises.",
            )
        if "999" not in text:
            fail(
                f"the error result for get_diff(pr=999) does not say what failed: {short_repr(text)}.",
                "put the exception's message in the content, e.g. f'Error: {error}'.",
            )
        _check_other_tools(run_tool)
        _check_empty_output(run_tool)
    finally:
        kit.close()
    passed("run_tool looks up, runs and wraps")


def _check_other_tools(run_tool: Callable) -> None:
    """A second, different tools dict: run_tool looks the tool up in the one it is given."""
    __tracebackhide__ = True
    call = tool_call_block("count_words", "toolu_check_3", text="one two three")
    result = run_learner(run_tool, word_count_tools(), call, name="run_tool")
    text = verify_result_block(result, call, "run_tool", "count_words (from a second tools dict)")
    if "3 words" not in text or result.get("is_error"):
        fail(
            "called with a second, different tools dict, run_tool did not run its count_words "
            f"tool (it answered {short_repr(text)}): it looks tools up somewhere else than in "
            "the dict it is given (one kept from an earlier call?).",
            "look the tool up in the `tools` parameter, on every call: tools[block.name].",
        )


def _check_empty_output(run_tool: Callable) -> None:
    """A tool that worked and returned nothing: a result like any other, not a failure."""
    __tracebackhide__ = True
    from course_helpers.lessons.tools import tool

    @tool
    def clear_cache() -> str:
        """Empty the review cache. Returns nothing (an empty string) when it worked."""
        return ""

    call = tool_call_block("clear_cache", "toolu_check_4")
    result = run_learner(run_tool, {"clear_cache": clear_cache}, call, name="run_tool")
    if not isinstance(result, dict) or result.get("tool_use_id") != call.id:
        verify_result_block(result, call, "run_tool", "clear_cache (which returns '')")
    if result.get("is_error"):
        fail(
            "for a tool that worked and returned an empty output (clear_cache returns ''), "
            "run_tool's result has is_error: True: the model is told the call failed when it "
            "did not.",
            "set is_error only when the tool raises; an empty output is a result (its content "
            "may be '' or a few words such as '(no output)').",
        )
