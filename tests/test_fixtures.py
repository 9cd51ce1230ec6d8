"""The sample projects: the pull-request repository (04-05) and the shop (08)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_helpers.fixtures.pr_repo import (
    PULL_REQUESTS,
    PrRepo,
    PullRequestNotFound,
    build_pr_repo,
    git,
)
from course_helpers.fixtures.shop_project import (
    BUG_LINE,
    EMPTY_CART_ERROR,
    EMPTY_CART_TEST,
    FIXED_LINE,
    SHOP_TEST_FILE,
    SHOP_TOTAL_FILE,
    copy_shop_project,
)


@pytest.fixture(scope="module")
def pr_repo(tmp_path_factory: pytest.TempPathFactory) -> PrRepo:
    return build_pr_repo(tmp_path_factory.mktemp("pr") / "invoicing")


def pytest_environment(**settings: str) -> dict[str, str]:
    """This environment for a pytest run in a subprocess, minus the options of the run around
    it (PYTEST_ADDOPTS, e.g. `--durations` given to `make test`, would change its output)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    env.update(settings)
    return env


def run_pytest(project: Path) -> subprocess.CompletedProcess[str]:
    """The sample project's own tests, run by pytest without this project's plugins (nbval,
    xdist, hypothesis...): the sample projects need none, and loading them takes seconds."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=pytest_environment(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"),
        capture_output=True,
        text=True,
        timeout=120,
    )


# --- the pull-request repository -------------------------------------------------------------


def test_open_prs_have_titles(pr_repo: PrRepo) -> None:
    assert pr_repo.open_prs() == {
        482: "Switch discount to fractions",
        483: "Document how to run the tests",
    }
    assert "fraction" in pr_repo.pull_request(482).description


def test_pr_482_diff_changes_apply_discount_but_not_its_caller(pr_repo: PrRepo) -> None:
    diff = pr_repo.get_diff(482)
    assert "diff --git a/invoicing/pricing.py b/invoicing/pricing.py" in diff
    assert "-def apply_discount(total: Decimal, percent: Decimal) -> Decimal:" in diff
    assert "+def apply_discount(total: Decimal, rate: Decimal) -> Decimal:" in diff
    # The caller is only hinted at, never shown: the reviewer has to go and read it.
    assert "Checkout uses this" in diff
    assert "checkout.py" not in diff


def test_caller_still_passes_per_cent(pr_repo: PrRepo) -> None:
    assert "invoicing/checkout.py" in pr_repo.list_files()
    checkout = pr_repo.read_file("invoicing/checkout.py")
    assert "apply_discount(subtotal(lines), customer.discount_percent)" in checkout
    assert checkout == pr_repo.read_file("invoicing/checkout.py", ref="main")
    assert "stored in per cent" in pr_repo.read_file("invoicing/models.py")


def test_the_pr_breaks_checkout_for_loyal_customers(pr_repo: PrRepo, tmp_path: Path) -> None:
    """Proof that the consequence is real: on the PR branch, a 10 % customer cannot pay."""
    checkout = tmp_path / "checkout"
    git(pr_repo.path, "worktree", "add", "--quiet", str(checkout), "pr-482")
    try:
        script = (
            "from decimal import Decimal\n"
            "from invoicing.checkout import invoice_total\n"
            "from invoicing.models import Customer, LineItem\n"
            "lines = [LineItem('Desk lamp', Decimal('39.90'), 2)]\n"
            "print(invoice_total(lines, Customer('Ada', Decimal('10'))))\n"
        )
        result = subprocess.run(
            [sys.executable, "-c", script], cwd=checkout, capture_output=True, text=True
        )
        assert result.returncode != 0
        assert "ValueError: discount rate must be between 0 and 1, got 10" in result.stderr
        # ... while the PR's own tests are green.
        assert run_pytest(checkout).returncode == 0
    finally:
        git(pr_repo.path, "worktree", "remove", "--force", str(checkout))


def test_pr_483_only_touches_the_readme(pr_repo: PrRepo) -> None:
    diff = pr_repo.get_diff(483)
    assert diff.startswith("diff --git a/README.md b/README.md")
    assert diff.count("diff --git") == 1


def test_each_pr_reads_its_own_branch(pr_repo: PrRepo) -> None:
    """Notebooks 04 and 05 read a file as the PR under review leaves it, not as #482 does."""
    readme_483 = pr_repo.read_file("README.md", ref=pr_repo.pull_request(483).branch)
    readme_482 = pr_repo.read_file("README.md", ref=pr_repo.pull_request(482).branch)
    assert readme_483 != readme_482 and readme_483.startswith(readme_482.rstrip("\n"))
    pricing_483 = pr_repo.read_file("invoicing/pricing.py", ref=pr_repo.pull_request(483).branch)
    assert "percent: Decimal" in pricing_483  # #483 does not carry #482's change
    assert pr_repo.list_files(pr_repo.pull_request(483).branch) == pr_repo.list_files("main")


def test_unknown_pr_lists_the_open_ones(pr_repo: PrRepo) -> None:
    with pytest.raises(
        PullRequestNotFound, match=r"^PR #999 does not exist \(open PRs: #482, #483\)$"
    ):
        pr_repo.get_diff(999)
    assert issubclass(PullRequestNotFound, LookupError)


def test_unknown_file_suggests_and_lists(pr_repo: PrRepo) -> None:
    with pytest.raises(FileNotFoundError) as error:
        pr_repo.read_file("checkout.py")
    message = str(error.value)
    assert "Did you mean: invoicing/checkout.py?" in message
    assert "invoicing/pricing.py" in message
    for outside in ["../pyproject.toml", "/etc/passwd", "invoicing"]:
        with pytest.raises(FileNotFoundError):
            pr_repo.read_file(outside)


def test_reads_committed_files_not_the_working_folder(pr_repo: PrRepo) -> None:
    """The working folder stays on main; read_file still shows the PR's version."""
    on_disk = (pr_repo.path / "invoicing" / "pricing.py").read_text()
    assert "percent: Decimal" in on_disk
    assert "rate: Decimal" in pr_repo.read_file("invoicing/pricing.py")
    with pytest.raises(LookupError, match="branches: main, pr-482, pr-483"):
        pr_repo.read_file("README.md", ref="HEAD~1")


def test_build_is_deterministic(pr_repo: PrRepo, tmp_path: Path) -> None:
    again = build_pr_repo(tmp_path / "again")
    for branch in ["main", *(pr.branch for pr in PULL_REQUESTS.values())]:
        first = git(pr_repo.path, "rev-parse", branch).strip()
        assert first == git(again.path, "rev-parse", branch).strip()
    assert git(again.path, "branch", "--show-current").strip() == "main"


def test_build_refuses_a_folder_with_files(tmp_path: Path) -> None:
    (tmp_path / "something.txt").write_text("hello")
    with pytest.raises(FileExistsError):
        build_pr_repo(tmp_path)


# --- the shop project ------------------------------------------------------------------------


def test_shop_bug_found_by_the_empty_cart_test_and_fixed_in_one_line(tmp_path: Path) -> None:
    project = copy_shop_project(tmp_path / "shop")
    assert not list(project.rglob("__pycache__"))
    before = run_pytest(project)
    assert before.returncode == 0, before.stdout
    assert "3 passed" in before.stdout

    test_file = project / SHOP_TEST_FILE
    test_file.write_text(test_file.read_text() + EMPTY_CART_TEST)
    failing = run_pytest(project)
    assert failing.returncode == 1, failing.stdout
    assert "1 failed, 3 passed" in failing.stdout
    assert EMPTY_CART_ERROR in failing.stdout
    assert BUG_LINE.strip() in failing.stdout  # the traceback points at the planted line

    total_file = project / SHOP_TOTAL_FILE
    source = total_file.read_text()
    assert source.count(BUG_LINE) == 1
    total_file.write_text(source.replace(BUG_LINE, FIXED_LINE))
    after = run_pytest(project)
    assert after.returncode == 0, after.stdout
    assert "4 passed" in after.stdout


def test_shop_copy_refuses_a_folder_with_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        copy_shop_project(tmp_path)


def test_sample_projects_are_not_collected_by_the_course_tests() -> None:
    root = Path(__file__).parents[1]
    # The project's own configuration (pyproject.toml), in one process: without `-n 0` its
    # addopts would start two xdist workers only to collect.
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    result = subprocess.run(
        [*command, "-n", "0", "src"],
        cwd=root,
        env=pytest_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == pytest.ExitCode.NO_TESTS_COLLECTED, result.stdout + result.stderr
    assert "fixtures" not in result.stdout, result.stdout
