"""Exercise 05's checks, proven both ways.

The exercise: `notebooks/exercises/05_return_errors_as_results_exercises.ipynb`. Plausible wrong
solutions, written as a learner would write them in the exercise notebook, fail with a message that
names their own mistake; equivalent correct solutions (another style, another valid choice) pass.
The requirements the checks enforce are listed in the docstring of
`course_helpers.exercise_checks.errors_as_results`.
"""

import pydantic

from course_helpers.exercise_checks import (
    check_declined_call,
    check_dispatcher,
)
from exercise_variants.kit import (
    variant_tests,
)


def error_result(block, message):
    return {"type": "tool_result", "tool_use_id": block.id, "content": message, "is_error": True}


def make_dispatcher(
    *, unknown="list", validate=True, approve_when="after", yes="is True", catch="base"
):
    """catch: "base" (BaseException, KeyboardInterrupt let through), "exception" (Exception
    only: sys.exit escapes), "exit" (Exception and SystemExit, as if sys.exit were the only other
    case), "everything" (BaseException, Ctrl-C included)."""
    caught = {"exception": Exception, "exit": (Exception, SystemExit)}.get(catch, BaseException)

    def dispatch(tools, block, approve=None):
        if unknown == "raise":
            chosen = tools[block.name]
        else:
            chosen = tools.get(block.name)
            if chosen is None:
                listed = f" Available: {', '.join(tools)}." if unknown == "list" else ""
                return error_result(block, f"Unknown tool {block.name!r}.{listed}")
        asked_first = approve is not None and approve_when == "before"
        if asked_first and approve(block.name, block.input) is not True:
            return error_result(block, "The user declined this call. It did not run.")
        if validate:
            try:
                chosen.arguments.model_validate(block.input)
            except pydantic.ValidationError as error:
                return error_result(block, f"Invalid arguments for {block.name}: {error}")
        if approve is not None and approve_when == "after":
            answer = approve(block.name, block.input)
            allowed = answer is True if yes == "is True" else bool(answer)
            if not allowed:
                return error_result(block, "The user declined this call. It did not run; ask them.")
        try:
            output = chosen.function(**block.input) if not validate else chosen.run(block.input)
        except KeyboardInterrupt:
            if catch != "everything":
                raise
            return error_result(block, f"{block.name} was interrupted.")
        except caught as error:
            return error_result(block, f"{block.name} failed: {error}")
        return {"type": "tool_result", "tool_use_id": block.id, "content": str(output)}

    return dispatch


def dispatcher_via_run(tools, block, approve=None):
    """Relies on Tool.run to validate before the function runs: equivalent, accepted."""
    if block.name not in tools:
        return error_result(block, f"No tool {block.name!r}; the tools are {sorted(tools)}.")
    try:
        tools[block.name].arguments.model_validate(block.input)
        if approve is not None and approve(block.name, block.input) is not True:
            return error_result(block, "Declined by the user: not run. Ask how to continue.")
        return {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": str(tools[block.name].run(block.input)),
        }
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        return error_result(block, f"{type(error).__name__}: {error}")


def dispatcher_with_a_fixed_list(tools, block, approve=None):
    if block.name not in tools:
        return error_result(
            block, f"Unknown tool {block.name!r}. Available: get_diff, read_file, list_files."
        )
    return make_dispatcher()(tools, block, approve)


def dispatcher_asks_twice(tools, block, approve=None):
    if approve is not None and block.name in tools:
        try:
            tools[block.name].arguments.model_validate(block.input)
        except pydantic.ValidationError:
            return make_dispatcher()(tools, block)
        approve(block.name, block.input)  # "just to log it"
    return make_dispatcher()(tools, block, approve)


WRONG = {
    "unknown tool raises": (check_dispatcher, make_dispatcher(unknown="raise"), "raised KeyError"),
    "unknown tool, no list": (
        check_dispatcher,
        make_dispatcher(unknown="plain"),
        "which tools exist",
    ),
    "no validation": (check_dispatcher, make_dispatcher(validate=False), "reached the tool"),
    "approve truthiness": (
        check_declined_call,
        make_dispatcher(yes="bool"),
        "only an explicit yes approves",
    ),
    "catches Exception only": (
        check_dispatcher,
        make_dispatcher(catch="exception"),
        "SystemExit is not an Exception",
    ),
    "catches Ctrl-C too": (
        check_dispatcher,
        make_dispatcher(catch="everything"),
        "turned a Ctrl-C",
    ),
    "approval before validation": (
        check_declined_call,
        make_dispatcher(approve_when="before"),
        "a call that cannot run anyway",
    ),
    "dispatcher lists tools from memory": (
        check_dispatcher,
        dispatcher_with_a_fixed_list,
        "written into the message",
    ),
    "declined: approve asked twice": (
        check_declined_call,
        dispatcher_asks_twice,
        "times for one call",
    ),
    "catches Exception and SystemExit only": (
        check_dispatcher,
        make_dispatcher(catch="exit"),
        "BuildAborted",
    ),
}


RIGHT = {
    "dispatcher": (check_dispatcher, make_dispatcher()),
    "dispatcher via run": (check_dispatcher, dispatcher_via_run),
    "declined via run": (check_declined_call, dispatcher_via_run),
    "declined": (check_declined_call, make_dispatcher()),
}


# The tests every variants file runs on its tables (defined once, in kit.py).
globals().update(
    variant_tests(WRONG, RIGHT, unwritten_checks=[check_dispatcher, check_declined_call])
)
