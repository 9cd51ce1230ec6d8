"""Exercise 06's checks, proven both ways.

The exercise: `notebooks/exercises/06_handle_every_stop_reason_exercises.ipynb`. Plausible wrong
solutions, written as a learner would write them in the exercise notebook, fail with a message that
names their own mistake (and each message different); equivalent correct solutions pass. The
requirements the checks enforce are listed in the docstring of
`course_helpers.exercise_checks.stop_reasons`.
"""

from __future__ import annotations

import importlib
import pkgutil

from course_helpers.client import MODEL
from course_helpers.exercise_checks import (
    check_cut_offs,
    check_pause_and_refusal,
    check_recover_cut_off,
)
from course_helpers.exercise_checks.common import recording_client
from course_helpers.lessons.agent import AgentRun, tool_calls
from course_helpers.lessons.controller import CutOff, Ending, Refused, controlled
from course_helpers.lessons.history import drop_refused_turn
from exercise_variants.kit import assert_each_fails_its_own_way, assert_passes, failure_of

CONTINUE = "Continue exactly where you stopped, without repeating anything or apologising."

# -- recover_cut_off --------------------------------------------------------------------


def _has_call(response) -> bool:
    return any(b.type == "tool_use" for b in response.content)


def recover_good(messages, response, max_tokens, ceiling):
    if not _has_call(response) and any(b.type == "text" for b in response.content):
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": CONTINUE})
        return min(max_tokens * 4, ceiling)
    return None if max_tokens >= ceiling else min(max_tokens * 4, ceiling)


def recover_doubling_dicts(messages, response, max_tokens, ceiling):
    """Equivalent: dict blocks, the same limit for text, doubling for calls, an early return."""
    if _has_call(response) or not any(block.type == "text" for block in response.content):
        if max_tokens == ceiling:
            return None
        return min(2 * max_tokens, ceiling)
    blocks = [block.model_dump() for block in response.content]
    messages.extend(
        [
            {"role": "assistant", "content": blocks},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Please go on from the exact word where you stopped."},
                    {"type": "text", "text": "Don't repeat anything, and no apologies."},
                ],
            },
        ]
    )
    return max_tokens


def recover_bare_continue(messages, response, max_tokens, ceiling):
    """A bare 'Please continue.': no word about repeating or apologising."""
    if not _has_call(response):
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": "Please continue."})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_no_apology_missing(messages, response, max_tokens, ceiling):
    if not _has_call(response):
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": "Continue where you stopped; do not repeat."})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_jumps_to_the_ceiling(messages, response, max_tokens, ceiling):
    """Equivalent: a cut-off call is retried at once with all the room there is."""
    if _has_call(response) or not any(block.type == "text" for block in response.content):
        return None if max_tokens >= ceiling else ceiling
    messages.append({"role": "assistant", "content": response.content})
    messages.append({"role": "user", "content": CONTINUE})
    return max_tokens


def recover_apologises_itself(messages, response, max_tokens, ceiling):
    if not _has_call(response):
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": "Continue. Sorry for the cut!"})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_float_limit(messages, response, max_tokens, ceiling):
    if _has_call(response):
        return None if max_tokens >= ceiling else min(max_tokens * 1.5, ceiling)
    return recover_good(messages, response, max_tokens, ceiling)


def recover_adds_a_block(messages, response, max_tokens, ceiling):
    """Appends the whole answer with a block of its own in the same turn, and no request."""
    if not _has_call(response) and any(b.type == "text" for b in response.content):
        note = {"type": "text", "text": " [cut off here]"}
        messages.append({"role": "assistant", "content": [*response.content, note]})
        return min(max_tokens * 4, ceiling)
    return None if max_tokens >= ceiling else min(max_tokens * 4, ceiling)


def recover_appends_tuples(messages, response, max_tokens, ceiling):
    """Appends (role, content) pairs instead of message dicts."""
    messages.append(("assistant", response.content))
    messages.append(("user", CONTINUE))
    return min(max_tokens * 4, ceiling)


def recover_throws_text_away(messages, response, max_tokens, ceiling):
    return None if max_tokens >= ceiling else min(max_tokens * 4, ceiling)


def recover_keeps_text_only(messages, response, max_tokens, ceiling):
    if not _has_call(response):
        kept = [b for b in response.content if b.type == "text"]
        messages.append({"role": "assistant", "content": kept})
        messages.append({"role": "user", "content": CONTINUE})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_does_not_ask(messages, response, max_tokens, ceiling):
    if not _has_call(response):
        messages.append({"role": "assistant", "content": response.content})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_asks_for_it_again(messages, response, max_tokens, ceiling):
    if not _has_call(response):
        messages.append({"role": "assistant", "content": response.content})
        messages.append({"role": "user", "content": "That was too short. Write the essay again."})
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_keeps_the_cut_call(messages, response, max_tokens, ceiling):
    messages.append({"role": "assistant", "content": response.content})
    if _has_call(response):
        results = [
            {"type": "tool_result", "tool_use_id": b.id, "content": "not run", "is_error": True}
            for b in tool_calls(response)
        ]
        messages.append({"role": "user", "content": results})
    else:
        messages.append({"role": "user", "content": CONTINUE})
    return min(max_tokens * 4, ceiling)


def recover_same_limit(messages, response, max_tokens, ceiling):
    if _has_call(response):
        return max_tokens
    return recover_good(messages, response, max_tokens, ceiling)


def recover_uncapped(messages, response, max_tokens, ceiling):
    if _has_call(response):
        return max_tokens * 4
    return recover_good(messages, response, max_tokens, ceiling)


def recover_never_stops(messages, response, max_tokens, ceiling):
    if _has_call(response):
        return min(max_tokens * 4, ceiling)
    return recover_good(messages, response, max_tokens, ceiling)


def recover_by_the_last_block(messages, response, max_tokens, ceiling):
    """Decides on the last block: a response with no block at all crashes it."""
    if response.content[-1].type == "tool_use":
        return None if max_tokens >= ceiling else min(max_tokens * 4, ceiling)
    return recover_good(messages, response, max_tokens, ceiling)


def recover_stops_text_at_the_ceiling(messages, response, max_tokens, ceiling):
    """Checks the ceiling first, for cut-off text too."""
    if max_tokens >= ceiling:
        return None
    return recover_good(messages, response, max_tokens, ceiling)


def test_06_recover_cut_off_correct_variants_pass(capsys) -> None:
    assert_passes(check_recover_cut_off, recover_good, capsys)
    assert_passes(check_recover_cut_off, recover_doubling_dicts, capsys)
    assert_passes(check_recover_cut_off, recover_jumps_to_the_ceiling, capsys)


def test_06_recover_cut_off_wrong_variants_fail_with_their_own_hint() -> None:
    assert_each_fails_its_own_way(
        check_recover_cut_off,
        {
            "text thrown away": (recover_throws_text_away, "appended nothing"),
            "(role, content) pairs for messages": (recover_appends_tuples, "not a message"),
            "a block of its own in the cut-off turn": (
                recover_adds_a_block,
                "plus a block of your own",
            ),
            "a bare 'Please continue.'": (
                recover_bare_continue,
                "not to repeat itself or not to apologise",
            ),
            "sorry, continue": (recover_apologises_itself, "'Continue. Sorry for the cut!'"),
            "a float limit": (recover_float_limit, "a whole number of tokens"),
            "no word about apologies": (
                recover_no_apology_missing,
                "does not tell the model not to apologise",
            ),
            "thinking dropped": (recover_keeps_text_only, "missing: ['thinking']"),
            "no request to go on": (recover_does_not_ask, "ends with the assistant's turn"),
            "asks to start again": (recover_asks_for_it_again, "started the essay again"),
            "cut call kept": (recover_keeps_the_cut_call, "was added to the history"),
            "same limit": (recover_same_limit, "would be cut off again"),
            "uncapped": (recover_uncapped, "above the model's maximum"),
            "never stops": (recover_never_stops, "return None when max_tokens has reached"),
            "decides on the last block": (
                recover_by_the_last_block,
                "cut off before any text (no content at all)",
            ),
            "stops cut-off text at the ceiling": (
                recover_stops_text_at_the_ceiling,
                "with a ceiling of 64",
            ),
        },
    )


# -- control: a wrapper of notebook 04's sample seam ------------------------------------


def make_controller(
    recover=recover_good,
    *,
    on_cut_call="recover",
    use_raised_limit=True,
    at_ceiling="raise",
    on_step_limit="raise",
    pass_max_tokens=True,
    other_client=None,
    on_pause="resend",
    on_refusal=drop_refused_turn,
    refusal="raise",
    keep_changes=True,
    reset_each_call=False,
):
    """A `control(sample, *, max_tokens, ceiling)` built from switches: the default is correct.

    reset_each_call: True starts every call from the first max_tokens again (a raised limit is
    forgotten at the next turn);

    on_cut_call: "recover" | "run" (passed to the loop as a call) | "hand back" (to the loop);
    at_ceiling: "raise" | "retry" (with the ceiling) | "hand back";
    on_step_limit: "raise" | "retry" (catches every exception and calls again) | "hand back";
    on_pause: "resend" | "ask" (a user message first) | "hand back" | "forget" (resends without
    the paused turn);
    refusal: "raise" | "hand back" | "retry"; on_refusal(messages) takes out the refused turn;
    keep_changes: False drops the caller's **changes (only max_tokens is passed on).
    """

    def control(sample, *, max_tokens=1024, ceiling=128_000):
        limit = max_tokens

        def sample_controlled(messages, **changes):
            nonlocal limit
            if reset_each_call:
                limit = max_tokens
            last = None
            while True:
                if other_client is not None:
                    response = other_client.messages.create(
                        model=MODEL, max_tokens=limit, messages=messages
                    )
                else:
                    request = {**changes, "max_tokens": limit} if pass_max_tokens else changes
                    if not keep_changes:
                        request = {"max_tokens": limit}
                    try:
                        response = sample(messages, **request)
                    except Exception:
                        if on_step_limit == "retry":
                            continue
                        if on_step_limit == "hand back" and last is not None:
                            return last
                        raise
                last = response
                reason = response.stop_reason
                if reason == "max_tokens" and _has_call(response) and on_cut_call != "recover":
                    if on_cut_call == "run":
                        return response.model_copy(update={"stop_reason": "tool_use"})
                    return response
                if reason == "max_tokens":
                    raised = recover(messages, response, limit, ceiling)
                    if raised is None:
                        if at_ceiling == "raise":
                            raise CutOff(f"still cut off at max_tokens={limit}")
                        if at_ceiling == "hand back":
                            return response
                        raised = ceiling
                    if use_raised_limit:
                        limit = raised
                elif reason == "pause_turn":
                    if on_pause == "hand back":
                        return response
                    if on_pause == "forget":
                        continue  # resends the same request: the paused work is lost
                    messages.append({"role": "assistant", "content": response.content})
                    if on_pause == "ask":
                        messages.append({"role": "user", "content": "Please continue."})
                elif reason == "refusal":
                    if refusal == "retry":
                        continue
                    if refusal == "hand back":
                        return response
                    on_refusal(messages)
                    raise Refused("the model declined")
                else:
                    return response

        return sample_controlled

    return control


def _call_goes_with_its_results(messages):
    """Takes out the last message and, when it leaves a turn of calls, that turn too."""
    messages.pop()
    if messages and messages[-1]["role"] == "assistant" and tool_calls(messages[-1]):
        messages.pop()


class TooLong(Ending):
    kind = "max_tokens"


class Declined(Ending):
    kind = "refusal"


def control_per_turn(sample, *, max_tokens=1024, ceiling=128_000):
    """Equivalent: recursion instead of a while loop, a limit that starts again at max_tokens
    every turn, endings of its own (subclasses of Ending), and notebook 06's drop_refused_turn."""

    def sample_controlled(messages, limit=max_tokens, **changes):
        response = sample(messages, **changes, max_tokens=limit)
        match response.stop_reason:
            case "max_tokens":
                more = recover_good(messages, response, limit, ceiling)
                if more is None:
                    raise TooLong(f"no room left at {limit}")
                return sample_controlled(messages, more, **changes)
            case "pause_turn":
                messages.append({"role": "assistant", "content": response.content})
                return sample_controlled(messages, limit, **changes)
            case "refusal":
                drop_refused_turn(messages)
                raise Declined(str(response.stop_details))
        return response

    return sample_controlled


def control_of_the_course(sample, *, max_tokens=1024, ceiling=128_000):
    """Equivalent: notebook 06's own controller, with a record of its own."""
    return controlled(sample, AgentRun([]), max_tokens=max_tokens, ceiling=lambda: ceiling)


def recover_keep_limit_for_text(messages, response, max_tokens, ceiling):
    """Equivalent: cut-off text is continued with the same max_tokens (more calls, fine)."""
    if _has_call(response):
        return None if max_tokens >= ceiling else min(max_tokens * 3, ceiling)
    messages.append({"role": "assistant", "content": response.content})
    messages.append({"role": "user", "content": "You were cut off: continue where you stopped."})
    return max_tokens


def recover_regenerates(messages, response, max_tokens, ceiling):
    """Wrong in the loop: cut-off text is dropped and the answer asked for again."""
    if _has_call(response) and max_tokens >= ceiling:
        return None
    return min(max_tokens * 4, ceiling)


def test_06_control_correct_variants_pass(capsys) -> None:
    for control in (
        make_controller(),
        make_controller(recover_keep_limit_for_text),
        make_controller(recover_jumps_to_the_ceiling),
        control_per_turn,
        control_of_the_course,
    ):
        assert_passes(check_cut_offs, control, capsys)
    for control in (
        make_controller(),
        make_controller(on_refusal=drop_refused_turn),
        control_per_turn,
        control_of_the_course,
    ):
        assert_passes(check_pause_and_refusal, control, capsys)


def test_06_control_wrong_variants_fail_with_their_own_hint() -> None:
    other_client, _ = recording_client()
    assert_each_fails_its_own_way(
        check_cut_offs,
        {
            "runs the cut call": (make_controller(on_cut_call="run"), "the loop ran get_diff"),
            "hands the cut call to the loop": (
                make_controller(on_cut_call="hand back"),
                "handed a response cut off inside its tool_use to the loop",
            ),
            "ignores the raised limit": (
                make_controller(use_raised_limit=False),
                "it never asked again with more room",
            ),
            "forgets the raised limit at the next call": (
                make_controller(recover_doubling_dicts, reset_each_call=True),  # 34, 68, 34...
                "once raised, it went back to",
            ),
            "uncapped": (make_controller(recover_uncapped), "the API refuses that request"),
            "retries at the ceiling": (
                make_controller(at_ceiling="retry"),
                "retrying with the same room only repeats the cut",
            ),
            "hands the cut call back at the ceiling": (
                make_controller(at_ceiling="hand back"),
                "when recover_cut_off returns None, raise CutOff",
            ),
            "catches the step limit and retries": (
                make_controller(on_step_limit="retry"),
                "it caught the step limit",
            ),
            "catches the step limit and hands back the last answer": (
                make_controller(on_step_limit="hand back"),
                "expected one call, nothing run, and StepLimitReached",
            ),
            "calls the model with a client of its own": (
                make_controller(other_client=other_client),
                "no request went through the sample the check gave control",
            ),
            "no max_tokens": (
                make_controller(pass_max_tokens=False),
                "called sample without max_tokens",
            ),
            "regenerates text": (make_controller(recover_regenerates), "written again"),
            "drops the caller's changes": (
                make_controller(keep_changes=False),
                "dropped what the caller passed",
            ),
            "continues without the thinking block": (
                make_controller(recover_keeps_text_only),
                "left out: ['thinking']",
            ),
        },
    )
    assert_each_fails_its_own_way(
        check_pause_and_refusal,
        {
            "refused turn kept": (
                make_controller(on_refusal=lambda m: None),
                "still in the history:",
            ),
            "whole history cleared": (
                make_controller(on_refusal=list.clear),
                "the 2 messages before the refused turn are gone",
            ),
            "an answer of its own after the refusal": (
                make_controller(
                    on_refusal=lambda m: m.append(
                        {"role": "assistant", "content": "I can't help with that."}
                    )
                ),
                "still in the history (with an answer after it)",
            ),
            "refusal handed to the loop": (
                make_controller(refusal="hand back"),
                "handed the refusal to the loop",
            ),
            "refusal resent": (make_controller(refusal="retry"), "same refusal"),
            "user message on pause": (
                make_controller(on_pause="ask"),
                "added a user message before resending",
            ),
            "pause handed to the loop": (
                make_controller(on_pause="hand back"),
                "did not call the model again",
            ),
            "refusal: only the last message taken out (pop)": (
                make_controller(on_refusal=list.pop),
                "took out only the last message",
            ),
            "refusal: the calls and results taken out, the request left": (
                make_controller(on_refusal=_call_goes_with_its_results),
                "the refused request 'Review PR #482.' is still the last message",
            ),
            "pause resent without the paused turn": (
                make_controller(on_pause="forget"),
                "resent the same request without the paused turn",
            ),
        },
    )


def test_every_exported_check_is_guarded() -> None:
    """No check ends in a raw Python error: each is wrapped by `common.guarded`."""
    import course_helpers.exercise_checks as checks

    names = [name for name in checks.__all__ if name.startswith("check_")]
    # Every check a module of the package (or of its subpackages) defines is exported (and so
    # guarded), none left out.
    defined = set()
    for module in pkgutil.walk_packages(checks.__path__, prefix=f"{checks.__name__}."):
        found = importlib.import_module(module.name)
        defined |= {
            name
            for name, value in vars(found).items()
            if name.startswith("check_")
            and callable(value)
            and getattr(value, "__module__", "") == found.__name__
        }
    assert set(names) == defined, set(names) ^ defined
    for name in names:
        assert getattr(checks, name).__wrapped__.__name__ == name, name


def test_an_unexpected_error_in_a_check_says_what_the_code_did() -> None:
    """A check that trips over an unforeseen shape, or learner code it calls outside
    run_learner, ends in CheckFailed naming the learner's function and the error."""
    from course_helpers.exercise_checks.common import guarded

    # A check of the course's, written in a file of its own (not the learner's).
    scope: dict = {}
    exec(
        compile(
            "def check_reads_the_first_message(make_history):\n"
            "    return make_history()[0]['role']  # it assumes a list of dicts\n",
            "a_check_module.py",
            "exec",
        ),
        scope,
    )
    check_reads_the_first_message = guarded(scope["check_reads_the_first_message"])

    def make_history():
        return []

    text = failure_of(check_reads_the_first_message, make_history)
    assert "make_history gave the check something it could not read: IndexError" in text

    def make_history_that_raises():
        return {}["role"]

    text = failure_of(check_reads_the_first_message, make_history_that_raises)
    assert "make_history_that_raises raised KeyError ('role') at line" in text, text
