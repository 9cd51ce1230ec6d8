"""The instructor's measuring tools: the workshop cost and the reading time of a notebook."""

from __future__ import annotations

from pathlib import Path

import nbformat

from course_tools import reading_time, workshop_cost


def notebook(path: Path, *cells: nbformat.NotebookNode) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    nbformat.write(nb, path)
    return path


def test_the_cost_counts_the_learners_calls_and_not_the_checks(tmp_path: Path) -> None:
    code = nbformat.v4.new_code_cell
    path = notebook(
        tmp_path / "lesson.ipynb",
        code(
            "from course_helpers import MODEL, make_client\n"
            "from course_helpers.exercise_checks import check_is_complete\n"
            "client = make_client(quiet=True)\n"
            "ask = [{'role': 'user', 'content': 'Hello!'}]\n"
            "first = client.messages.create(model=MODEL, max_tokens=100, messages=ask)\n"
            "second = client.messages.create(model=MODEL, max_tokens=100, messages=ask)"
        ),
        # The check makes calls of its own, to the offline course model: never billed.
        code("check_is_complete(lambda response: response.stop_reason == 'end_turn')"),
        code("print(first.usage.input_tokens, first.usage.output_tokens)"),
    )
    usage = workshop_cost.measure(path, "claude-sonnet-5-5")
    assert not usage.failure
    assert usage.calls == 2
    assert usage.input > 0 and usage.output > 0
    expected = (usage.input * 2.00 + usage.output * 10.00) / 1_000_000
    assert abs(usage.price("claude-sonnet-5-5") - expected) < 1e-12
    # The ceiling: what the same calls could write, thinking included, up to their max_tokens.
    assert usage.ceiling == 200
    assert usage.worst_case == usage.input + 200
    at_ceiling = (usage.input * 2.00 + 200 * 10.00) / 1_000_000
    assert abs(usage.price("claude-sonnet-5-5", output=usage.ceiling) - at_ceiling) < 1e-12


def test_a_broken_notebook_is_reported_with_what_it_used_before(tmp_path: Path) -> None:
    code = nbformat.v4.new_code_cell
    path = notebook(
        tmp_path / "broken.ipynb",
        code(
            "from course_helpers import MODEL, make_client\n"
            "make_client(quiet=True).messages.create(model=MODEL, max_tokens=50,"
            " messages=[{'role': 'user', 'content': 'Hello!'}])"
        ),
        code("raise ValueError('a broken cell')"),
    )
    usage = workshop_cost.measure(path, "claude-sonnet-5-5")
    assert usage.calls == 1
    assert usage.failure.startswith("ValueError: a broken cell")


def test_reading_time_counts_prose_words_and_code_lines(tmp_path: Path) -> None:
    path = notebook(
        tmp_path / "n.ipynb",
        nbformat.v4.new_markdown_cell("# Make a call\n\nYou send one request."),
        nbformat.v4.new_code_cell("# a comment is not code\nx = 1\n\ny = 2"),
    )
    assert reading_time.counts(path) == (7, 2)
    assert reading_time.minutes(150, 8) == 2
    assert reading_time.minutes(151, 8) == 3, "a started minute counts"
