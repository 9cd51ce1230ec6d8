"""The workshop guide's tables, generated: reading times, the three plans, and the cost.

Course machinery (instructor tool). Usage (from the project root):

    python -m course_tools.workshop_tables            # rewrite them in docs/workshop.md
    python -m course_tools.workshop_tables --no-cost  # all but the cost (which runs every notebook)
    python -m course_tools.workshop_tables --check    # exit 1 when the guide differs

Each table sits in docs/workshop.md between two markers, `<!-- generated: NAME -->` and
`<!-- end: NAME -->`; nothing outside them is touched. The numbers come from the scripts:
`course_tools.reading_time` (minutes to read each lesson and its exercises) and
`course_tools.workshop_cost` (tokens of every notebook, run once on the course model). The
exercise sizing below (minutes to write each exercise) is the guide's own; a test keeps it
equal to the guide's exercise table.

"In the room" is one rule for every lesson: a demo of the key cells takes DEMO_SHARE of the
lesson's reading time (participants read the rest at home), plus reading and writing the
exercises, rounded up to 5 minutes. A plan's slot for a lesson is sized by the same rule for
the parts it covers (the demo, the exercises it keeps in the room); a plan that runs past its
end is refused, so a notebook that grows cannot leave the plans wrong without a failing test.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass, field
from dataclasses import replace as replace_slot
from pathlib import Path

from course_tools import execute_notebooks as executor
from course_tools import reading_time, workshop_cost

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "workshop.md"
DEMO_SHARE = 0.4
COST_PARTICIPANTS = 25
COST_RERUNS = 2

# Minutes a newcomer needs to write each exercise and get its check to pass (our sizing, in
# the order of the guide's exercise table).
EXERCISES: dict[str, tuple[tuple[str, int], ...]] = {
    "01": (("ask", 10), ("ask_in_full", 15)),
    "02": (("by hand", 10), ("@tool", 10), ("force_call", 15)),
    "03": (("add_tool_turn", 20), ("fix_history", 20)),
    "04": (("run_tool", 10), ("agent_loop", 20)),
    "05": (("dispatch", 20), ("approve", 10)),
    "06": (("recover_cut_off", 20), ("control", 25)),
    "07": (("resolve", 15), ("AuditedGate", 15)),
    "08": (("make_search_code", 25), ("agent_turn", 25)),
    "09": (("with_replacements", 20), ("choose", 15), ("hybrid", 20)),
    "10": (("add_breakpoints", 20), ("run_on_budget", 20)),
    "11": (("to_anthropic", 10), ("make_run_tool", 15), ("safe_query", 20)),
    "12": (("clear_results", 20), ("choose_cut", 20), ("save and resume", 20)),
    "13": (("run_subagent", 20), ("answer_turn", 20), ("run_subagent_on_budget", 15)),
}


def up_to_five(minutes: float) -> int:
    return 5 * math.ceil(round(minutes, 6) / 5)


@dataclass(frozen=True)
class Lesson:
    stem: str
    reading: int  # minutes to read the lesson
    exercise_reading: int  # minutes to read its exercise notebook (0: none)

    @property
    def number(self) -> str:
        return self.stem[:2]

    @property
    def writing(self) -> int:
        return sum(minutes for _, minutes in EXERCISES.get(self.number, ()))

    @property
    def alone(self) -> int:
        return self.reading + self.exercise_reading + self.writing

    @property
    def in_the_room(self) -> int:
        return up_to_five(DEMO_SHARE * self.reading + self.exercise_reading + self.writing)


def lessons() -> dict[str, Lesson]:
    """{"01": Lesson(...)}: this edition's reading times, measured by reading_time."""
    found = {}
    for stem, (reading, exercises) in reading_time.lesson_minutes().items():
        found[stem[:2]] = Lesson(stem, reading, exercises or 0)
    return found


# --- the plans --------------------------------------------------------------------------------


class PlanDoesNotFit(ValueError):
    """A plan whose slots, sized by this edition's reading times, run past the end of its day."""


@dataclass(frozen=True)
class Teach:
    """A slot for one lesson: its demo and the exercises done in the room."""

    lesson: str
    what: str
    demo: bool = True
    exercises: tuple[str, ...] = ()
    extra: int = 0  # minutes added on purpose (set-up, review): `what` says what for

    def minutes(self, table: dict[str, Lesson]) -> int:
        lesson = table[self.lesson]
        sizes = dict(EXERCISES.get(self.lesson, ()))
        unknown = set(self.exercises) - set(sizes)
        if unknown:
            raise ValueError(f"lesson {self.lesson} has no exercise {sorted(unknown)}")
        need = DEMO_SHARE * lesson.reading if self.demo else 0
        if self.exercises:
            need += lesson.exercise_reading + sum(sizes[name] for name in self.exercises)
        return up_to_five(need) + self.extra


@dataclass(frozen=True)
class Pause:
    """A slot that is not a lesson: a break, lunch, a welcome, a wrap-up."""

    minutes_given: int
    what: str
    teaching: bool = True  # False for breaks and lunch

    def minutes(self, table: dict[str, Lesson]) -> int:
        return self.minutes_given


@dataclass(frozen=True)
class Plan:
    name: str
    start: int  # minutes after midnight
    end: int
    slots: tuple[Teach | Pause, ...]
    lessons: tuple[str, ...] = field(default=())  # the lessons whose exercises it covers

    def rows(self, table: dict[str, Lesson]) -> list[tuple[int, int, Teach | Pause]]:
        clock, rows = self.start, []
        for slot in self.slots:
            minutes = slot.minutes(table)
            rows.append((clock, clock + minutes, slot))
            clock += minutes
        if clock > self.end:
            raise PlanDoesNotFit(
                f"the {self.name} plan ends at {_clock(clock)}, after {_clock(self.end)} "
                f"({clock - self.end} minutes over): {self.remedy(table, clock - self.end)}"
            )
        return rows

    def remedy(self, table: dict[str, Lesson], over: int) -> str:
        """What to change in PLANS so the plan fits again: the exercises whose move home would."""
        enough = []
        for index, slot in enumerate(self.slots):
            if not isinstance(slot, Teach):
                continue
            for exercise in slot.exercises:
                kept = tuple(e for e in slot.exercises if e != exercise)
                lighter = replace_slot(slot, exercises=kept)
                saved = slot.minutes(table) - lighter.minutes(table)
                if saved >= over:
                    enough.append((saved, f"`{slot.lesson}` {exercise} (slot {index + 1})"))
        if not enough:
            return (
                "no single exercise moved home is enough; move a lesson to another day "
                "in PLANS (course_tools/workshop_tables.py)"
            )
        smallest = sorted(enough)[:3]  # the moves that take the least out of the room
        moves = "; ".join(f"{what}, which saves {saved} min" for saved, what in smallest)
        return (
            "in PLANS (course_tools/workshop_tables.py), move one of these exercises home "
            f"or to another day: {moves}"
        )

    def homework(self) -> list[str]:
        done = {(s.lesson, e) for s in self.slots if isinstance(s, Teach) for e in s.exercises}
        return [
            f"`{lesson}` {name}"
            for lesson in self.lessons
            for name, _ in EXERCISES.get(lesson, ())
            if (lesson, name) not in done
        ]


def _clock(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


THREE_HOURS = Plan(
    "three-hour",
    0,
    180,
    (
        Pause(10, "welcome; open `00_start_here`; every banner says which backend answers"),
        Teach(
            "03",
            "`03` demo: break each pairing rule live; exercise `add_tool_turn`",
            exercises=("add_tool_turn",),
        ),
        Teach(
            "04",
            "`04` demo with the loop stepper; exercise `agent_loop`",
            exercises=("agent_loop",),
        ),
        Pause(10, "break", teaching=False),
        Teach("05", "`05` demo: the crash, then the same loop with errors as results"),
        Teach("07", "`07` demo: the injected file that makes the agent merge, then the gate"),
        Pause(5, "wrap-up: the stop reasons of `06`, what 08-10 add, the homework"),
    ),
    lessons=("03", "04", "05", "07"),
)

FULL_DAY = Plan(
    "full-day",
    9 * 60,
    17 * 60,
    (
        Teach(
            "00",
            "welcome and set-up (5 min), `00_start_here`; Run All and `NotWrittenYet`",
            extra=5,
        ),
        Teach("01", "`01` demo and `ask` (`ask_in_full` is homework)", exercises=("ask",)),
        Teach("02", "`02` demo and the definition by hand", exercises=("by hand",)),
        Pause(15, "break", teaching=False),
        Teach(
            "03",
            "`03` demo and both exercises; compare solutions on screen",
            exercises=("add_tool_turn", "fix_history"),
        ),
        Pause(60, "lunch", teaching=False),
        Teach("04", "`04` demo with the loop stepper and `agent_loop`", exercises=("agent_loop",)),
        Teach("05", "`05` demo and `dispatch` that never raises", exercises=("dispatch",)),
        Pause(15, "break", teaching=False),
        Teach("06", "`06` demo: each stop reason raw, then through the controller"),
        Teach(
            "07",
            "`07` demo and `AuditedGate` (`resolve` is homework)",
            exercises=("AuditedGate",),
        ),
        Pause(15, "review and wrap-up"),
    ),
    lessons=("01", "02", "03", "04", "05", "06", "07"),
)

SECOND_DAY = Plan(
    "second-day",
    9 * 60,
    17 * 60,
    (
        Pause(10, "recap: the loop, the stop reasons, the gate"),
        Teach(
            "06",
            "`06` exercises (the demo was on day one)",
            demo=False,
            exercises=("recover_cut_off", "control"),
        ),
        Teach("08", "`08` demo and both exercises", exercises=("make_search_code", "agent_turn")),
        Pause(15, "break", teaching=False),
        Teach(
            "09",
            "`09` demo, `with_replacements` and `hybrid` (`choose` is homework)",
            exercises=("with_replacements", "hybrid"),
        ),
        Pause(60, "lunch", teaching=False),
        Teach("10", "`10` demo and both exercises", exercises=("add_breakpoints", "run_on_budget")),
        Pause(15, "break", teaching=False),
        Pause(
            15,
            "with a shared key (below): the coding agent of `08` on a real model, "
            "compared with the course model's path, calls and tokens",
        ),
        Pause(10, "wrap-up: what real coding agents add on top of this loop"),
    ),
    lessons=("06", "08", "09", "10"),
)

THIRD_DAY = Plan(
    "third-day",
    9 * 60,
    17 * 60,
    (
        Pause(10, "recap: the loop and its two seams; what part two plugs into each"),
        Teach(
            "11",
            "`11` demo: the server over the shop's database, the agent asking it, the poisoned "
            "description; all three exercises",
            exercises=("to_anthropic", "make_run_tool", "safe_query"),
        ),
        Pause(15, "break", teaching=False),
        Teach(
            "12",
            "`12` demo: the window filling, the rungs, what each loses; all three exercises",
            exercises=("clear_results", "choose_cut", "save and resume"),
        ),
        Pause(60, "lunch", teaching=False),
        Teach(
            "13",
            "`13` demo: a `task` tool, subagents side by side, the limits that travel down; "
            "all three exercises",
            exercises=("run_subagent", "answer_turn", "run_subagent_on_budget"),
        ),
        Pause(15, "break", teaching=False),
        Pause(10, "wrap-up: which of the three a coding agent of your own needs first"),
    ),
    lessons=("11", "12", "13"),
)

PLANS = (THREE_HOURS, FULL_DAY, SECOND_DAY, THIRD_DAY)


# --- rendering --------------------------------------------------------------------------------


def reading_table(table: dict[str, Lesson]) -> str:
    lines = [
        "| lesson | reading the lesson | reading the exercises | writing the exercises "
        "| alone, in all | in the room |",
        "|---|---|---|---|---|---|",
    ]
    for lesson in table.values():
        exercise_reading = lesson.exercise_reading or "–"
        writing = lesson.writing or "–"
        lines.append(
            f"| {lesson.stem.replace('_', ' ')} | {lesson.reading} | {exercise_reading} "
            f"| {writing} | {lesson.alone} | {lesson.in_the_room} |"
        )
    alone = sum(lesson.alone for lesson in table.values())
    room = sum(lesson.in_the_room for lesson in table.values())
    lines += [
        "",
        f"In all: {alone} minutes alone (about {alone / 60:.0f} hours), {room} minutes in a "
        f"room (about {room / 60:.1f} hours).",
    ]
    return "\n".join(lines)


def plan_table(plan: Plan, table: dict[str, Lesson]) -> str:
    lines = ["| time | what | min |", "|---|---|---|"]
    teaching = 0
    for start, end, slot in plan.rows(table):
        lines.append(f"| {_clock(start)}–{_clock(end)} | {slot.what} | {end - start} |")
        if not isinstance(slot, Pause) or slot.teaching:
            teaching += end - start
    everything = sum(table[lesson].in_the_room for lesson in plan.lessons)
    lines.append("")
    lines.append(
        f"Teaching time: {teaching} minutes, every slot sized by the table above (its lessons "
        f"with every exercise in the room would need {everything})."
    )
    homework = plan.homework()
    if homework:
        lines.append(f"Not done in the room (homework, or the next day): {', '.join(homework)}.")
    return "\n".join(lines)


def cost_name(relative: str) -> str:
    """`exercises 01_make_a_single_call` for a solution, `01_make_a_single_call` for a lesson."""
    stem = Path(relative).stem
    if relative.startswith("exercises/"):
        return "exercises " + stem.removesuffix("_exercises")
    return stem


def cost_row(name: str, usage: workshop_cost.Usage, model: str) -> str:
    cache = usage.cache_read + usage.cache_write_5m + usage.cache_write_1h
    inputs = f"{usage.input:,}" + (f" ({cache:,})" if cache else "")
    return (
        f"| {name} | {usage.calls} | {inputs} | {usage.output:,} | {usage.ceiling:,} "
        f"| ${usage.price(model):.3f} | ${usage.price(model, output=usage.ceiling):.3f} |"
    )


def _budget(usage: workshop_cost.Usage) -> int:
    """Tokens per participant: the worst case of every cell run COST_RERUNS times."""
    return 50_000 * math.ceil(usage.worst_case * COST_RERUNS / 50_000)


def cost_table(measured: dict[str, workshop_cost.Usage], model: str) -> str:
    lines = [
        "| notebook | calls | input tokens (cache read/write) | output tokens "
        "| output ceiling | cost | at the ceiling |",
        "|---|---|---|---|---|---|---|",
    ]
    total = workshop_cost.Usage()
    day_one, day_two = workshop_cost.Usage(), workshop_cost.Usage()
    for relative, usage in measured.items():
        total += usage
        number = Path(relative).stem[:2]
        if number in FULL_DAY.lessons or number == "00":
            day_one += usage
        if number in SECOND_DAY.lessons:
            day_two += usage
        lines.append(cost_row(cost_name(relative), usage, model))
    lines.append(cost_row("**one learner, every notebook once**", total, model))
    room = COST_PARTICIPANTS * COST_RERUNS
    lines += [
        "",
        f"{COST_PARTICIPANTS} participants running every cell {COST_RERUNS} times: about "
        f"**${total.price(model) * room:,.0f}** as the course model measures it, and at most "
        f"**${total.price(model, output=total.ceiling) * room:,.0f}** if every call writes "
        f"(thinking included) up to its `max_tokens`.",
        "",
        f"Suggested gateway budget per participant (`--budget`, the worst case of every cell "
        f"run {COST_RERUNS} times, rounded up): **{_budget(day_one):,}** tokens for the full "
        f"day (00-07 and their exercises), **{_budget(day_two):,}** for the second day (06 and "
        f"08-10 with their exercises).",
    ]
    return "\n".join(lines)


# --- the guide ------------------------------------------------------------------------------------


def section(text: str, name: str) -> re.Match:
    pattern = rf"(<!-- generated: {re.escape(name)} -->\n)(.*?)(<!-- end: {re.escape(name)} -->)"
    found = re.search(pattern, text, flags=re.S)
    if not found:
        raise ValueError(f"docs/workshop.md has no generated section '{name}'")
    return found


def replace(text: str, name: str, content: str) -> str:
    found = section(text, name)
    return text[: found.start(2)] + content + "\n" + text[found.end(2) :]


def generated(with_cost: bool, model: str = workshop_cost.MODEL) -> dict[str, str]:
    """{section name: its content}, from the scripts' current output."""
    table = lessons()
    sections = {"reading-time": reading_table(table)}
    too_long = []
    for plan in PLANS:
        try:
            sections[plan.name] = plan_table(plan, table)
        except PlanDoesNotFit as problem:
            too_long.append(str(problem))
    if too_long:  # every plan that needs changing, before anything slow is run
        raise PlanDoesNotFit("\n".join(too_long))
    if with_cost:
        measured = workshop_cost.measure_all(executor.course_notebooks(), model)
        sections["cost"] = cost_table(measured, model)
    return sections


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the guide differs")
    parser.add_argument("--no-cost", action="store_true", help="leave the cost table as it is")
    args = parser.parse_args(argv)
    try:
        sections = generated(with_cost=not args.no_cost)  # slow: read the guide after
    except PlanDoesNotFit as problem:
        print(f"docs/workshop.md cannot be generated:\n{problem}", file=sys.stderr)
        return 1
    text = GUIDE.read_text(encoding="utf-8")
    new = text
    for name, content in sections.items():
        new = replace(new, name, content)
    if args.check:
        if new != text:
            print(
                "docs/workshop.md differs from the scripts: run python -m "
                "course_tools.workshop_tables",
                file=sys.stderr,
            )
            return 1
        print("docs/workshop.md matches the scripts")
        return 0
    GUIDE.write_text(new, encoding="utf-8")
    print("docs/workshop.md " + ("rewritten" if new != text else "already up to date"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
