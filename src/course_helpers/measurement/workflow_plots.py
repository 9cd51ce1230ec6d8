"""Course machinery: the chart of notebook 09, calls, tokens and latency per case, one bar per
approach."""

from __future__ import annotations

from course_helpers.measurement.workflows import CaseResult

COLOURS = {"chain": "#4C72B0", "router": "#DD8452", "orchestrator": "#8172B3", "agent": "#55A868"}


def plot_results(results: list[CaseResult]):
    """Four panels (calls, input tokens, output tokens, latency), one group of bars per case.
    Offline the token panels say they show the course model's estimates, and latency is modelled.

    A failed case's bar is pale and hatched. Returns the matplotlib Figure (11 x 6.4 inches at
    100 dpi, so its text form is always `<Figure size 1100x640 with 4 Axes>`).
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    approaches = list(dict.fromkeys(r.approach for r in results))
    cases = list(dict.fromkeys(r.case for r in results))
    by_key = {(r.case.name, r.approach): r for r in results}
    live = any(r.measured for r in results)
    kind = "measured" if live else "modelled"
    counted = "" if live else " (course-model estimate)"  # offline, tokens are estimated
    panels = [
        ("calls", "model calls"),
        ("input_tokens", f"input tokens{counted}"),
        ("output_tokens", f"output tokens{counted}"),
        ("seconds", f"latency, s ({kind})"),
    ]
    fig, axes = plt.subplots(2, 2, figsize=(11, 6.4), dpi=100, sharex=True)
    width = 0.8 / max(1, len(approaches))
    for ax, (attribute, label) in zip(axes.flat, panels, strict=True):
        for i, approach in enumerate(approaches):
            for j, case in enumerate(cases):
                r = by_key.get((case.name, approach))
                if r is None:
                    continue
                ax.bar(
                    j + (i - (len(approaches) - 1) / 2) * width,
                    getattr(r, attribute),
                    width,
                    color=COLOURS.get(approach, "grey"),
                    alpha=1.0 if r.success else 0.35,
                    hatch=None if r.success else "//",
                    edgecolor="white" if r.success else COLOURS.get(approach, "grey"),
                    label=approach if j == 0 else None,
                )
        split = sum(1 for c in cases if c.kind == "predictable") - 0.5
        ax.axvline(split, color="#888888", linewidth=0.8, linestyle="--")
        ax.set_title(label, fontsize=10)
        ax.spines[["top", "right"]].set_visible(False)
        ax.tick_params(labelsize=8)
    for ax in axes[1]:
        ax.set_xticks(range(len(cases)), [c.name.split()[0] for c in cases])
    axes[0, 0].yaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in axes.flat[1:3]:
        ax.yaxis.set_major_formatter(lambda value, _: f"{value:,.0f}")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.suptitle(
        "Same tickets, four ways (P = predictable, U = unpredictable)",
        fontsize=11,
        x=0.01,
        ha="left",
    )
    fig.legend(
        handles,
        labels,
        loc="upper right",
        ncols=len(approaches),
        fontsize=8,
        frameon=False,
        title="pale, hatched = failed",
        title_fontsize=8,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return fig
