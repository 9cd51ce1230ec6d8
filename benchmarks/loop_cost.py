"""What does the reference agent loop pay for a long task, compared with a naive loop?

Usage: python benchmarks/loop_cost.py   (or `make bench`)

Both loops are the course's `run_agent` (`course_helpers.loop`) running the delivery audit of
notebook 10 (22 logs, one per turn: 24 calls) on the offline course model, each from an empty
prompt cache, and both are counted with the course model's token estimates and the documented
prices (cache writes 1.25, reads 0.1 of a base input token):

- naive: tool results kept whole (up to the dispatcher's 4,000 characters), no `cache_control`;
- reference: tool results truncated to 1,000 characters (head and tail) and cache breakpoints
  on the tools, the system prompt and the moving end of the conversation
  (`run_agent(..., result_limit=1000, prepare=course_helpers.cost.with_cache)`).

Prints the billed-equivalent input tokens of both, how far the reference is from the floor for
its own prompts (every new token written once, the rest read from the cache) and, last, the ratio
reference / naive. The course aims at a ratio of at most 0.35. Exits with status 1 if the two
reports differ or the ratio misses the target.
"""

from __future__ import annotations

import os
import sys

TARGET = 0.35
RESULT_LIMIT = 1000


def fresh_client():
    """A client of a new offline course model: an empty prompt cache, whatever ran before."""
    os.environ["COURSE_BACKEND"] = "offline"  # the course model's accounting, even with a key
    from course_helpers import make_client
    from course_helpers.offline import reset

    reset()
    return make_client(quiet=True)


def measure(**levers):
    from course_helpers.cost import AUDIT_TASK, AUDIT_TOOLS, HANDBOOK
    from course_helpers.loop import run_agent

    messages = [{"role": "user", "content": AUDIT_TASK}]
    return run_agent(
        fresh_client(),
        messages=messages,
        tools=AUDIT_TOOLS,
        system=HANDBOOK,
        max_steps=40,  # the audit takes 24 calls
        **levers,
    )


def main() -> int:
    from course_helpers.cost import billed_input, cache_floor, prompt_tokens, with_cache

    naive = measure()
    reference = measure(result_limit=RESULT_LIMIT, prepare=with_cache)
    rows = {"naive loop": naive, "reference loop": reference}
    for name, run in rows.items():
        sent = sum(prompt_tokens(u) for u in run.usage)
        paid = sum(billed_input(u) for u in run.usage)
        print(
            f"{name:15} {run.steps} calls ({run.ending}), {sent:,} input tokens sent, "
            f"billed-equivalent input tokens: {paid:,.0f}"
        )
    naive_paid = sum(billed_input(u) for u in naive.usage)
    paid = sum(billed_input(u) for u in reference.usage)
    floor = cache_floor(reference.usage)
    same = naive.final_text == reference.final_text
    print(f"same report from both loops: {'yes' if same else 'NO'}")
    print(
        f"floor for the reference's prompts: {floor:,.0f} billed-equivalent input tokens; "
        f"the reference is {paid - floor:+,.0f} ({paid / floor - 1:+.1%}) from it"
    )
    ratio = paid / naive_paid
    print(f"ratio reference / naive: {ratio:.3f} (target: at most {TARGET})")
    return 0 if same and ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
