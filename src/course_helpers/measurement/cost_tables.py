"""Course machinery: the tables and plots notebook 10 reads its runs with (imported, not built).

`turns_table` prints one line per call (prompt size, how it was billed, the call's bill);
`plot_turns` draws the input of each call and the running bill of several runs side by side;
`plot_cache` splits each call's prompt into uncached, written and read tokens. They read usage
through `course_helpers.lessons.cost.usage` and price it with `course_helpers.lessons.cost.pricing`.
"""

from __future__ import annotations

from typing import Any

from course_helpers.lessons.cost.pricing import billed, billed_input
from course_helpers.lessons.cost.usage import prompt_tokens, token_count

# The counts of a call that `turns_table` shows, in its columns' order.
_FIELDS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
)


def _row(label: str, prompt: int, counts: list[int], paid_in: float, paid: float) -> str:
    uncached, written, read, output = counts
    return (
        f"{label:>4} {prompt:>7,} {uncached:>8,} {written:>8,} {read:>7,} {output:>6,} "
        f"{paid_in:>9,.0f} {paid:>8,.0f}"
    )


def turns_table(usages: list[Any], rows: int | None = None) -> str:
    """One line per call: prompt size and how it was billed, output, and the call's bill.

    `billed in` is the input side (`billed_input`); `billed` adds the output (`billed`).
    """
    head = (
        f"{'turn':>4} {'prompt':>7} {'uncached':>8} {'written':>8} {'read':>7} "
        f"{'output':>6} {'billed in':>9} {'billed':>8}"
    )
    lines = [head]
    shown = list(enumerate(usages, 1))
    if rows is not None and len(shown) > rows:
        shown = shown[: rows // 2] + [(None, None)] + shown[-(rows - rows // 2) :]
    for turn, usage in shown:
        if usage is None:
            lines.append(f"{'...':>4}")
            continue
        counts = [token_count(usage, field) for field in _FIELDS]
        lines.append(
            _row(str(turn), prompt_tokens(usage), counts, billed_input(usage), billed(usage))
        )
    totals = [sum(token_count(u, field) for u in usages) for field in _FIELDS]
    lines.append(
        _row(
            "all",
            sum(prompt_tokens(u) for u in usages),
            totals,
            sum(billed_input(u) for u in usages),
            sum(billed(u) for u in usages),
        )
    )
    return "\n".join(lines)


def _finish_plot(fig, left, right):
    """The look both plots share: turns on x, thousands separators, a legend on the left."""
    for ax in (left, right):
        ax.set_xlabel("turn (call to the model)")
        ax.spines[["top", "right"]].set_visible(False)
        ax.yaxis.set_major_formatter(lambda value, _: f"{value:,.0f}")
        ax.tick_params(labelsize=8)
    left.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


# One look per run, so that runs whose lines coincide (a cached run sends exactly what its
# uncached twin sends) stay visible: a dashed line with hollow markers over a solid one.
_STYLES = [
    {"linestyle": "-", "marker": "o"},
    {"linestyle": "--", "marker": "s", "markerfacecolor": "none", "markersize": 6},
    {"linestyle": ":", "marker": "^"},
    {"linestyle": "-.", "marker": "D", "markerfacecolor": "none", "markersize": 5},
    {"linestyle": "--", "marker": "v"},
    {"linestyle": ":", "marker": "x", "markersize": 5},
]


def plot_turns(runs: dict[str, list[Any]]):
    """Input tokens per turn (left) and the whole bill so far (right), one line per run.

    The bill counts input and output (`billed`). Returns the Figure (10 x 4 inches at 100 dpi:
    `<Figure size 1000x400 with 2 Axes>`).
    """
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), dpi=100)
    sent = [[prompt_tokens(u) for u in usages] for usages in runs.values()]
    # On the right, the cheaper a run, the higher it is drawn: a small bill is not hidden
    # under the big ones it lies below.
    totals = [sum(billed(u) for u in usages) for usages in runs.values()]
    ranks = {
        index: rank
        for rank, index in enumerate(sorted(range(len(totals)), key=lambda i: -totals[i]))
    }
    for index, (name, usages) in enumerate(runs.items()):
        style = {"markersize": 3, **_STYLES[index % len(_STYLES)]}
        # A run that a later one lies on exactly (a cached run sends what its uncached twin
        # sends) is drawn wide and pale, so both lines stay visible.
        twinned = {"linewidth": 5, "alpha": 0.4} if sent[index] in sent[index + 1 :] else {}
        turns = range(1, len(usages) + 1)
        left.plot(turns, sent[index], label=name, **style, **twinned)
        running, total = [], 0.0
        for usage in usages:
            total += billed(usage)
            running.append(total)
        right.plot(turns, running, label=name, zorder=2 + ranks[index], **style)
    left.set_title("input tokens sent in each call", fontsize=10)
    right.set_title("billed-equivalent tokens (input and output), running total", fontsize=10)
    if len(runs) > 1:  # the right panel draws no twin wide and pale: it gets a legend of its own
        right.legend(fontsize=8, frameon=False)
    return _finish_plot(fig, left, right)


def plot_cache(usages: list[Any]):
    """Each call's prompt split into uncached, written and read tokens, and its billed input.

    Returns the Figure (10 x 4 inches at 100 dpi: `<Figure size 1000x400 with 2 Axes>`).
    """
    import matplotlib.pyplot as plt

    turns = list(range(1, len(usages) + 1))
    uncached = [token_count(u, "input_tokens") for u in usages]
    written = [token_count(u, "cache_creation_input_tokens") for u in usages]
    read = [token_count(u, "cache_read_input_tokens") for u in usages]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), dpi=100)
    left.bar(turns, read, color="#55A868", label="read from cache (x0.1)")
    left.bar(turns, written, bottom=read, color="#DD8452", label="written to cache (x1.25)")
    stacked = [a + b for a, b in zip(read, written, strict=True)]
    left.bar(turns, uncached, bottom=stacked, color="#4C72B0", label="uncached (x1)")
    left.set_title("input tokens of each call, by how they are billed", fontsize=10)
    right.bar(turns, [billed_input(u) for u in usages], color="#8172B3")
    right.set_title("billed-equivalent input tokens of each call", fontsize=10)
    return _finish_plot(fig, left, right)
