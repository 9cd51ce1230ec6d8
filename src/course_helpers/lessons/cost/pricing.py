"""What a call costs, in billed-equivalent input tokens (built in notebook 10, steps 5 and 6).

A billed-equivalent token is what you pay, in units of one uncached input token: multiply by
your model's price per input token to get money. The multipliers are the documented ones:
a cache write costs 1.25 (5-minute lifetime) or 2 (1-hour), a cache read 0.1, and an output
token five input tokens on the current Claude price lists.
"""

from __future__ import annotations

from typing import Any

from course_helpers.lessons.cost.usage import prompt_tokens, token_count

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.cost.pricing`. Edit those cells, then run `make promote`.


# From notebooks/10_count_the_cost.ipynb
# Prices relative to one base input token (Anthropic's prompt-caching documentation).
CACHE_WRITE_5M = 1.25
CACHE_WRITE_1H = 2.0
CACHE_READ = 0.1
# An output token costs five input tokens on the current Claude price lists.
OUTPUT_WEIGHT = 5.0


def billed_input(usage: Any) -> float:
    """The input side of a call's bill, in base input tokens (the documented multipliers)."""
    written = token_count(usage, "cache_creation_input_tokens")
    written_1h = token_count(usage, "cache_creation", "ephemeral_1h_input_tokens")
    return (
        token_count(usage, "input_tokens")
        + CACHE_WRITE_5M * (written - written_1h)
        + CACHE_WRITE_1H * written_1h
        + CACHE_READ * token_count(usage, "cache_read_input_tokens")
    )


def billed(usage: Any, output_weight: float = OUTPUT_WEIGHT) -> float:
    """A call's whole bill in base input tokens: the input side plus weighted output tokens."""
    return billed_input(usage) + output_weight * token_count(usage, "output_tokens")


# From notebooks/10_count_the_cost.ipynb
def cache_floor(usages: list[Any]) -> float:
    """The least the input side of these calls could cost when every call caches what it adds.

    Every new token is written to the cache once (1.25) and every token the previous call
    already sent is read from it (0.1): the best a breakpoint at the end of every call can do.
    (Leaving the last call unmarked would bill its new tokens at 1, but a loop cannot know
    which call is its last.)
    """
    total, previous = 0.0, 0
    for usage in usages:
        size = prompt_tokens(usage)
        total += CACHE_WRITE_5M * max(0, size - previous) + CACHE_READ * min(size, previous)
        previous = size
    return total
