"""Checks for notebook 06, Handle every stop reason.

Longer than most modules because each requirement below has a scenario of its own (a review
cut inside its call, a ceiling with no room, an essay cut every 64 tokens, a paused search, a
refusal and its rephrase) and a message for each way of getting it wrong.

What each check enforces (and `tests/exercise_variants/test_06_handle_every_stop_reason.py`
proves with wrong and right variants):

`check_recover_cut_off(recover_cut_off)`, the max_tokens policy for one response:
- cut-off text is kept: the assistant's whole content (thinking included) is appended, then a
  user message that asks the model to continue where it stopped, without repeating anything
  and without apologising (the wording is checked: a real model asked only to "continue" often
  does both; then the check asks the course model and fails if it starts the essay again); the
  next max_tokens is at least the same, at most the ceiling;
- text cut off at the ceiling is still kept and continued (each piece fits in the same room);
- a response cut off before any text (no content, or only thinking) is treated like a cut-off
  call: nothing appended, more room (it is never read by its last block);
- a cut-off tool_use is never appended; the next max_tokens is higher, but never above the
  ceiling (the model's maximum); at the ceiling already, the answer is None (stop).

`check_cut_offs(control)`, the controller as a wrapper of the loop's `sample` seam. Every run is
notebook 04's unchanged `agent_loop(control(sample, max_tokens=..., ceiling=...), run_tool,
messages, max_steps)`, where `sample` is notebook 04's `sampler` (no max_tokens of its own)
wrapped innermost by a counter that raises StepLimitReached once `max_steps` calls are made:
- every call goes through that `sample`, with a max_tokens; a controller that calls the model
  some other way fails;
- a cut-off call never runs, never reaches the history, and the turn is retried with more
  room; the loop then returns the review's final answer (end_turn);
- every assistant turn in the history is a response's content, whole (thinking included);
- no request asks for more than the ceiling (16,000 in the checks: a non-streaming request
  above about 21,000 is refused by the SDK itself, so the model's maximum, 128,000, is out of
  reach; a controller that jumps straight to the ceiling is fine); when no more room can be made the controller
  raises an `Ending` of kind "max_tokens" (notebook 06's CutOff) after two calls, and hands
  nothing to the loop;
- every call counts toward max_steps, retries included: with max_steps=1 and a cut-off first
  answer, one call, nothing run, and StepLimitReached reaches the loop's caller (a controller
  that catches it, to retry or to hand back the last answer, fails);
- cut-off text is continued: the answer's pieces, joined, are the essay, written once;
- what the caller passes to the controlled sample (`**changes`, e.g. `system=...`) reaches the
  request, with the controller's max_tokens.

`check_pause_and_refusal(control)`, the same runs: see `pause_and_refusal`.

The checks' code, one job a module:

- `essay`: what notebook 06's checks share: the essay and review tasks, the output ceiling, a limit
  that cuts a call.
- `recover`: exercise 06.1, `recover_cut_off`: cut-off text, a cut before any text, a cut-off tool
  call.
- `runs`: the runs exercise 06.2's checks watch: notebook 04's loop with the learner's control,
  counted.
- `cut_offs`: exercise 06.2, `check_cut_offs`: retries, their ceiling and count, text continued.
"""

from __future__ import annotations

from course_helpers.exercise_checks.stop_reasons.cut_offs import check_cut_offs
from course_helpers.exercise_checks.stop_reasons.essay import (
    CEILING,
    ESSAY,
    REVIEW,
    WEB_SEARCH,
    cutting_limit,
    whole_essay,
)
from course_helpers.exercise_checks.stop_reasons.recover import check_recover_cut_off
from course_helpers.exercise_checks.stop_reasons.runs import run_loop, run_review

__all__ = [
    "check_recover_cut_off",
    "check_cut_offs",
    "cutting_limit",
    "CEILING",
    "REVIEW",
    "WEB_SEARCH",
    "run_loop",
    "run_review",
    "whole_essay",
    "ESSAY",
]
