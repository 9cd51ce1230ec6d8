"""What does the reference agent loop pay for a long task, compared with a naive loop?

Usage: python benchmarks/loop_cost.py   (or `make bench`)

Both loops are the course's `run_agent` (`course_helpers.lessons.agent`) running the delivery audit of
notebook 10 (22 logs) on the offline course model, each from an empty prompt cache, and both are
counted with the course model's token estimates and the documented prices (cache writes 1.25,
reads 0.1 of a base input token, output tokens 5):

- naive: the handbook's first version, which asks for one log per turn (24 calls), tool results
  kept whole (up to the dispatcher's 4,000 characters), no `cache_control`;
- reference: the four levers of notebook 10: the handbook without that rule, so the model reads
  several logs per turn (parallel tool calls); logs shortened by meaning
  (`course_helpers.lessons.cost.shorten.keep_what_matters`, with `result_limit=1000` as a safety net);
  cache breakpoints on the tools, the system prompt and the moving end of the conversation
  (`prepare=course_helpers.lessons.cost.caching.with_cache`).

Prints the calls, tokens and bills of both, how far the reference's input is from the floor for
its own prompts (every new token written once, the rest read from the cache) and, last, the
ratio of the whole bills (input and output), reference / naive. The course aims at a ratio of at
most 0.10. Exits with status 1 if the two reports differ or the ratio misses the target.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace

TARGET = 0.10
RESULT_LIMIT = 1000


def fresh_client():
    """A client of a new offline course model: an empty prompt cache, whatever ran before."""
    os.environ["COURSE_BACKEND"] = "offline"  # the course model's accounting, even with a key
    from course_helpers import make_client
    from course_helpers.offline import reset

    reset()
    return make_client(quiet=True)


def measure(system: str, tools: list, **levers):
    from course_helpers.fixtures.delivery_audit import AUDIT_TASK
    from course_helpers.lessons.agent import run_agent

    messages = [{"role": "user", "content": AUDIT_TASK}]
    return run_agent(
        fresh_client(),
        messages=messages,
        tools=tools,
        system=system,
        max_steps=40,  # one log per turn takes 24 calls
        **levers,
    )


def main() -> int:
    from course_helpers.fixtures.delivery_audit import (
        AUDIT_TOOLS,
        HANDBOOK,
        HANDBOOK_ONE_PER_TURN,
        delivery_log,
    )
    from course_helpers.lessons.cost import (
        billed,
        billed_input,
        cache_floor,
        keep_what_matters,
        prompt_tokens,
        with_cache,
    )

    guarded = [
        t
        if t.name != "read_delivery_log"
        else replace(t, function=lambda order_id: keep_what_matters(delivery_log(order_id)))
        for t in AUDIT_TOOLS
    ]
    naive = measure(HANDBOOK_ONE_PER_TURN, AUDIT_TOOLS)
    reference = measure(HANDBOOK, guarded, result_limit=RESULT_LIMIT, prepare=with_cache)
    rows = {"naive loop": naive, "reference loop": reference}
    for name, run in rows.items():
        sent = sum(prompt_tokens(u) for u in run.usage)
        paid_in = sum(billed_input(u) for u in run.usage)
        paid = sum(billed(u) for u in run.usage)
        print(
            f"{name:15} {run.steps} calls ({run.ending}), {sent:,} input tokens sent, "
            f"{run.output_tokens:,} output; billed-equivalent tokens: input {paid_in:,.0f}, "
            f"whole bill {paid:,.0f}"
        )
    same = naive.final_text == reference.final_text
    print(f"same report from both loops: {'yes' if same else 'NO'}")
    paid_in = sum(billed_input(u) for u in reference.usage)
    floor = cache_floor(reference.usage)
    print(
        f"floor for the reference's prompts: {floor:,.0f} billed-equivalent input tokens; "
        f"the reference is {paid_in - floor:+,.0f} ({paid_in / floor - 1:+.1%}) from it"
    )
    input_ratio = paid_in / sum(billed_input(u) for u in naive.usage)
    print(f"input only, reference / naive: {input_ratio:.3f}")
    ratio = sum(billed(u) for u in reference.usage) / sum(billed(u) for u in naive.usage)
    print(
        f"ratio reference / naive: {ratio:.3f} (whole bill, output included; target: at most {TARGET})"
    )
    return 0 if same and ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
