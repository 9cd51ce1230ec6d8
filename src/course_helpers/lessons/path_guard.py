"""The path guard: two checks every path from the model goes through (built in notebook 07).

A path in a tool call is written by the model, so it is untrusted input. `climbs_out` refuses
a path whose `..` parts, read as written, go above the project folder; `is_inside` checks the
real path (every symbolic link followed) on whole path components. The course's `FileSandbox`
(`course_helpers.plumbing.file_sandbox`, course machinery) runs both, and adds what a file tool needs besides.
"""

from __future__ import annotations

import os

# ---- Everything below is written by `make promote` from the notebook cells marked
# ---- `# Saved in course_helpers.lessons.path_guard`. Edit those cells, then run `make promote`.


# From notebooks/07_guard_dangerous_tools.ipynb
def climbs_out(path: str) -> bool:
    """True if the `..` parts of the path, read as written, go above the starting folder.

    This catches `a/../../x` even when it would land back inside (`../project/x`): a path
    that leaves the folder is refused however it continues, which keeps the rule simple.
    """
    depth = 0
    for part in path.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def is_inside(real: str, root: str) -> bool:
    """Containment on whole path components: /srv/app2 is not inside /srv/app."""
    return os.path.commonpath([real, root]) == root
