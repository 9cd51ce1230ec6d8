"""`policy.scripted`: one fixed reply for a demo, and the lesson that shows it says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from course_helpers.offline import CourseModelApp, policy, scenarios

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LABELS = ("scripted", "заданный сценарием", "задан сценарием")  # docs/glossary-ru.md


def unlabelled(scripts: dict[str, str], folder: Path) -> list[str]:
    """The scripted questions whose notebook does not say, in a markdown cell, that a reply is
    scripted (or that has no notebook at all)."""
    missing = []
    for question, notebook in sorted(scripts.items()):
        found = sorted(folder.glob(f"{notebook}*.ipynb"))
        cells = [
            "".join(cell["source"])
            for path in found
            for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
            if cell["cell_type"] == "markdown"
        ]
        if not any(label in text.lower() for text in cells for label in LABELS):
            missing.append(f"{question!r} (notebook {notebook})")
    return missing


@pytest.fixture
def demo():
    before = list(policy.SCENARIOS), dict(policy.SCRIPTED)
    scenarios.registered()
    policy.scripted("Name one planet.", "Mars.", notebook="99_demo")
    yield
    policy.SCENARIOS[:] = before[0]
    policy.SCRIPTED.clear()
    policy.SCRIPTED.update(before[1])


def _ask(question: str, **extra) -> str:
    client = CourseModelApp().client(max_retries=0)
    message = client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        messages=[{"role": "user", "content": question}],
        **extra,
    )
    return "".join(b.text for b in message.content if b.type == "text")


def test_a_scripted_question_gets_its_fixed_reply(demo):
    assert _ask("name one  planet") == "Mars."
    assert _ask("Name one planet, please.") != "Mars."  # only the exact question
    assert "Mars." not in scenarios.catalogue()


def test_the_label_check_finds_a_lesson_that_does_not_say_so(demo, tmp_path):
    lesson = {"cells": [{"cell_type": "markdown", "source": ["The model answers Mars."]}]}
    (tmp_path / "99_demo.ipynb").write_text(json.dumps(lesson), encoding="utf-8")
    assert unlabelled(policy.SCRIPTED, tmp_path) == ["'name one planet' (notebook 99_demo)"]
    lesson["cells"][0]["source"] = ["Offline, this reply is scripted: a fixed text."]
    (tmp_path / "99_demo.ipynb").write_text(json.dumps(lesson), encoding="utf-8")
    assert unlabelled(policy.SCRIPTED, tmp_path) == []


def test_every_scripted_reply_is_labelled_in_its_lesson():
    scenarios.registered()
    for folder in (NOTEBOOKS, NOTEBOOKS / "ru"):
        assert unlabelled(policy.SCRIPTED, folder) == [], (
            "say in the lesson that this reply is scripted (a markdown cell with 'scripted')"
        )
