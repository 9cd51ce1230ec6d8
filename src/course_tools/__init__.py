"""Maintainer commands for the course's notebooks (not needed to follow the course).

- `python -m course_tools.execute_notebooks [NOTEBOOK ...]` (`make notebooks`): re-execute
  notebooks in place, reproducibly, against the offline course model.
- `python -m course_tools.make_exercises [--check]` (`make exercises`): generate the blank
  exercise notebooks from their solutions.
"""
