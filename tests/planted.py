"""Things an agent's command can leave in a project for the host to run later, and the host's side.

Each plant is a shell command run in the pull-request repository of notebook 07, as the agent's
`bash` tool would run it. Its payload appends to MARKER, a file beside the project (never a
system path): if the marker exists after the host has done its work, something planted ran on
the host. `host_actions()` does what course code does with that repository on the host.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from course_helpers.fixtures.pr_repo import PrRepo, git
from course_helpers.plumbing.host_git import UnsafeRepository

MARKER = "ran-on-the-host"


def payload(marker: Path) -> str:
    """A shell line that leaves proof it ran, then passes its input through (for filters)."""
    return f"echo ran >> {shlex.quote(str(marker))}; cat"


def plants(marker: Path) -> dict[str, str]:
    """Shell commands, run in the repository, that each try to make the host run `payload`."""
    script = "#!/bin/sh\n" + payload(marker) + " >/dev/null </dev/null\n"
    write_script = "printf %s {body} > {path} && chmod +x {path}".format
    quoted = shlex.quote(script)
    run = shlex.quote(payload(marker))
    return {
        "post-merge hook": write_script(body=quoted, path=".git/hooks/post-merge"),
        "pre-merge-commit hook": write_script(body=quoted, path=".git/hooks/pre-merge-commit"),
        "hooksPath into the working tree": (
            "mkdir -p hooks && "
            + write_script(body=quoted, path="hooks/post-merge")
            + " && git config core.hooksPath hooks"
        ),
        "fsmonitor": (
            write_script(body=quoted, path="fsmonitor.sh")
            + ' && git config core.fsmonitor "$PWD/fsmonitor.sh"'
        ),
        "filter driver via .gitattributes": (
            "echo '* filter=tidy' > .gitattributes && "
            f"git config filter.tidy.clean {run} && git config filter.tidy.smudge {run}"
        ),
        "textconv driver via .gitattributes": (
            "echo '*.py diff=pretty' > .gitattributes && "
            f"git config diff.pretty.textconv {shlex.quote(payload(marker) + ' < ')}"
        ),
        "external diff": write_script(body=quoted, path="differ.sh")
        + ' && git config diff.external "$PWD/differ.sh"',
        "include.path from the working tree": (
            "printf '[core]\\n\\tfsmonitor = %s\\n' \"$PWD/fsmonitor.sh\" > extra.cfg && "
            + write_script(body=quoted, path="fsmonitor.sh")
            + ' && git config include.path "$PWD/extra.cfg"'
        ),
        "a new .git in place of the old one": (
            "mv .git .git-old && cp -r .git-old .git && "
            + write_script(body=quoted, path=".git/hooks/post-merge")
        ),
    }


def plain_git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    """git as it is usually called: no protection beyond ignoring your own configuration."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    env.update(GIT_AUTHOR_NAME="A", GIT_AUTHOR_EMAIL="a@example.com")
    env.update(GIT_COMMITTER_NAME="A", GIT_COMMITTER_EMAIL="a@example.com")
    return subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=False
    )


def plain_host_actions(repo: Path) -> None:
    """The host's side done with plain git: proof that the plants above are real doors."""
    plain_git(repo, "status", "--porcelain")
    plain_git(repo, "diff", "main...pr-482")
    plain_git(repo, "diff", "HEAD")
    plain_git(repo, "merge", "--no-ff", "--no-edit", "pr-483")


def host_actions(repo: PrRepo) -> str:
    """What course code does with the repository on the host (notebooks 04-07): "ran" or "refused".

    The reviewer's tools (diff, listing, reading), notebook 07's `main_history` and `merge_pr`.
    """
    try:
        repo.get_diff(482)
        repo.get_diff(483)
        repo.list_files()
        repo.read_file("invoicing/pricing.py")
        git(repo.path, "log", "--format=%s", "-3", "main")
        git(repo.path, "status", "--porcelain")
        git(repo.path, "merge", "--no-ff", "--no-edit", "pr-483")
    except UnsafeRepository:
        return "refused"
    return "ran"
