"""What you build in the lessons: every module here is written from the notebooks.

Each module collects the cells of one or two notebooks whose first line is
`# Saved in course_helpers.lessons.<module>`, in notebook order, below a short preamble
(docstring and imports). `make promote` writes them; `tests/test_promotion.py` fails when a
module differs from what the notebooks say. Edit the notebook cell, then run `make promote`.

    tools (02)        pairing (03)       loop (04)          dispatch (05)
    controller, history, agent (06)      gate, path_guard (07)
    coding_agent (08) workflows (09)     cost (10)
    mcp_server, mcp_tools (11)

Everything outside this folder is course machinery: the notebooks use it and explain it, but you
do not build it.
"""
