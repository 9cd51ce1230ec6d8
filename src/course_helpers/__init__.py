"""Helpers for the course "The Agent Loop, built step by step": what you build, and the course
machinery around it (this file is course machinery: it only hands out `make_client` and `MODEL`).

Two kinds of module live here, and each says which it is in its first lines.

What you build, each module saved from the notebook that teaches it (a test keeps every line
of the module identical to the notebook's cells):

    tools (02)      pairing (03)     loop (04)         dispatch (05)
    history, controller, agent (06)  approvals, paths (07)   coding_agent (08)
    workflows (09)  cost (10)

Course machinery, which the notebooks use and explain but you do not build: `client` (which
backend answers), `display`, `widgets` and `approval_widgets` (how histories and runs are
shown, and the buttons), `policies` (ready-made approval policies and the prompt a person
reads), `commands`, `bubblewrap`, `sandbox` and `truncate` (what keeps tools safe and short),
`checks` (the exercises' checks), `fixtures` (sample projects and data) and `offline` (the
course model).
"""

__all__ = ["MODEL", "banner", "detect_backend", "make_async_client", "make_client"]


def __getattr__(name: str):
    """`from course_helpers import make_client` works as usual, but the SDK (two seconds to
    import) is only loaded when one of these names is used: a process that needs only, say,
    `course_helpers.commands` starts fast."""
    if name in __all__:
        from course_helpers import client

        return getattr(client, name)
    raise AttributeError(f"module 'course_helpers' has no attribute {name!r}")
