"""The room's usage, from the workshop gateway's ledger: who spent what, who was refused.

Course machinery (instructor tool). Usage, on the gateway machine (while it runs, or after):

    python -m course_tools.workshop_usage workshop-ledger.json

One line per participant: tokens spent, tokens held by requests in flight, what is left of the
budget (their own budget when the token file gives them one: marked `*`), the requests the
gateway refused, and the calls forwarded per route.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def report(ledger: dict) -> str:
    budget = int(ledger.get("budget", 0))
    people = ledger.get("participants") or {}
    lines = [
        f"budget: {budget:,} tokens per participant",
        "",
        f"{'participant':<16} {'spent':>10} {'held':>8} {'left':>10} {'refused':>7}   calls",
    ]
    total = 0
    for name in sorted(people):
        row = people[name]
        spent, held = int(row.get("spent", 0)), int(row.get("held", 0))
        total += spent
        calls = ", ".join(f"{route} {n}" for route, n in sorted((row.get("calls") or {}).items()))
        left = max(0, int(row.get("budget", budget)) - spent - held)
        own = "*" if "budget" in row else " "
        lines.append(
            f"{name:<16} {spent:>10,} {held:>8,} {left:>10,}{own}{row.get('refused', 0):>7}   "
            f"{calls or '-'}"
        )
    lines += ["", f"{len(people)} participants, {total:,} tokens spent in all"]
    own = sorted(name for name, row in people.items() if "budget" in row)
    if own:
        budgets = ", ".join(f"{name} {int(people[name]['budget']):,}" for name in own)
        lines.append(f"* a budget of their own (token file): {budgets}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ledger", type=Path, help="the gateway's --ledger file")
    args = parser.parse_args(argv)
    print(report(json.loads(args.ledger.read_text(encoding="utf-8"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
