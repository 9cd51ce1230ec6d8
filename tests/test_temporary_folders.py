"""Tests leave only trees pytest can remove (tests/temporary_folders.py).

The failure first: a tree deeper than the recursion limit, in an old numbered folder, ends
pytest's clean-up in a `RecursionError` (as it did, once, at the end of unrelated runs). Then
the fix: the test that needs such a tree removes it, the guard of tests/conftest.py allows
only depths pytest removes, and the loop that removes a deeper one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import test_git_layout_attacks as attacks
from _pytest.pathlib import cleanup_numbered_dir, make_numbered_dir
from temporary_folders import REMOVABLE_DEPTH, chain, depth_of, remove_tree

PAST_THE_LIMIT = 1500  # the depth tests/test_git_layout_attacks.py needs for its listing


def runs(root: Path, depth: int) -> Path:
    """Under `root`, what pytest keeps between runs: an old run's folder holding a tree
    `depth` levels deep, and the three runs made since (pytest keeps three)."""
    old = make_numbered_dir(root, "pytest-")
    chain(old, depth)
    for _ in range(3):
        make_numbered_dir(root, "pytest-")
    return old


def clean_up(root: Path) -> None:
    """What pytest does at the end of a run: remove every numbered folder but the last three."""
    cleanup_numbered_dir(root, "pytest-", keep=3, consider_lock_dead_if_created_before=0.0)


def deeper_by(frames: int, call) -> None:
    """Call `call` from a stack `frames` frames deeper than this one."""
    if frames:
        return deeper_by(frames - 1, call)
    return call()


def test_a_tree_past_the_recursion_limit_ends_pytests_clean_up_in_a_recursion_error(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    old = runs(root, PAST_THE_LIMIT)
    try:
        with pytest.raises(RecursionError):
            clean_up(root)
        assert not old.exists()  # renamed aside, whole: nothing of it was removed
        (garbage,) = root.glob("garbage-*")
        assert depth_of(garbage) == PAST_THE_LIMIT
    finally:
        remove_tree(root)


def test_pytest_removes_a_tree_as_deep_as_the_guard_allows_even_from_a_deep_stack(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    old = runs(root, REMOVABLE_DEPTH)
    # pytest removes old folders at the end of a run, from a shallow stack; 200 frames more
    # than this test's own leave room for any plugin or runner around it.
    assert sys.getrecursionlimit() == 1000
    deeper_by(200, lambda: clean_up(root))
    assert not old.exists() and list(root.glob("garbage-*")) == []


class ListsNothing:
    """A sandbox whose listing is empty: the deep listing test's assertions fail on it."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def list_files(self, path: str, max_entries: int) -> str:
        return ""


def test_the_deep_listing_test_removes_its_tree_when_it_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(attacks, "FileSandbox", ListsNothing)
    with pytest.raises(AssertionError):
        attacks.test_a_very_deep_tree_is_listed_without_recursion(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_depth_of_counts_folder_levels_and_follows_no_link(tmp_path):
    assert depth_of(tmp_path) == 0
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "b" / "file.txt").write_text("x")
    (tmp_path / "e").mkdir()
    (tmp_path / "a" / "b" / "c" / "up").symlink_to(tmp_path)  # a loop if it were followed
    assert depth_of(tmp_path) == 3


def test_remove_tree_removes_a_tree_past_the_recursion_limit(tmp_path):
    top = tmp_path / "top"
    top.mkdir()
    chain(top, PAST_THE_LIMIT)
    (top / "d" / "d" / "file.txt").write_text("x")
    (top / "side" / "branch").mkdir(parents=True)
    (top / "side" / "link").symlink_to(tmp_path)  # removed as a link, its target kept
    (tmp_path / "kept.txt").write_text("kept")
    assert depth_of(top) == PAST_THE_LIMIT
    remove_tree(top)
    assert not top.exists() and (tmp_path / "kept.txt").read_text() == "kept"
