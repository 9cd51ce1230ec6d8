"""Way 4 of notebook 09: the agent. The loop from notebook 04 with the desk's four operations
as tools; the model picks every lookup and decides when it is done. Its budget is the workflows'
(`MAX_CALLS` model calls, `MAX_TOKENS` a call) under the workflows' rules for a call: no retry,
no larger `max_tokens`, no continuation. A run that ends on a guard (the call cap, a cut-off, an
error) is handed to a person, never sent half-finished."""

from __future__ import annotations

from typing import Any

import anthropic

from course_helpers.client import MODEL
from course_helpers.fixtures.support_desk import Desk
from course_helpers.lessons.agent import run_agent
from course_helpers.lessons.controller import APIFailed, CutOff
from course_helpers.lessons.pairing import content_blocks, read_field
from course_helpers.lessons.workflows.steps import ESCALATION, MAX_CALLS, MAX_TOKENS, Attempt

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.workflows.agent`. Edit those cells, then run `make promote`.


# From notebooks/09_choose_workflow_or_agent.ipynb
AGENT_SYSTEM = (
    "You are the support agent of Kettle & Co, a kitchenware shop. Answer the customer's "
    "ticket. Use the tools to find the facts: never guess an order's status or a tracking "
    "number. Before you refund anything, read the refund policy in the help centre and follow "
    "it; the refund tool applies the same rules and says why it refuses. When you are done, "
    "write the reply to the customer, brief and friendly, signed Kettle & Co support."
)


# From notebooks/09_choose_workflow_or_agent.ipynb
def as_workflows_do(sample: Any) -> Any:
    """Each call under the workflows' rules (`create`): an API error, or an answer cut off at
    `max_tokens`, ends the run. The controller of notebook 06 would retry the one and raise
    `max_tokens` for the other; here no approach gets a second try the others do not."""

    def sample_once(messages: list, **request: Any) -> Any:
        try:
            response = sample(messages, **request)
        except anthropic.APIStatusError as error:
            raise APIFailed(f"API error ({type(error).__name__})") from error
        if response.stop_reason == "max_tokens":
            raise CutOff(f"cut off at max_tokens {request.get('max_tokens')}")
        return response

    return sample_once


def run_support_agent(
    client: anthropic.Anthropic,
    desk: Desk,
    ticket: str,
    model: str = MODEL,
    max_calls: int = MAX_CALLS,
    approve: Any = None,
) -> Attempt:
    """The loop from notebook 04 with the desk's tools; the model picks the path."""
    run = run_agent(
        client,
        messages=[{"role": "user", "content": ticket}],
        tools=desk.tools(),
        system=AGENT_SYSTEM,
        model=model,
        max_tokens=MAX_TOKENS,
        max_tokens_ceiling=MAX_TOKENS,  # never raised
        max_steps=max_calls,  # run_agent counts every call to the model as a step
        approve=approve,
        wrap_sample=as_workflows_do,
    )
    # Each turn's calls, and for a call that failed (a refused refund, say) the tool's reason.
    failed = {
        read_field(b, "tool_use_id"): str(read_field(b, "content"))
        for m in run.messages
        for b in content_blocks(m)
        if read_field(b, "type") == "tool_result" and read_field(b, "is_error")
    }
    turns = [
        [
            f"{read_field(b, 'name')}({', '.join(map(str, read_field(b, 'input').values()))})"
            + (f" ✗ {failed[read_field(b, 'id')]}" if read_field(b, "id") in failed else "")
            for b in content_blocks(m)
            if read_field(b, "type") == "tool_use"
        ]
        for m in run.messages
        if read_field(m, "role") == "assistant"
    ]
    calls = [" + ".join(turn) for turn in turns if turn]  # one line a turn: calls sent together
    done = run.ending == "end_turn"
    reply = run.final_text if done else ESCALATION
    trace = [*calls, f"ended: {run.ending}" + ("" if done else ", passed to a person")]
    capped = run.ending in ("step_limit", "max_tokens")
    return Attempt(reply, run.usage, trace, max_calls=max_calls, capped=capped)
