"""The course's own JupyterLab settings: no news or update prompt on the first run.

`make lab` and `make test` put the tracked `jupyter-config/` on JUPYTER_CONFIG_PATH; JupyterLab
reads `labconfig/default_setting_overrides.json` from there as new defaults.
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
