"""Exercise 04's checks, proven both ways.

The exercise: `notebooks/exercises/04_build_the_loop_exercises.ipynb`. Plausible wrong solutions,
written as a learner would write them in the exercise notebook, fail with a message that names
their own mistake; equivalent correct solutions (another style, another valid choice) pass. The
requirements the checks enforce are listed in the docstring of
`course_helpers.exercise_checks.build_loop`.
"""

import itertools

from course_helpers.exercise_checks import (
    check_loop,
    check_simple_dispatcher,
)
from course_helpers.lessons.agent import tool_calls
from exercise_variants.kit import (
    variant_tests,
)


def dispatch_right_blocks(tools, block):
    try:
        output = tools[block.name].run(block.input)
    except Exception as error:
        text, failed = f"{type(error).__name__}: {error}", True
    else:
        text, failed = str(output), False
    result = {"type": "tool_result", "tool_use_id": block.id}
    result["content"] = [{"type": "text", "text": text}]
    if failed:
        result["is_error"] = True
    return result


def dispatch_lets_it_raise(tools, block):
    output = tools[block.name].run(block.input)
    return {"type": "tool_result", "tool_use_id": block.id, "content": str(output)}


def dispatch_vague_error(tools, block):
    try:
        output = tools[block.name].run(block.input)
    except Exception:
        return {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": "Error",
            "is_error": True,
        }
    return {"type": "tool_result", "tool_use_id": block.id, "content": str(output)}


def dispatch_returns_output(tools, block):
    try:
        return tools[block.name].run(block.input)
    except Exception as error:
        return f"Error: {error}"


class LoopLimit(RuntimeError):
    pass


def loop_right_recursive(sample, run_tool, messages, max_steps=20):
    """Recursion, and a match on stop_reason: also right."""
    if max_steps == 0:
        raise LoopLimit("no steps left")
    response = sample(messages)
    messages.append({"role": "assistant", "content": response.content})
    match response.stop_reason:
        case "tool_use":
            calls = [b for b in response.content if b.type == "tool_use"]
            messages.append({"role": "user", "content": list(map(run_tool, calls))})
            if max_steps == 1:
                raise LoopLimit("the model still wants tools: step limit reached")
            return loop_right_recursive(sample, run_tool, messages, max_steps - 1)
        case _:
            return response


def loop_raises_on_max_tokens(sample, run_tool, messages, max_steps=20):
    """Raises on a cut-off answer instead of returning it."""
    for _ in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason == "max_tokens":
            raise RuntimeError("the answer was cut off")
        if response.stop_reason != "tool_use":
            return response
        messages.append({"role": "user", "content": [run_tool(c) for c in tool_calls(response)]})
    raise LoopLimit("step limit")


def loop_runs_calls_twice(sample, run_tool, messages, max_steps=20):
    """Runs each call once to check it works, then again for the result."""
    for _ in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return response
        for call in tool_calls(response):
            run_tool(call)
        messages.append({"role": "user", "content": [run_tool(c) for c in tool_calls(response)]})
    raise LoopLimit("step limit")


def loop_right_while(sample, run_tool, messages, max_steps=20):
    steps = 0
    while steps < max_steps:
        steps += 1
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return response
        results = [run_tool(call) for call in tool_calls(response)]
        messages.append({"role": "user", "content": results})
    raise LoopLimit(f"stopped after {max_steps} calls")


def make_loop(
    *,
    calls="all",
    keep="whole",
    limit="raise",
    answer_before_limit=True,
    results="one message",
    stop="not tool_use",
):
    """agent_loop in several styles. calls: "all" | "none" | "first"; results: "one message" |
    "per result"; stop: "not tool_use" | "end_turn" (goes on for any other reason) | "no calls"
    (stops when the content holds no tool_use)."""

    def agent_loop(sample, run_tool, messages, max_steps=20):
        steps = range(max_steps) if limit != "none" else itertools.count()
        for _ in steps:
            response = sample(messages)
            if stop == "end_turn":
                finished = response.stop_reason == "end_turn"
            elif stop == "no calls":
                finished = not tool_calls(response)
            else:
                finished = response.stop_reason != "tool_use"
            if finished:
                if keep != "no final":
                    messages.append({"role": "assistant", "content": response.content})
                return response
            content = response.content
            if keep == "text":
                content = [b for b in content if b.type == "text"]
            messages.append({"role": "assistant", "content": content})
            asked = tool_calls(response)
            if not answer_before_limit and _ == max_steps - 1:
                raise LoopLimit("step limit")
            ran = {"all": asked, "first": asked[:1], "none": []}[calls]
            if results == "per result":
                for call in ran:
                    messages.append({"role": "user", "content": [run_tool(call)]})
            else:
                messages.append({"role": "user", "content": [run_tool(call) for call in ran]})
        if limit == "silent":
            return None
        raise LoopLimit(f"the model still wanted tools after {max_steps} calls")

    return agent_loop


def loop_decides_on_the_last_block(sample, run_tool, messages, max_steps=20):
    for _ in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.content[-1].type != "tool_use":
            return response
        messages.append({"role": "user", "content": [run_tool(c) for c in tool_calls(response)]})
    raise LoopLimit("step limit")


def loop_on_a_copy(sample, run_tool, messages, max_steps=20):
    return loop_right_while(sample, run_tool, list(messages), max_steps)


_FIRST_TOOLS: dict = {}


def dispatch_keeps_first_tools(tools, block):
    if not _FIRST_TOOLS:
        _FIRST_TOOLS.update(tools)
    try:
        output, failed = _FIRST_TOOLS[block.name].run(block.input), False
    except Exception as error:
        output, failed = f"Error: {error}", True
    result = {"type": "tool_result", "tool_use_id": block.id, "content": str(output)}
    return {**result, "is_error": True} if failed else result


def dispatch_keeps_first_tools_fresh(tools, block):
    """A notebook run from the top: the cache starts empty when the check starts."""
    if block.id == "toolu_check_1":
        _FIRST_TOOLS.clear()
    return dispatch_keeps_first_tools(tools, block)


def loop_drops_the_last_turn(sample, run_tool, messages, max_steps=20):
    for step in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return response
        if step == max_steps - 1:
            messages.pop()
            raise LoopLimit(f"still wanted tools after {max_steps} calls")
        messages.append({"role": "user", "content": [run_tool(c) for c in tool_calls(response)]})


# -- a third set of learner solutions -------------------------------------------------------------


def dispatch_cuts_the_output(tools, block):
    """Keeps the first 200 characters of what the tool returned."""
    try:
        output = tools[block.name].run(block.input)
    except Exception as error:
        return {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": f"Error: {error}",
            "is_error": True,
        }
    return {"type": "tool_result", "tool_use_id": block.id, "content": str(output)[:200]}


def dispatch_empty_is_an_error(tools, block):
    """Marks a tool that returned nothing as failed."""
    try:
        output = tools[block.name].run(block.input)
    except Exception as error:
        return {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": f"Error: {error}",
            "is_error": True,
        }
    if not output:
        return {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": "(no output)",
            "is_error": True,
        }
    return {"type": "tool_result", "tool_use_id": block.id, "content": str(output)}


def dispatch_empty_said(tools, block):
    """Right: an empty output said in words, not as a failure."""
    try:
        output = tools[block.name].run(block.input)
    except Exception as error:
        return {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": f"Error: {error}",
            "is_error": True,
        }
    return {"type": "tool_result", "tool_use_id": block.id, "content": str(output) or "(no output)"}


def loop_waits_for_tool_calls(sample, run_tool, messages, max_steps=20):
    """Compares stop_reason with "tool_calls", a name the API does not use."""
    for _ in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_calls":
            return response
        messages.append({"role": "user", "content": [run_tool(b) for b in tool_calls(response)]})
    raise LoopLimit("step limit")


def loop_runs_every_block(sample, run_tool, messages, max_steps=20):
    """Hands every block of the response to run_tool, thinking and text included."""
    for _ in range(max_steps):
        response = sample(messages)
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            return response
        messages.append({"role": "user", "content": [run_tool(b) for b in response.content]})
    raise LoopLimit("step limit")


WRONG = {
    "dispatcher lets it raise": (check_simple_dispatcher, dispatch_lets_it_raise, "escape"),
    "dispatcher: vague error": (
        check_simple_dispatcher,
        dispatch_vague_error,
        "does not say what failed",
    ),
    "dispatcher returns the output": (
        check_simple_dispatcher,
        dispatch_returns_output,
        "not a tool_result block",
    ),
    "loop runs no calls": (check_loop, make_loop(calls="none"), "must have non-empty content"),
    "loop keeps text only": (
        check_loop,
        make_loop(keep="text"),
        "not the response's whole content",
    ),
    "loop drops the final answer": (check_loop, make_loop(keep="no final"), "final answer"),
    "loop without a limit": (
        check_loop,
        make_loop(limit="none"),
        "with max_steps=2, agent_loop called",
    ),
    "loop stops silently": (check_loop, make_loop(limit="silent"), "without saying so"),
    "loop runs only the first call": (
        check_loop,
        make_loop(calls="first"),
        "the results message answers 1",
    ),
    "loop: one user message per result": (
        check_loop,
        make_loop(results="per result"),
        "(one per result)",
    ),
    "loop goes on until end_turn": (
        check_loop,
        make_loop(stop="end_turn"),
        "from an answer cut off by max_tokens",
    ),
    "loop raises on max_tokens": (check_loop, loop_raises_on_max_tokens, "raised RuntimeError"),
    "loop runs each call twice": (check_loop, loop_runs_calls_twice, "some more than once"),
    "loop leaves calls unanswered": (
        check_loop,
        make_loop(answer_before_limit=False),
        "left broken",
    ),
    "dispatcher keeps the first tools": (
        check_simple_dispatcher,
        dispatch_keeps_first_tools_fresh,
        "a second, different tools dict",
    ),
    "loop drops its last turn at the limit": (
        check_loop,
        loop_drops_the_last_turn,
        "the last turn was dropped",
    ),
    "dispatcher cuts the output to 200 characters": (
        check_simple_dispatcher,
        dispatch_cuts_the_output,
        "not the whole of what read_file returned",
    ),
    "dispatcher: an empty output is an error": (
        check_simple_dispatcher,
        dispatch_empty_is_an_error,
        "returned an empty output",
    ),
    "loop waits for 'tool_calls'": (check_loop, loop_waits_for_tool_calls, "'tool_calls'"),
    "loop runs every block": (check_loop, loop_runs_every_block, "a thinking block"),
}


WRONG_AGAIN = {
    "loop decides on the last block": (
        check_loop,
        loop_decides_on_the_last_block,
        "from an answer cut off by max_tokens",
    ),
    "loop on a copy of messages": (check_loop, loop_on_a_copy, "assistant turns for"),
    "loop stops on content, not stop_reason": (
        check_loop,
        make_loop(stop="no calls"),
        "from an answer cut off by max_tokens",
    ),
}


RIGHT = {
    "dispatcher with block content": (check_simple_dispatcher, dispatch_right_blocks),
    "loop with while": (check_loop, loop_right_while),
    "loop by recursion": (check_loop, loop_right_recursive),
    "loop from a factory": (check_loop, make_loop()),
    "dispatcher says an empty output in words": (check_simple_dispatcher, dispatch_empty_said),
}


# The tests every variants file runs on its tables (defined once, in kit.py).
globals().update(
    variant_tests(
        WRONG,
        RIGHT,
        wrong_again=WRONG_AGAIN,
        unwritten_checks=[check_simple_dispatcher, check_loop],
    )
)
