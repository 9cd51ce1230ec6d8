"""What `make lab` sets up: the learner's packages, and JupyterLab's settings.

`make lab` installs requirements.txt only (what the notebooks need), saying what it does;
`make test` and `make lint` add requirements-test.txt (the test tools).

The course's own JupyterLab settings: no news or update prompt on the first run. `make lab` and
`make test` put the tracked `jupyter-config/` on JUPYTER_CONFIG_PATH; JupyterLab reads
`labconfig/default_setting_overrides.json` from there as new defaults.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = ROOT / "jupyter-config" / "labconfig" / "default_setting_overrides.json"
PLUGIN = "@jupyterlab/apputils-extension:notification"
TEST_ONLY = {"nbval", "pytest-xdist", "hypothesis", "ruff", "playwright"}


def pinned(path: Path) -> dict[str, str]:
    """Package name -> pinned version, from a requirements file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    pins = [line.split("==") for line in lines if "==" in line and not line.startswith("#")]
    return {name.strip().lower(): version.strip() for name, version in pins}


def make_rule(target: str) -> str:
    """The prerequisites of a Makefile target (the line `target: ...`)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    line = next(line for line in makefile.splitlines() if line.startswith(f"{target}:"))
    return line.split(":", 1)[1]


def test_the_learner_installs_no_test_tool_and_make_test_adds_them_pinned() -> None:
    learner, tests = pinned(ROOT / "requirements.txt"), pinned(ROOT / "requirements-test.txt")
    assert not TEST_ONLY & set(learner), "test tools belong in requirements-test.txt"
    assert set(tests) >= TEST_ONLY, f"unpinned test tools: {TEST_ONLY - set(tests)}"
    assert not set(learner) & set(tests), "a package pinned twice"
    assert "$(STAMP)" in make_rule("lab") and "TEST" not in make_rule("lab")
    for target in ("test", "lint", "format"):
        assert "$(TEST_STAMP)" in make_rule(target), f"make {target} must add the test tools"
    assert "requirements-test.txt" in make_rule("$(TEST_STAMP)")


def test_the_first_install_says_what_it_is_doing() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    installs = [line for line in makefile.splitlines() if "pip install" in line and "-r " in line]
    assert len(installs) == 2 and not any("--quiet" in line or " -q" in line for line in installs)


def test_the_overrides_are_valid_for_the_installed_jupyterlab() -> None:
    import jsonschema

    overrides = json.loads(SETTINGS.read_text(encoding="utf-8"))
    assert overrides[PLUGIN] == {"checkForUpdates": False, "fetchNews": "false"}
    schema_file = (
        Path(sys.prefix)
        / "share/jupyter/lab/schemas/@jupyterlab/apputils-extension/notification.json"
    )
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    jsonschema.validate(overrides[PLUGIN], schema)


def test_jupyterlab_reads_them_from_the_makefiles_config_path(tmp_path: Path) -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "JUPYTER_CONFIG_PATH=$(CURDIR)/jupyter-config" in makefile
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_CONFIG_PATH": str(ROOT / "jupyter-config"),
    }
    read = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from jupyterlab_server.settings_utils import _get_overrides; "
            f"print(json.dumps(_get_overrides({str(tmp_path)!r})[0]))",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(read.stdout)[PLUGIN]["fetchNews"] == "false"
