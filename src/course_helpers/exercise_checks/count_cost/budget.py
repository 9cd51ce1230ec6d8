"""Course machinery (exercise checks): exercise 10.2, `check_budget_loop`: a budget decided before
each call, several limits.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate
from typing import Any

import anthropic

from course_helpers.exercise_checks.common import (
    CheckFailed,
    fail,
    passed,
    recording_client,
    require_pairing,
    run_learner,
    short_repr,
)
from course_helpers.exercise_checks.count_cost.overspending import (
    _explain_overspending,
    _raw,
    _run_audit_plainly,
)

# -- 2. run_on_budget(client, messages, tools, *, system, limit, max_steps) -----------------


def check_budget_loop(run_on_budget: Callable) -> None:
    """10 · `run_on_budget(...)`: stop before the call that would overspend; history stays valid."""
    __tracebackhide__ = True
    from course_helpers.fixtures.delivery_audit import HANDBOOK_ONE_PER_TURN
    from course_helpers.lessons.cost import billed, billed_input

    # What each call of the whole audit costs, measured once without a budget.
    client, recorder = recording_client()
    _run_audit_plainly(client, HANDBOOK_ONE_PER_TURN)
    usages = [r["body"]["usage"] for r in recorder.responses]
    costs = [billed(u) for u in usages]
    totals = list(accumulate(costs))
    # The order matters for the hints: each wrong estimate first overspends at its own limit.
    # 2,500: the first call fits, the second would not (a test skipped before it overspends).
    for limit in (7_500, 22_000, 36_000, 12_000, 42_500, 95_000, 300_000, 2_500):
        client, recorder = recording_client()
        messages, ending = _audit_on_budget(run_on_budget, client, limit=limit)
        _sent_the_system(recorder.requests, HANDBOOK_ONE_PER_TURN, f"with limit={limit:,}")
        spent = sum(billed(r["body"]["usage"]) for r in recorder.responses)
        calls = len(recorder.requests)
        fits = sum(1 for total in totals if total <= limit)
        what = f"with limit={limit:,}"
        if spent > limit:
            made = [billed(r["body"]["usage"]) for r in recorder.responses]
            inputs = [billed_input(r["body"]["usage"]) for r in recorder.responses]
            raws = [_raw(r["body"]["usage"]) for r in recorder.responses]
            _explain_overspending(what, limit, made, inputs, raws)
        require_pairing(
            messages,
            f"{what} the run left a broken history",
            "stop between turns, after the results of the last call are appended.",
        )
        if fits == len(totals):
            if ending != "end_turn" or calls != len(totals):
                fail(
                    f"{what} the whole audit fits ({totals[-1]:,.0f}), but the run ended with "
                    f"{short_repr(ending)} after {calls} calls.",
                    "a budget only stops a run that would overspend; otherwise go on to end_turn.",
                )
            continue
        if ending != "budget_limit":
            fail(
                f"{what} the run ended with {short_repr(ending)}, not 'budget_limit'.",
                "return 'budget_limit' when the next call would not fit.",
            )
        if calls < fits - 1:
            fail(
                f"{what} the run stopped after {calls} calls ({spent:,.0f} spent), though "
                f"{fits} calls fit in the budget.",
                "estimate the next call from the last ones, not with a large safety margin.",
            )
    _check_step_limit(run_on_budget)
    _check_surprise_bill(run_on_budget)
    for reason in ("max_tokens", "refusal"):
        _check_other_stop(run_on_budget, reason)
    _check_parallel_calls(run_on_budget)
    passed("run_on_budget stops before the budget runs out")


def _audit_on_budget(run_on_budget: Callable, client: Any, **options: Any) -> tuple[list, Any]:
    """The learner's `run_on_budget` on the audit (one log a turn) through `client`: the
    history it left and what it returned."""
    from course_helpers.fixtures.delivery_audit import (
        AUDIT_TASK,
        AUDIT_TOOLS,
        HANDBOOK_ONE_PER_TURN,
    )

    messages = [{"role": "user", "content": AUDIT_TASK}]
    ending = run_learner(
        run_on_budget,
        client,
        messages,
        AUDIT_TOOLS,
        system=HANDBOOK_ONE_PER_TURN,
        name="run_on_budget",
        **options,
    )
    return messages, ending


def _sent_the_system(requests: list[dict], system: str, what: str) -> None:
    """Every request carries the system prompt the run was given (a string or text blocks)."""
    __tracebackhide__ = True
    for number, request in enumerate(requests, 1):
        sent = request.get("system")
        if isinstance(sent, list):
            sent = "".join(b.get("text", "") for b in sent if isinstance(b, dict))
        if not sent or system not in sent:
            fail(
                f"{what} call {number} of the run was sent "
                + ("without a system prompt" if not sent else "with another system prompt")
                + ": the handbook given as system= never reached the model, so the run and "
                "its bills are not the audit's.",
                "pass system=system to every call of the run (client.messages.create(..., "
                "system=system)).",
            )


class _SurpriseBill:
    """A client whose third answer is billed far above any estimate (a long answer)."""

    def __init__(self, client: anthropic.Anthropic) -> None:
        self._client, self.calls = client, 0
        self.messages = self

    def create(self, **request: Any) -> Any:
        response = self._client.messages.create(**request)
        self.calls += 1
        if self.calls == 3:
            response.usage.output_tokens *= 40
        return response

    def stream(self, **request: Any) -> Any:
        from course_helpers.exercise_checks.common import FinishedStream

        return FinishedStream(self.create(**request))


def _check_surprise_bill(run_on_budget: Callable) -> None:
    """A call dearer than its estimate overspends; the run still stops between turns."""
    __tracebackhide__ = True

    client, _ = recording_client()
    surprising = _SurpriseBill(client)
    messages, ending = _audit_on_budget(run_on_budget, surprising, limit=7_500)
    require_pairing(
        messages,
        "when a call cost far more than its estimate (its answer was much longer), the run "
        f"ended with {short_repr(ending)} and left a broken history",
        "once a call is made, append its results; the budget is decided before the next "
        "call, never between a call and its results.",
    )


def _check_step_limit(run_on_budget: Callable) -> None:
    """A budget that fits the whole audit, and max_steps=3: three calls, then 'step_limit'."""
    __tracebackhide__ = True

    client, recorder = recording_client()
    messages, ending = _audit_on_budget(run_on_budget, client, limit=300_000, max_steps=3)
    calls = len(recorder.requests)
    if calls != 3 or ending != "step_limit":
        fail(
            f"with max_steps=3 and room in the budget, the run made {calls} calls and ended with "
            f"{short_repr(ending)}; expected 3 calls, then 'step_limit'.",
            "count the calls: for _ in range(max_steps): ..., then return 'step_limit'.",
        )
    require_pairing(
        messages,
        "at the step limit the run left a broken history",
        "append the results of the last calls before you return 'step_limit'.",
    )


class _StopsWith(_SurpriseBill):
    """A client whose second answer stops with `reason`: a cut-off or refused text, no tool call."""

    def __init__(self, client: anthropic.Anthropic, reason: str) -> None:
        super().__init__(client)
        self.reason = reason

    def __getattr__(self, name: str) -> Any:  # client.models and the rest: the real client's
        return getattr(self._client, name)

    def create(self, **request: Any) -> Any:
        from anthropic.types import TextBlock

        response = self._client.messages.create(**request)
        self.calls += 1
        if self.calls != 2:
            return response
        text = "The audit so far: A2001 delivered, A2002" if self.reason == "max_tokens" else ""
        content = [TextBlock(type="text", text=text)] if text else []
        return response.model_copy(update={"stop_reason": self.reason, "content": content})


_STOPS = {
    "max_tokens": "its answer was cut off at max_tokens",
    "refusal": "the model refused to go on",
}


def _check_other_stop(run_on_budget: Callable, reason: str) -> None:
    """A stop that is neither tool_use nor end_turn comes back as it is."""
    __tracebackhide__ = True

    client, _ = recording_client()
    stopping = _StopsWith(client, reason)
    messages, ending = _audit_on_budget(run_on_budget, stopping, limit=300_000)
    # A run that stops there must say why; one that goes on (asks the model to continue,
    # as notebook 06's loop does after max_tokens) has handled the stop.
    if stopping.calls <= 2 and ending != reason:
        fail(
            f"when the second answer stopped with stop_reason={reason!r} ({_STOPS[reason]}), "
            f"the run ended with {short_repr(ending)} after {stopping.calls} calls; a run that "
            f"stops there returns {reason!r}.",
            "on any stop that is not 'tool_use', return response.stop_reason itself: the "
            "caller must tell an answer cut short or refused from a finished one.",
        )


def _check_parallel_calls(run_on_budget: Callable) -> None:
    """Without the one-call-a-turn rule the model calls several tools in a turn: one message."""
    __tracebackhide__ = True
    from course_helpers.fixtures.delivery_audit import AUDIT_TASK, AUDIT_TOOLS, HANDBOOK

    client, recorder = recording_client()
    messages = [{"role": "user", "content": AUDIT_TASK}]
    try:
        ending = run_learner(
            run_on_budget,
            client,
            messages,
            AUDIT_TOOLS,
            system=HANDBOOK,
            limit=10_000_000,
            name="run_on_budget",
        )
    except CheckFailed as error:
        refused = error  # a split turn is refused by the API: say why, below
        ending = None
    else:
        refused = None
    split = next(
        (
            i
            for i in range(1, len(messages))
            if _role(messages[i]) == _role(messages[i - 1]) == "user"
        ),
        None,
    )
    if split is not None:
        fail(
            f"when one turn called several tools, the run put their results in separate user "
            f"messages (messages[{split - 1}] and messages[{split}]): the API refuses a "
            "tool_result that does not answer the message just before it.",
            "append ONE user message per turn, holding every result of that turn: "
            "{'role': 'user', 'content': [dispatch(registry, b) for b in tool_use blocks]}.",
        )
    if refused is not None:
        raise refused
    require_pairing(
        messages,
        f"when one turn called several tools, the run ended with {short_repr(ending)} and left "
        "a broken history",
        "answer every tool_use of a turn in the one user message that follows it.",
    )


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", None)
