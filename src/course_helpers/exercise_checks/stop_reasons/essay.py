"""Course machinery (exercise checks): what notebook 06's checks share: the essay and review tasks,
the output ceiling, a limit that cuts a call.
"""

from __future__ import annotations

from typing import Any

from course_helpers.client import MODEL
from course_helpers.exercise_checks.common import (
    max_output_tokens,
    recording_client,
    reviewer_kit,
    text_of,
)

WEB_SEARCH = {"type": "web_search_20260318", "name": "web_search"}
ESSAY = "Write a long essay about agents."
REVIEW = "Review PR #482."
# The largest max_tokens a run asks for: the model's maximum (128,000) is out of reach of a
# non-streaming request, which the SDK refuses above about 21,000 (ValueError: streaming is
# required), so the checks, like the exercise, stop at 16,000. Some checks pretend it is smaller.
NON_STREAMING_LIMIT = 16_000
CEILING = min(max_output_tokens(), NON_STREAMING_LIMIT)
# An answer that opens with a thinking block, whatever the model does by default.
THINKING = {"type": "adaptive"}


def _ask(client: Any, text: str, **options: Any) -> Any:
    request = {"model": MODEL, "max_tokens": 1024, **options}
    return client.messages.create(messages=[{"role": "user", "content": text}], **request)


def _definitions() -> list[dict]:
    kit = reviewer_kit()
    kit.close()
    return [t.definition() for t in kit.tools.values()]


def _calls(response: Any) -> list[Any]:
    return [b for b in response.content if b.type == "tool_use"]


def cutting_limit(definitions: list[dict]) -> tuple[int, Any]:
    """A max_tokens that cuts the review's first answer inside its tool_use.

    Preferably where the call's input is half-written ({"pr": 4}): the most dangerous cut.
    """
    client, _ = recording_client()
    found = []
    for limit in range(1, 400):
        response = _ask(client, REVIEW, max_tokens=limit, tools=definitions)
        if response.stop_reason != "max_tokens" and found:
            break
        if response.stop_reason == "max_tokens" and _calls(response):
            found.append((limit, response))
            if _calls(response)[0].input not in ({}, {"pr": 482}):
                return limit, response
    if not found:
        raise RuntimeError("the course model never cut the review inside its tool_use")
    return found[0]


def whole_essay() -> str:
    client, _ = recording_client()
    return text_of(_ask(client, ESSAY, max_tokens=8192).content)
