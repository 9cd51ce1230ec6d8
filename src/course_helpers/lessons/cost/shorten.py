"""Shorten a log by meaning instead of by position (built in notebook 10, step 4).

Cutting a tool result by position (`course_helpers.plumbing.truncate`) can drop the one line that
matters when it sits in the middle. Where you know the format, keep the lines that carry
information and say how many were left out. The marks are the delivery logs' own words,
defined once in `course_helpers.fixtures.delivery_audit`.
"""

from __future__ import annotations

from course_helpers.fixtures.delivery_audit import EXCEPTION_MARK, FINAL_STATUS_MARK

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.cost.shorten`. Edit those cells, then run `make promote`.


# From notebooks/10_count_the_cost.ipynb
# The guard against blind truncation (notebook 10): where you know the format, cut by meaning.
def keep_what_matters(
    log: str, marks: tuple[str, ...] = (EXCEPTION_MARK, FINAL_STATUS_MARK)
) -> str:
    """A log shortened by meaning: its first line and every line holding one of `marks`.

    The routine scans in between are left out, and the result says how many, so the model
    knows it did not see everything. Unlike a cut by position, no marked line is ever lost.
    """
    lines = log.splitlines()
    kept = [line for line in lines[1:] if any(mark in line for mark in marks)]
    note = f"[{len(lines) - 1 - len(kept)} routine scan lines left out]"
    return "\n".join([lines[0], note, *kept])
