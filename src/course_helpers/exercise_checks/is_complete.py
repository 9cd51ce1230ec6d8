"""Course machinery (exercise checks): notebook 01's `is_complete` check, kept for older copies
of the exercise (proven both ways in tests/exercise_variants/test_01_make_a_single_call.py).

`check_is_complete(is_complete)`, `is_complete(response)` (kept for older copies):
- returns a bool;
- True only for `stop_reason == "end_turn"`: False for `max_tokens` and `stop_sequence`,
  including a cut answer that happens to end with a full stop, and True for a finished answer
  without one (the text cannot tell).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    fail,
    passed,
    recording_client,
    run_learner,
    short_repr,
)


def check_is_complete(is_complete: Callable) -> None:
    """01 · `is_complete(response)`: only `end_turn` means the model finished its answer."""
    __tracebackhide__ = True
    client, _ = recording_client()
    cases = [
        ("Hello!", {}, True),
        ("Write a long essay about agents.", {"max_tokens": 40}, False),
        ("Count from 1 to 20.", {"stop_sequences": ["10"]}, False),
    ]
    for question, options, expected in cases:
        options = {"max_tokens": 300, **options}
        response = client.messages.create(
            model=MODEL, messages=[{"role": "user", "content": question}], **options
        )
        said = run_learner(is_complete, response, name="is_complete")
        if not isinstance(said, bool):
            fail(
                f"is_complete returned {short_repr(said)}, not True or False.",
                "compare response.stop_reason with the one value that means 'finished'.",
            )
        if said != expected:
            verdict = "finished" if said else "unfinished"
            fail(
                f"is_complete called an answer with stop_reason={response.stop_reason!r} "
                f"{verdict}.",
                "read response.stop_reason, not the text: only 'end_turn' means finished.",
            )
    # Two answers whose text misleads: a cut that happens to end a sentence, and a finished
    # answer without a full stop. Only stop_reason tells them apart.
    for text, stop_reason, expected in [
        ("An agent is a loop. The model reads the history and answers.", "max_tokens", False),
        ("1, 2, 3, 4, 5", "end_turn", True),
    ]:
        response = message_with(text, stop_reason)
        said = run_learner(is_complete, response, name="is_complete")
        if said is not expected:
            verdict = "finished" if said else "unfinished"
            fail(
                f"is_complete called {text!r} with stop_reason={stop_reason!r} {verdict}.",
                "the text cannot tell you: read response.stop_reason; only 'end_turn' means "
                "finished.",
            )
    passed("is_complete reads stop_reason")


def message_with(text: str, stop_reason: str) -> Any:
    """A response as the SDK gives it, with this text and stop_reason."""

    return anthropic.types.Message.model_validate(
        {
            "id": "msg_check",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 14},
        }
    )
