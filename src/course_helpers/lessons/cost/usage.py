"""Reading a call's `usage` (built in notebook 10, step 2): the course's one usage arithmetic.

A response's `usage` counts its input in three fields, by how it was billed: `input_tokens`
(uncached: the tokens after the last cache breakpoint), `cache_creation_input_tokens` (written
to the cache) and `cache_read_input_tokens` (read from it). Every input token of the call is
their sum, `prompt_tokens`. Everything else in the course that counts tokens (the loop's
`AgentRun`, the tables and plots, notebook 09's measurements, the workshop's cost) reads usage
through these two functions.
"""

from __future__ import annotations

from typing import Any

from course_helpers.lessons.pairing import read_field

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.cost.usage`. Edit those cells, then run `make promote`.


# From notebooks/10_count_the_cost.ipynb
def token_count(usage: Any, *path: str) -> int:
    """One count of a call's usage, 0 when it is absent: from a Usage, a Message or a dict.

    `path` names a field, or a field inside one:
    `token_count(usage, "cache_creation", "ephemeral_1h_input_tokens")`.
    """
    value = read_field(usage, "usage") or usage
    for name in path:
        value = read_field(value, name)
    return value or 0


def prompt_tokens(usage: Any) -> int:
    """Every input token of a call, however it was billed: uncached + written + read."""
    return (
        token_count(usage, "input_tokens")
        + token_count(usage, "cache_creation_input_tokens")
        + token_count(usage, "cache_read_input_tokens")
    )
