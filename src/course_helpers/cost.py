"""What an agent loop costs, and four ways to pay less (built in notebook 10).

Every call of the loop resends the whole history, so input tokens grow with every turn and the
total grows with the square of the number of turns. Four levers:

- **parallel tool calls**: fewer turns, so the history is resent fewer times. The model makes
  several calls in one turn unless its instructions or `disable_parallel_tool_use` forbid it;
  the loop answers them all in one message;
- **truncation**: a tool result is resent on every later turn; keeping it short saves it many
  times over (`run_agent(..., result_limit=1000)`, which cuts head and tail with
  `course_helpers.truncate`). Cutting blindly can lose what matters: `keep_what_matters` cuts a
  log by meaning instead;
- **prompt caching**: `with_cache()` puts `cache_control` breakpoints on the last tool, the end
  of the system prompt and the moving end of the conversation, so each call reads the previous
  call's prefix from the cache (`run_agent(..., prepare=with_cache)`). The documented price
  multipliers of base input tokens: a cache write costs 1.25 (5-minute lifetime) or 2
  (1-hour), a cache read 0.1;
- **a budget**: `Budget` is a terminal condition of the loop, like the step limit
  (`run_agent(..., budget=Budget(limit=40_000))`). It estimates the next call as the last one
  plus the growth between the last two, and stops before a call that would overspend.

Costs here are in *billed-equivalent input tokens*: what you pay, in units of one uncached input
token. Multiply by your model's price per input token to get money. Output tokens cost five
times an input token on the current Claude price lists (`OUTPUT_WEIGHT`); `billed` counts both.

The bottom of the module holds the long task notebook 10 and `benchmarks/loop_cost.py` measure:
auditing the delivery logs of last week's 22 shipments, with the team's handbook as the system
prompt (`HANDBOOK`), or with its first version, which asks for one log per turn
(`HANDBOOK_ONE_PER_TURN`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from course_helpers.loop import AgentRun
from course_helpers.tools import Tool, tool

# Prices relative to one base input token (Anthropic's prompt-caching documentation).
CACHE_WRITE_5M = 1.25
CACHE_WRITE_1H = 2.0
CACHE_READ = 0.1
# An output token costs five input tokens on the current Claude price lists.
OUTPUT_WEIGHT = 5.0


def as_usage(usage: Any) -> dict:
    """A usage as a plain dict: an SDK Usage, a Message (its usage) or a dict."""
    usage = getattr(usage, "usage", usage)
    if isinstance(usage, dict):
        return usage
    return usage.model_dump(exclude_none=True)


def prompt_tokens(usage: Any) -> int:
    """Every input token of a call, however it was billed: uncached + written + read."""
    u = as_usage(usage)
    return (
        u.get("input_tokens", 0)
        + (u.get("cache_creation_input_tokens") or 0)
        + (u.get("cache_read_input_tokens") or 0)
    )


def billed_input(usage: Any) -> float:
    """The input side of a call's bill, in base input tokens (the documented multipliers)."""
    u = as_usage(usage)
    written = u.get("cache_creation_input_tokens") or 0
    split = u.get("cache_creation") or {}
    written_1h = split.get("ephemeral_1h_input_tokens") or 0
    return (
        u.get("input_tokens", 0)
        + CACHE_WRITE_5M * (written - written_1h)
        + CACHE_WRITE_1H * written_1h
        + CACHE_READ * (u.get("cache_read_input_tokens") or 0)
    )


def billed(usage: Any, output_weight: float = OUTPUT_WEIGHT) -> float:
    """A call's whole bill in base input tokens: the input side plus weighted output tokens."""
    return billed_input(usage) + output_weight * as_usage(usage).get("output_tokens", 0)


def cache_floor(usages: list[Any]) -> float:
    """The least the input side of these calls could cost with caching.

    Every new token is written to the cache once (1.25) and every token the previous call
    already sent is read from it (0.1): the best any breakpoint placement can do.
    """
    total, previous = 0.0, 0
    for usage in usages:
        size = prompt_tokens(usage)
        total += CACHE_WRITE_5M * max(0, size - previous) + CACHE_READ * min(size, previous)
        previous = size
    return total


# ---------------------------------------------------------------------------------------------
# Prompt caching: where the breakpoints go.


def plain_block(block: Any) -> dict:
    """A content block as a dict without a cache_control marker (SDK objects are dumped)."""
    if not isinstance(block, dict):
        block = block.model_dump(mode="json", exclude_none=True)
    return {k: v for k, v in block.items() if k != "cache_control"}


def as_blocks(content: Any) -> list:
    """A message's content as a list (a string becomes one text block, so it never changes)."""
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def with_cache(request: dict, ttl: str | None = None) -> dict:
    """A copy of `request` with cache_control breakpoints where a loop needs them.

    1. the last tool (the tools never change during a run),
    2. the last block of the system prompt (neither does the system prompt),
    3. the last block of the last message: the moving end, so the next call reads all of it,
    4. the last block of the message before the previous assistant turn, which this call
       reads, in case the new turn holds more than the cache's 20-block lookback.

    Other markers in the request are removed, so there are never more than four. `ttl` "1h"
    asks for the 1-hour lifetime (writes cost 2 instead of 1.25).
    """
    marker = {"type": "ephemeral"} if ttl is None else {"type": "ephemeral", "ttl": ttl}
    request = dict(request)
    if request.get("tools"):
        tools = [{k: v for k, v in t.items() if k != "cache_control"} for t in request["tools"]]
        tools[-1]["cache_control"] = marker
        request["tools"] = tools
    if request.get("system"):
        system = [plain_block(b) for b in as_blocks(request["system"])]
        system[-1]["cache_control"] = marker
        request["system"] = system
    messages = [{**m, "content": as_blocks(m["content"])} for m in request["messages"]]
    ends = [len(messages) - 1, len(messages) - 3]
    for index in ends:
        if index < 0 or not messages[index]["content"]:
            continue
        content = [plain_block(b) for b in messages[index]["content"]]
        content[-1]["cache_control"] = marker
        messages[index] = {**messages[index], "content": content}
    for index, message in enumerate(messages):
        if index not in ends:
            message["content"] = [
                plain_block(b) if isinstance(b, dict) else b for b in message["content"]
            ]
    request["messages"] = messages
    return request


# ---------------------------------------------------------------------------------------------
# A budget as a terminal condition.


@dataclass
class Budget:
    """A spending limit for one run, in billed-equivalent tokens (see `billed`).

    Pass it as `run_agent(..., budget=Budget(limit=...))`: the loop calls it with the run
    before each call to the model. It adds up the bills so far and asks `allows_next()`. The
    history grows every turn, so the next call is estimated as the last one plus the growth
    between the last two; the run stops *before* a call that would overspend by that estimate.
    """

    limit: float
    output_weight: float = OUTPUT_WEIGHT
    spent: float = 0.0
    last: float = 0.0
    growth: float = 0.0
    calls: int = 0

    def __call__(self, run: AgentRun) -> str | None:
        """None while the next call fits in the budget; otherwise why the run must stop."""
        costs = [billed(usage, self.output_weight) for usage in run.usage]
        self.spent, self.calls = sum(costs), len(costs)
        self.last = costs[-1] if costs else 0.0
        self.growth = max(0.0, costs[-1] - costs[-2]) if len(costs) > 1 else 0.0
        return None if self.allows_next() else str(self)

    def allows_next(self) -> bool:
        return self.spent + self.last + self.growth <= self.limit

    def __str__(self) -> str:
        return (
            f"{self.spent:,.0f} of {self.limit:,.0f} billed-equivalent tokens spent "
            f"in {self.calls} calls"
        )


# ---------------------------------------------------------------------------------------------
# Reading the numbers.


def turns_table(usages: list[Any], rows: int | None = None) -> str:
    """One line per call: prompt size and how it was billed, output, and the call's bill.

    `billed in` is the input side (`billed_input`); `billed` adds the output (`billed`).
    """
    head = (
        f"{'turn':>4} {'prompt':>7} {'uncached':>8} {'written':>8} {'read':>7} "
        f"{'output':>6} {'billed in':>9} {'billed':>8}"
    )
    lines = [head]
    shown = list(enumerate(usages, 1))
    if rows is not None and len(shown) > rows:
        shown = shown[: rows // 2] + [(None, None)] + shown[-(rows - rows // 2) :]
    for turn, usage in shown:
        if usage is None:
            lines.append(f"{'...':>4}")
            continue
        u = as_usage(usage)
        lines.append(
            f"{turn:>4} {prompt_tokens(u):>7,} {u.get('input_tokens', 0):>8,} "
            f"{u.get('cache_creation_input_tokens') or 0:>8,} "
            f"{u.get('cache_read_input_tokens') or 0:>7,} {u.get('output_tokens', 0):>6,} "
            f"{billed_input(u):>9,.0f} {billed(u):>8,.0f}"
        )
    totals = [as_usage(u) for u in usages]
    lines.append(
        f"{'all':>4} {sum(prompt_tokens(u) for u in totals):>7,} "
        f"{sum(u.get('input_tokens', 0) for u in totals):>8,} "
        f"{sum(u.get('cache_creation_input_tokens') or 0 for u in totals):>8,} "
        f"{sum(u.get('cache_read_input_tokens') or 0 for u in totals):>7,} "
        f"{sum(u.get('output_tokens', 0) for u in totals):>6,} "
        f"{sum(billed_input(u) for u in totals):>9,.0f} {sum(billed(u) for u in totals):>8,.0f}"
    )
    return "\n".join(lines)


def _finish_plot(fig, left, right):
    """The look both plots share: turns on x, thousands separators, a legend on the left."""
    for ax in (left, right):
        ax.set_xlabel("turn (call to the model)")
        ax.spines[["top", "right"]].set_visible(False)
        ax.yaxis.set_major_formatter(lambda value, _: f"{value:,.0f}")
        ax.tick_params(labelsize=8)
    left.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


# One look per run, so that runs whose lines coincide (a cached run sends exactly what its
# uncached twin sends) stay visible: a dashed line with hollow markers over a solid one.
_STYLES = [
    {"linestyle": "-", "marker": "o"},
    {"linestyle": "--", "marker": "s", "markerfacecolor": "none", "markersize": 6},
    {"linestyle": ":", "marker": "^"},
    {"linestyle": "-.", "marker": "D", "markerfacecolor": "none", "markersize": 5},
    {"linestyle": "--", "marker": "v"},
    {"linestyle": ":", "marker": "x", "markersize": 5},
]


def plot_turns(runs: dict[str, list[Any]]):
    """Input tokens per turn (left) and the whole bill so far (right), one line per run.

    The bill counts input and output (`billed`). Returns the Figure (10 x 4 inches at 100 dpi:
    `<Figure size 1000x400 with 2 Axes>`).
    """
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), dpi=100)
    sent = [[prompt_tokens(u) for u in usages] for usages in runs.values()]
    for index, (name, usages) in enumerate(runs.items()):
        style = {"markersize": 3, **_STYLES[index % len(_STYLES)]}
        # A run that a later one lies on exactly (a cached run sends what its uncached twin
        # sends) is drawn wide and pale, so both lines stay visible.
        twinned = {"linewidth": 5, "alpha": 0.4} if sent[index] in sent[index + 1 :] else {}
        turns = range(1, len(usages) + 1)
        left.plot(turns, sent[index], label=name, **style, **twinned)
        running, total = [], 0.0
        for usage in usages:
            total += billed(usage)
            running.append(total)
        right.plot(turns, running, label=name, **style)
    left.set_title("input tokens sent in each call", fontsize=10)
    right.set_title("billed-equivalent tokens (input and output), running total", fontsize=10)
    return _finish_plot(fig, left, right)


def plot_cache(usages: list[Any]):
    """Each call's prompt split into uncached, written and read tokens, and its billed input.

    Returns the Figure (10 x 4 inches at 100 dpi: `<Figure size 1000x400 with 2 Axes>`).
    """
    import matplotlib.pyplot as plt

    rows = [as_usage(u) for u in usages]
    turns = list(range(1, len(rows) + 1))
    uncached = [u.get("input_tokens", 0) for u in rows]
    written = [u.get("cache_creation_input_tokens") or 0 for u in rows]
    read = [u.get("cache_read_input_tokens") or 0 for u in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), dpi=100)
    left.bar(turns, read, color="#55A868", label="read from cache (x0.1)")
    left.bar(turns, written, bottom=read, color="#DD8452", label="written to cache (x1.25)")
    stacked = [a + b for a, b in zip(read, written, strict=True)]
    left.bar(turns, uncached, bottom=stacked, color="#4C72B0", label="uncached (x1)")
    left.set_title("input tokens of each call, by how they are billed", fontsize=10)
    right.bar(turns, [billed_input(u) for u in rows], color="#8172B3")
    right.set_title("billed-equivalent input tokens of each call", fontsize=10)
    return _finish_plot(fig, left, right)


# ---------------------------------------------------------------------------------------------
# The long task: audit the delivery logs of last week's shipments, one log per turn.

SHIPMENTS = [f"A2{n:03d}" for n in range(1, 23)]
FAILED = {
    "A2005": "nobody at home, card left, parcel back at depot Leipzig",
    "A2013": "address not found, parcel back at depot Kassel",
    "A2019": "recipient refused the parcel (damaged box), return to sender started",
}
# Delivered in the end, but something went wrong on the way: one line in the middle of the log.
EXCEPTIONS = {
    "A2011": "parcel damaged in sorting at hub Kassel, box crushed, contents may be broken",
}
_HUBS = ["Leipzig", "Kassel", "Hannover", "Erfurt", "Dortmund", "Nuremberg"]
_EVENTS = [
    "label printed at Kettle & Co warehouse, bay {bay}, weight {kg} kg",
    "picked up by carrier, van {van}, driver code D{driver}",
    "arrived at hub {hub}, sorting belt {belt}, scan ok",
    "left hub {hub} on trailer T{van}{belt}, sealed, temperature log normal",
    "customs check not needed (domestic route), manifest line {bay}{belt}",
    "arrived at delivery depot {hub}, shelf {bay}-{belt}, scan ok",
    "loaded on delivery van {van}, stop {belt} of {stops} on today's route",
]


def delivery_log(order_id: str) -> str:
    """The carrier's log of one shipment: about 40 lines, the final status last.

    A shipment in EXCEPTIONS has one EXCEPTION line in the middle of its log.
    """
    key = order_id.strip().upper()
    if key not in SHIPMENTS:
        raise LookupError(f"No shipment {order_id!r} last week. See list_shipments.")
    seed = int(hashlib.sha256(key.encode()).hexdigest(), 16)
    lines = [f"Delivery log for {key} (carrier: DHL Parcel, service: standard, 1 parcel)"]
    for step in range(40):
        seed, pick = divmod(seed, 97)
        event = _EVENTS[step % len(_EVENTS)].format(
            bay=pick % 12 + 1,
            kg=round(0.4 + pick % 30 / 10, 1),
            van=pick % 40 + 10,
            driver=pick * 7 % 900 + 100,
            hub=_HUBS[pick % len(_HUBS)],
            belt=pick % 9 + 1,
            stops=pick % 50 + 60,
        )
        minutes = 7 * 60 + step % 10 * 70 + pick % 45  # ten scans a day, in order
        lines.append(f"day {step // 10 + 1} {minutes // 60:02d}:{minutes % 60:02d}  {key}  {event}")
        if step == 18 and key in EXCEPTIONS:
            stamp = lines[-1].split(f"  {key}  ")[0]
            lines.append(f"{stamp}  {key}  EXCEPTION: {EXCEPTIONS[key]}")
    if key in FAILED:
        lines.append(f"FINAL STATUS: delivery attempt failed: {FAILED[key]}")
    else:
        lines.append("FINAL STATUS: delivered, signed for at the front door")
    return "\n".join(lines)


def list_shipments(week: str) -> list[str]:
    """The order ids shipped in a week ('last' for last week), in shipping order."""
    if week.strip().lower() not in ("last", "last week"):
        raise ValueError("Only 'last' (last week) is available.")
    return list(SHIPMENTS)


def read_delivery_log(order_id: str) -> str:
    """The carrier's full delivery log of one shipment (about 40 lines); the final status is
    on the last line."""
    return delivery_log(order_id)


AUDIT_TOOLS: list[Tool] = [tool(list_shipments), tool(read_delivery_log)]


# The guard against blind truncation (notebook 10): where you know the format, cut by meaning.
def keep_what_matters(log: str, marks: tuple[str, ...] = ("EXCEPTION", "FINAL STATUS")) -> str:
    """A log shortened by meaning: its first line and every line holding one of `marks`.

    The routine scans in between are left out, and the result says how many, so the model
    knows it did not see everything. Unlike a cut by position, no marked line is ever lost.
    """
    lines = log.splitlines()
    kept = [line for line in lines[1:] if any(mark in line for mark in marks)]
    note = f"[{len(lines) - 1 - len(kept)} routine scan lines left out]"
    return "\n".join([lines[0], note, *kept])


AUDIT_TASK = (
    "Audit last week's shipments: read the delivery log of every order shipped last week and "
    "list the orders with a problem (a failed delivery attempt, or an exception on the way) "
    "and what happened to each one."
)

# The rule the handbook's first version had; many agent prompts have one like it.
ONE_PER_TURN_RULE = (
    "Read the logs one at a time: one log per turn, so that each log is checked before you move on."
)

HANDBOOK = """You are the logistics assistant of Kettle & Co, a small kitchenware shop that \
ships about a hundred parcels a week from one warehouse near Leipzig.

What you do. You audit shipments for the customer-care team. You read carrier logs, \
compare them with what the shop promised, and report problems so that a person can act on \
them: contact the customer, claim from the carrier, or send a replacement. You never contact \
customers yourself and you never promise refunds or replacements; you report.

Tools. list_shipments gives the order ids shipped in a week. read_delivery_log gives the \
carrier's log of one shipment: one line per scan, oldest first, and a FINAL STATUS line at the \
end. Logs are long and mostly routine; the final status line is what matters, and the lines \
just before it say where the parcel was last seen.

Reading a final status. "delivered" means the parcel reached the customer: nothing to report, \
unless the log has an EXCEPTION line. "delivery attempt failed" means the driver could not hand \
it over: report the order and the reason given. "lost in transit" appears when there has been \
no scan for ten days: report it as urgent. A status you do not recognise is reported as it is, \
with the order id.

Exceptions. An EXCEPTION line anywhere in a log (a damaged parcel, a customs hold, a wrong \
address corrected on the way) is reported even when the parcel was delivered in the end: the \
customer may have received a broken item.

Carriers. Standard parcels go with DHL Parcel; bulky items (pans, bread bins) with DPD; \
express orders with UPS. A failed attempt with DHL is retried the next working day unless the \
log says the parcel went back to the depot, in which case the customer must arrange a new \
delivery or pick it up within seven days, after which it is returned to us.

Reporting. Write one short report at the end, not a running commentary. Start with the number \
of logs you read. Then list every order with a problem on its own line: the order id, what \
happened, in the carrier's words where possible, and where the parcel is now. If every \
parcel was delivered, say so in one sentence. Do not list the delivered orders one by one. \
Do not guess: if a log could not be read, say which one and why.

Tone. The report is read by busy colleagues. Plain words, no tables, no headings, no \
exclamation marks. Numbers as digits. Order ids exactly as the tools give them.

Privacy. Logs can contain names and addresses of customers. Never copy a name, an address or \
a phone number into your report: the order id is enough for customer care to look them up.

Limits. You work in turns: each turn you may call tools or write the report. If a log is \
incomplete, read it again once before reporting it as unreadable. Stop and report as soon as \
every shipment of the week has been read. If you are told that your budget is spent, report \
what you found so far and name the shipments you did not read.

Depots. Failed parcels wait at the carrier's depot nearest to the customer. DHL depots \
(Leipzig, Kassel, Hannover, Erfurt, Dortmund, Nuremberg) are open on working days from 8:00 \
to 18:00 and on Saturdays until 13:00. DPD keeps parcels for five working days, UPS for \
three; after that the parcel comes back to us and the customer must order again or ask for a \
refund. Mention the depot when the log names it: customer care tells the customer where to go.

Claims. A parcel that is lost, or refused because the box was damaged, may be claimed from \
the carrier within 30 days of shipping. Customer care files the claim; your report gives them \
what they need: the order id, the carrier, what happened and the last scan. Refused parcels \
are also reported to the warehouse team, who check how that item was packed.

Examples of good report lines. "A1234: delivery attempt failed, nobody at home; parcel back \
at depot Kassel." "A1250: lost in transit, last scan at hub Erfurt nine days ago (urgent)." \
"Read 31 logs; every parcel was delivered."
"""

HANDBOOK_ONE_PER_TURN = f"{HANDBOOK}\n{ONE_PER_TURN_RULE}\n"
