"""Helpers for the course "The Agent Loop, built step by step".

Two kinds of code live here, apart by folder:

    lessons/          what you build: each module written from the notebook cells marked
                      `# Saved in course_helpers.lessons.<module>` (run `make promote`)

    everything else   course machinery, which the notebooks use and explain but you do not build:
      client            which backend answers, and the model id (this file hands it out)
      offline/          the course model: a local stand-in for the Messages API
      exercise_checks/  the exercise notebooks' automatic checks
      display/          transcripts of histories and runs
      widgets/          the loop stepper and the approval buttons
      approvers         ready-made approval policies, and what a person reads before saying yes
      plumbing/         commands, the file and command sandboxes, git on the host, truncation
      support/          small parts the code you build imports (result wording, pairing rules)
      measurement/      notebooks 09 and 10's harness, tables and charts
      fixtures/         sample projects and data the agents work on
"""

__all__ = ["MODEL", "banner", "detect_backend", "make_async_client", "make_client"]


def __getattr__(name: str):
    """`from course_helpers import make_client` works as usual, but the SDK (two seconds to
    import) is only loaded when one of these names is used: a process that needs only, say,
    `course_helpers.plumbing.commands` starts fast."""
    if name in __all__:
        from course_helpers import client

        return getattr(client, name)
    raise AttributeError(f"module 'course_helpers' has no attribute {name!r}")
