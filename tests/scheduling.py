"""How pytest-xdist hands the suite to its workers (loaded only when xdist is: `-p no:xdist` works).

xdist's `loadscope` keeps a scope (a module, or a notebook's nbval cells) on one worker. The
course's scheduler cuts and orders the scopes so that both workers end together:

- each notebook run of the whole-course modules is a scope of its own: the per-model modules
  run every notebook once and would otherwise keep one worker busy while the other waits;
- the browser tests are cut into one group per worker (whole modules, balanced on the last
  run's seconds): each group shares one JupyterLab server and one Chromium (package fixtures,
  started once per group), and the groups run side by side, not one after the other;
- the longest scopes go out first (as measured in the last run, else guessed), so the last
  ones to run are short and neither worker is left alone with a long one at the end.
"""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadScopeScheduling

SPLIT = (
    "tests/test_live_path.py::",
    "tests/test_every_model.py::",
    "tests/test_reluctant_model.py::",
)
BROWSER = "tests/browser/"
# Before any run was recorded: a browser test takes tens of seconds, most others much less.
GUESSED_SECONDS = {BROWSER: 20.0, "notebooks/": 0.5}
DEFAULT_SECONDS = 0.3


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def browser_groups(nodeids: list[str], seconds, workers: int) -> dict[str, str]:
    """{browser module: its group's scope name}: whole modules, longest first, each to the
    group with the fewest seconds so far (so the groups end together)."""
    cost: dict[str, float] = {}
    for nodeid in nodeids:
        if nodeid.startswith(BROWSER):
            cost[module_of(nodeid)] = cost.get(module_of(nodeid), 0.0) + seconds(nodeid)
    groups = [0.0] * max(1, min(workers, len(cost)))
    found = {}
    for module in sorted(cost, key=lambda m: (-cost[m], m)):
        index = min(range(len(groups)), key=lambda i: (groups[i], i))
        groups[index] += cost[module]
        found[module] = f"{BROWSER}(group {index + 1} of {len(groups)})"
    return found


class BalancedScopes(LoadScopeScheduling):
    """xdist's `loadscope`, with scopes cut and handed out as the module docstring says."""

    def __init__(self, config: pytest.Config, log, known: dict[str, float]) -> None:
        super().__init__(config, log)
        self.known = known
        self.groups: dict[str, str] | None = None

    def seconds(self, nodeid: str) -> float:
        if nodeid in self.known:
            return self.known[nodeid]
        guesses = (t for p, t in GUESSED_SECONDS.items() if nodeid.startswith(p))
        return next(guesses, DEFAULT_SECONDS)

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.startswith(SPLIT):
            return nodeid
        if nodeid.startswith(BROWSER):
            if self.groups is None:
                collection = self.collection or next(iter(self.registered_collections.values()))
                self.groups = browser_groups(list(collection), self.seconds, len(self.nodes))
            return self.groups[module_of(nodeid)]
        return super()._split_scope(nodeid)

    def _assign_work_unit(self, node) -> None:
        if not getattr(self, "_ordered", False):
            self._ordered = True
            scopes = sorted(
                self.workqueue.items(), key=lambda item: -sum(map(self.seconds, item[1]))
            )
            self.workqueue.clear()
            self.workqueue.update(scopes)
        super()._assign_work_unit(node)


class XdistPlugin:
    """The hooks that exist only when pytest-xdist is loaded."""

    def __init__(self, known: dict[str, float], recorder) -> None:
        self.known = known
        self.recorder = recorder

    def pytest_xdist_make_scheduler(self, config: pytest.Config, log):
        if config.getoption("dist") == "loadscope":
            return BalancedScopes(config, log, self.known)
        return None

    def pytest_xdist_node_collection_finished(self, node, ids: list[str]) -> None:
        if self.recorder is not None:
            self.recorder.collected(ids)
