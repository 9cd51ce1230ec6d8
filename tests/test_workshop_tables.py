"""The workshop guide's tables and plans agree with the scripts that measure the course.

`python -m course_tools.workshop_tables` writes the reading-time table, the three plans and the
cost table into docs/workshop.md from `reading_time` and `workshop_cost`. These tests fail when
the guide says something else: after a notebook changed, run the command again.
"""

from __future__ import annotations

import math
import re

import pytest
from nbval_cost import measure_like_nbval

from course_tools import execute_notebooks as executor
from course_tools import reading_time, workshop_cost, workshop_tables
from course_tools.workshop_tables import EXERCISES, GUIDE, PLANS, Pause, Plan, Teach

GUIDE_TEXT = GUIDE.read_text(encoding="utf-8")


def guide_section(name: str) -> str:
    return workshop_tables.section(GUIDE_TEXT, name).group(2).rstrip("\n")


def table_rows(text: str) -> list[list[str]]:
    """The cells of a markdown table's body rows."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def guide_reading_times() -> dict[str, tuple[int, int, int, int, int]]:
    """{"03": (lesson, exercises read, exercises written, alone, in the room)} from the guide."""
    found = {}
    for cells in table_rows(guide_section("reading-time")):
        numbers = [0 if cell == "–" else int(cell) for cell in cells[1:]]
        found[cells[0][:2]] = tuple(numbers)
    return found


def test_the_reading_table_and_the_plans_match_the_scripts():
    try:
        sections = workshop_tables.generated(with_cost=False)
    except workshop_tables.PlanDoesNotFit as problem:  # says which exercise to move
        pytest.fail(f"a plan no longer fits its day:\n{problem}")
    for name, content in sections.items():
        assert guide_section(name) == content, (
            f"docs/workshop.md's '{name}' differs from the scripts: run "
            "python -m course_tools.workshop_tables --no-cost"
        )


def test_the_in_the_room_rule_holds_in_every_row():
    rows = guide_reading_times()
    assert sorted(rows) == sorted(stem[:2] for stem in reading_time.lesson_minutes())
    for lesson, (reading, exercise_reading, writing, alone, room) in rows.items():
        assert alone == reading + exercise_reading + writing, lesson
        expected = 5 * math.ceil(round(0.4 * reading + exercise_reading + writing, 6) / 5)
        assert room == expected, f"{lesson}: in the room {room}, the rule gives {expected}"


def test_the_guides_reading_times_are_what_the_script_measures():
    measured = reading_time.lesson_minutes()
    for lesson, (reading, exercise_reading, *_) in guide_reading_times().items():
        [(stem, (minutes, exercises))] = [(s, m) for s, m in measured.items() if s[:2] == lesson]
        assert (reading, exercise_reading) == (minutes, exercises or 0), (
            f"{stem}: the guide says {reading} + {exercise_reading} minutes, the notebooks now "
            f"read in {minutes} + {exercises or 0}: run python -m course_tools.workshop_tables --no-cost"
        )


def test_the_exercise_sizing_is_the_guides_exercise_table():
    start = GUIDE_TEXT.index("| notebook | exercise | min |")
    table = GUIDE_TEXT[start : GUIDE_TEXT.index("\n\n", start)]
    in_guide: dict[str, list[int]] = {}
    for cells in table_rows(table):
        in_guide.setdefault(cells[0], []).append(int(cells[2]))
    assert in_guide == {lesson: [m for _, m in sizes] for lesson, sizes in EXERCISES.items()}


@pytest.mark.parametrize("plan", PLANS, ids=lambda plan: plan.name)
def test_every_slot_of_a_plan_fits_the_reading_time_table(plan: Plan):
    """Read back from the guide: each slot's clock times, and its minutes against the table."""
    reading = guide_reading_times()
    rows = table_rows(guide_section(plan.name))
    assert len(rows) == len(plan.slots)
    clock = plan.start
    for (times, what, minutes), slot in zip(rows, plan.slots, strict=True):
        begin, end = (int(h) * 60 + int(m) for h, m in re.findall(r"(\d+):(\d\d)", times))
        assert begin == clock and end - begin == int(minutes), f"{plan.name}: {times}"
        assert what == slot.what
        clock = end
        if isinstance(slot, Teach):
            lesson, exercise_reading, *_ = reading[slot.lesson]
            sizes = dict(EXERCISES.get(slot.lesson, ()))
            need = 0.4 * lesson if slot.demo else 0
            if slot.exercises:
                need += exercise_reading + sum(sizes[name] for name in slot.exercises)
            assert int(minutes) >= need, f"{plan.name}: {what} gets {minutes} min, needs {need}"
    assert clock <= plan.end, f"the {plan.name} plan ends after its day"


def test_a_notebook_that_grows_makes_the_plans_disagree(monkeypatch):
    real = reading_time.lesson_minutes()
    longer = {stem: (m + 30 if stem.startswith("03") else m, e) for stem, (m, e) in real.items()}
    monkeypatch.setattr(reading_time, "lesson_minutes", lambda: longer)
    try:
        sections = workshop_tables.generated(with_cost=False)
    except ValueError as refused:  # a plan that no longer fits its day is refused outright
        assert "ends at" in str(refused)
    else:
        assert any(guide_section(name) != content for name, content in sections.items())


def test_a_plan_past_its_end_is_refused():
    table = workshop_tables.lessons()
    too_long = Plan("test", 9 * 60, 10 * 60, (Teach("06", "all of 06", exercises=("control",)),))
    with pytest.raises(ValueError, match="ends at"):
        too_long.rows(table)
    fits = Plan("test", 9 * 60, 10 * 60, (Pause(60, "an hour"),))
    assert [(start, end) for start, end, _ in fits.rows(table)] == [(540, 600)]


def test_check_reports_a_plan_that_no_longer_fits_and_exits_1(monkeypatch, tmp_path, capsys):
    real = reading_time.lesson_minutes()
    longer = {stem: (m + 40 if stem.startswith("03") else m, e) for stem, (m, e) in real.items()}
    monkeypatch.setattr(reading_time, "lesson_minutes", lambda: longer)
    guide = tmp_path / "workshop.md"
    guide.write_text(GUIDE_TEXT, encoding="utf-8")
    monkeypatch.setattr(workshop_tables, "GUIDE", guide)
    for argv in (["--no-cost", "--check"], ["--no-cost"]):
        assert workshop_tables.main(argv) == 1
        said = capsys.readouterr().err
        assert "the full-day plan ends at" in said and "Traceback" not in said
        assert "move one of these exercises" in said or "move a lesson" in said
        assert guide.read_text(encoding="utf-8") == GUIDE_TEXT, "nothing is written"


def suggested_moves(message: str) -> list[tuple[str, str]]:
    """[(lesson, exercise)] that a PlanDoesNotFit message tells to move."""
    return re.findall(r"`(\d\d)` ([^;()]+?) \(slot \d+\)", message)


def test_the_planner_names_a_move_that_makes_the_plan_fit():
    table = workshop_tables.lessons()
    slot = Teach("06", "06 and its exercises", exercises=("recover_cut_off", "control"))
    need = slot.minutes(table)
    fits_without_one = Pause(60 * 8 - need + 20, "the rest of the day")  # 20 min too long
    plan = Plan("test", 9 * 60, 17 * 60, (slot, fits_without_one))
    with pytest.raises(workshop_tables.PlanDoesNotFit) as refused:
        plan.rows(table)
    moves = suggested_moves(str(refused.value))
    assert moves, str(refused.value)
    for lesson, exercise in moves:  # each move it names makes the plan fit
        kept = tuple(e for e in slot.exercises if e != exercise)
        lighter = Teach(lesson, slot.what, exercises=kept)
        assert Plan("test", 9 * 60, 17 * 60, (lighter, fits_without_one)).rows(table)


def test_the_planner_says_when_no_exercise_is_enough():
    table = workshop_tables.lessons()
    plan = Plan(
        "test", 9 * 60, 10 * 60, (Pause(55, "almost all"), Teach("06", "demo", exercises=()))
    )
    with pytest.raises(workshop_tables.PlanDoesNotFit, match="move a lesson to another day"):
        plan.rows(table)


def test_every_lessons_instructor_notes_say_what_the_section_promises():
    start = GUIDE_TEXT.index("## Instructor notes, lesson by lesson")
    notes = GUIDE_TEXT[start : GUIDE_TEXT.index("\n## ", start + 1)]
    lessons = re.split(r"\n### (?=\d\d )", notes)[1:]
    assert [lesson[:2] for lesson in lessons] == [f"{n:02d}" for n in range(14)]
    for lesson in lessons:
        for part in ("- **On screen:**", "- **Pause", "- **What goes wrong", "- **Recovery:**"):
            assert part in lesson, f"the notes for {lesson[:2]} have no '{part}'"


# --- the cost table -----------------------------------------------------------------------------


def cost_rows() -> dict[str, list[str]]:
    return {cells[0]: cells for cells in table_rows(guide_section("cost")) if cells[0]}


def test_the_cost_total_adds_up_the_rows():
    rows = cost_rows()
    total = rows.pop("**one learner, every notebook once**")

    def number(cell: str) -> int:
        return int(cell.split(" ")[0].replace(",", ""))

    for column in (1, 2, 3, 4):
        assert number(total[column]) == sum(number(cells[column]) for cells in rows.values())
    for column in (5, 6):
        added = sum(float(cells[column].lstrip("$")) for cells in rows.values())
        assert abs(float(total[column].lstrip("$")) - added) <= 0.001 * len(rows)


# Each notebook's cost row is checked by nbval's run of it (tests/nbval_cost.py: one more test
# per notebook, `notebooks/...ipynb::cost row in docs/workshop.md`), from the usage its kernel
# recorded: measuring here would run every notebook once more. The shortcut is exact:


@pytest.mark.slow
def test_nbvals_recorder_measures_what_the_script_measures(offline_environ, tmp_path):
    """One notebook measured both ways (the script's recorder cell in a kernel, and the same
    recorder run silently in a kernel started as nbval starts it) gives the same usage: a
    solution, whose exercise checks also call the course model (calls the recorder leaves out)."""
    path = executor.SOLUTIONS / "01_make_a_single_call_exercises.ipynb"
    in_the_script = workshop_cost.measure(path, workshop_cost.MODEL)
    assert not in_the_script.failure and in_the_script.calls > 0
    assert measure_like_nbval(path, offline_environ, tmp_path) == in_the_script
