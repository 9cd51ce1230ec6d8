"""Course machinery (offline course model): a long run for notebook 10: audit the delivery logs of
last week's shipments.

Offered tools named `list_shipments` and `read_delivery_log`, the model lists the week's
shipments, then reads the logs and finally reports every order whose log shows a problem: a
final status of a failed delivery attempt, or an `EXCEPTION` line anywhere in the log (a parcel
damaged on the way, say, even if it was delivered in the end).

How many logs it reads per turn follows the request, as a real model follows its instructions:

- parallel tool calls allowed (the default): up to `PARALLEL_READS` logs in one turn, several
  `tool_use` blocks in one response (a week of 22 shipments takes 5 calls);
- a system prompt that asks for one log per turn, or `disable_parallel_tool_use`: one log a turn
  (22 shipments take 24 calls).

It reports only what it was sent: a log cut short in the middle may have lost its `EXCEPTION`
line (then that order is missing from the report); an `is_error` result is reported as
unreadable; an order id it cannot find in the listing is never invented.
"""

from __future__ import annotations

import re

from course_helpers.fixtures.delivery_audit import EXCEPTION_MARK, FAILED_STATUS, ORDER_ID
from course_helpers.offline.conversation import Conversation
from course_helpers.offline.policy import Reply, say, scenario, text, tool_use

# The most logs the course model reads in one turn when parallel calls are allowed.
PARALLEL_READS = 8

# The logs' own words, from the fixture that writes them: what each line says follows them.
_FAILED = re.compile(re.escape(FAILED_STATUS) + r":?\s*(.*)", re.IGNORECASE)
_EXCEPTION = re.compile(re.escape(EXCEPTION_MARK) + r":?\s*(.*)")
_ONE_PER_TURN = re.compile(
    r"\bone (?:log|shipment|order|tool call|call) (?:per|a|each) turn\b|\bone at a time\b",
    re.IGNORECASE,
)


@scenario(
    "delivery_audit",
    "Audit delivery logs with tools named list_shipments and read_delivery_log: 'Audit last "
    "week's shipments.' (reads several logs per turn, or one if told to: notebook 10)",
    priority=36,
)
def delivery_audit(conv: Conversation) -> Reply | None:
    if not conv.offers("list_shipments", "read_delivery_log") or conv.forced_tool:
        return None
    listings = [c for c in conv.calls_to("list_shipments") if c.result and not c.is_error]
    if not listings:
        if conv.calls_to("list_shipments") and all(
            c.is_error for c in conv.calls_to("list_shipments")
        ):
            error = conv.calls_to("list_shipments")[-1].result or ""
            return say(f"I could not list last week's shipments ({error.strip()[:200]}).")
        week = conv.argument_for("list_shipments", ("week",))
        return Reply(
            [
                text("First, the list of last week's shipments."),
                tool_use("list_shipments", **{week: "last"}),
            ]
        )
    shipped = list(dict.fromkeys(ORDER_ID.findall(listings[-1].result or "")))
    logs = {}
    for call in conv.calls_to("read_delivery_log"):
        if call.result is not None:
            order_id = str(next(iter(call.input.values()), "")).strip().upper()
            logs[order_id] = call
    waiting = [o for o in shipped if o not in logs]
    told_to_stop = "budget" in conv.person_text.lower() and not conv.ends_with_results
    if waiting and conv.tools_allowed and not told_to_stop:
        order_arg = conv.argument_for("read_delivery_log", ("order_id",))
        one_per_turn = _ONE_PER_TURN.search(conv.system) or not conv.parallel_allowed
        batch = waiting[: 1 if one_per_turn else PARALLEL_READS]
        first = len(shipped) - len(waiting) + 1
        said = (
            f"Log {first} of {len(shipped)}: {batch[0]}."
            if len(batch) == 1
            else f"Logs {first} to {first + len(batch) - 1} of {len(shipped)}, in parallel."
        )
        calls = [tool_use("read_delivery_log", **{order_arg: order_id}) for order_id in batch]
        return Reply([text(said), *calls])
    return say(_report(shipped, logs))


def _report(shipped: list[str], logs: dict) -> str:
    read = [o for o in shipped if o in logs and not logs[o].is_error]
    lines = [f"I read {len(read)} of {len(shipped)} delivery logs."]
    problems = 0
    for order_id in shipped:
        call = logs.get(order_id)
        if call is None:
            continue
        if call.is_error:
            problems += 1
            error = (call.result or "").strip()[:120]
            lines.append(f"{order_id}: the log could not be read ({error}).")
            continue
        found, exception = _FAILED.search(call.result or ""), _EXCEPTION.search(call.result or "")
        if found:
            problems += 1
            lines.append(f"{order_id}: delivery attempt failed, {found.group(1).strip()}.")
        elif exception:
            problems += 1
            lines.append(
                f"{order_id}: delivered, but the log records an exception: "
                f"{exception.group(1).strip().rstrip('.')}."
            )
    if not problems:
        lines.append("Every parcel I read about was delivered.")
    unread = [o for o in shipped if o not in logs]
    if unread:
        lines.append(f"Not read, so not checked: {', '.join(unread)}.")
    return "\n".join(lines)
