"""Course machinery: run git on your machine over a folder that an agent's commands could write.

Notebook 07 merges pull requests with a real `git merge`, in the same repository where the
agent's shell commands run. bubblewrap keeps the repository's `.git` read-only for those
commands, but git on the host must not trust that folder either: a repository names programs
that git runs on its own, outside any sandbox and with your environment.

- hooks (`.git/hooks/post-merge`, or any folder `core.hooksPath` names);
- `core.fsmonitor`, run by `git status` and `git diff`;
- filter, textconv, diff and merge drivers, chosen per file by `.gitattributes`;
- `diff.external`, `core.pager`, `core.sshCommand`, `core.editor`, `gpg.program`, aliases,
  and an `include.path` that pulls in another file with more of the same.

`run_git()` is the one way course code runs git on the host. It turns hooks and fsmonitor off
on the command line (`-c core.hooksPath=/dev/null -c core.fsmonitor=false`), reads no system or
global configuration, passes only the allow-listed environment of `commands.safe_environment()`
(no tokens; a PATH of absolute folders only), and stops git from looking for a repository above
the folder it was given. Before each call it reads the repository's own configuration and
refuses to run if a single setting is not on a short list of harmless ones: a setting that
names a program can then never be reached, whatever its name, and a driver that
`.gitattributes` asks for does not exist.

Two things outside that configuration are refused as well. A gitlink (a submodule, mode 160000)
in the index: `git status` and `git diff` look into the submodule's working folder, and so run
the filters its own configuration names, a configuration a command can write; the
`.gitmodules` file (`ignore = none`) can undo `diff.ignoreSubmodules`, so refusing is the only
sound answer. And `objects/info/alternates` or an `objects` folder that is a link, which make
git read another repository's objects. Replace refs (`refs/replace/`, which make git show one
commit in place of another) are ignored: every call passes `--no-replace-objects`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from course_helpers.plumbing.commands import safe_environment

# On the command line, these win over anything a repository's configuration says.
OPTIONS = (
    "--no-replace-objects",  # refs/replace/ would let a diff show one commit in place of another
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.pager=cat",
    "-c",
    "protocol.allow=never",
    "-c",
    "commit.gpgSign=false",
    "-c",
    "log.showSignature=false",
    "-c",
    "core.quotePath=true",
    "-c",
    "submodule.recurse=false",
    "-c",
    "diff.ignoreSubmodules=all",
)
# The settings `git init` writes, and nothing else: none of them names a program.
HARMLESS_SETTINGS = frozenset(
    {
        "core.repositoryformatversion",
        "core.filemode",
        "core.bare",
        "core.logallrefupdates",
        "core.ignorecase",
        "core.precomposeunicode",
        "core.symlinks",
        "extensions.objectformat",
    }
)
# The only variables a caller may add: who wrote a commit, and when.
IDENTITY_VARIABLES = frozenset(
    {
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
    }
)


class UnsafeRepository(RuntimeError):
    """The repository's configuration holds a setting course code does not run git with."""


def git_environment(repo: str | os.PathLike[str], identity: Mapping[str, str] | None = None):
    """The environment of a host-side git call on `repo`: nothing of yours that git could use.

    The allow-list of `safe_environment()` (no GIT_DIR, GIT_CONFIG_*, GIT_EXTERNAL_DIFF or
    tokens from the process around it), a PATH without relative folders, no system or global
    configuration, no pager, no editor, no password prompt, and no search for a repository
    above `repo`'s parent folder.
    """
    identity = dict(identity or {})
    unknown = sorted(set(identity) - IDENTITY_VARIABLES)
    if unknown:
        raise ValueError(f"only author and committer variables may be added, not {unknown}")
    env = safe_environment()  # PATH holds absolute folders only: no ./git
    env.setdefault("PATH", os.defpath)
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_SYSTEM=os.devnull,
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CEILING_DIRECTORIES=os.path.dirname(os.path.abspath(repo)),
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_EDITOR=":",
        LC_ALL="C",
    )
    env.update(identity)
    return env


def _git_program(env: Mapping[str, str]) -> str:
    program = shutil.which("git", path=env["PATH"])
    if program is None:
        raise RuntimeError("git is not installed (or not on PATH)")
    return program


def _run(repo: Path, args: tuple[str, ...], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [_git_program(env), "--no-pager", "-C", str(repo), *args],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def unsafe_settings(repo: str | os.PathLike[str]) -> list[str]:
    """The settings of the repository at `repo` that are not on the harmless list.

    `git config --list` reads configuration and runs nothing; `--no-includes` lists an
    `include.path` as a setting instead of following it. With no system or global
    configuration and no OPTIONS on this command line, every name listed is the repository's.
    """
    repo = Path(repo).absolute()
    listing = ("config", "--list", "--name-only", "--no-includes", "-z")
    listed = _run(repo, listing, git_environment(repo))
    if listed.returncode not in (0, 1):  # 1: no setting at all
        raise RuntimeError(f"git config --list failed in {repo}: {listed.stderr.strip()}")
    names = [name for name in listed.stdout.split("\0") if name]
    return sorted({name for name in names if name.lower() not in HARMLESS_SETTINGS})


def unsafe_layout(repo: str | os.PathLike[str]) -> str | None:
    """Why the repository at `repo` is refused apart from its settings, or None.

    `git rev-parse` and `git ls-files --stage` read the git folder and the index; neither looks
    at the working folder or runs a filter. Not a repository: None (the git call says so).
    """
    repo = Path(repo).absolute()
    env = git_environment(repo)
    where = _run(repo, (*OPTIONS, "rev-parse", "--absolute-git-dir", "--git-common-dir"), env)
    if where.returncode != 0:
        return None
    for folder in dict.fromkeys(where.stdout.splitlines()):
        alternates = repo / folder / "objects" / "info" / "alternates"  # an absolute one wins
        if os.path.lexists(alternates):
            return f"its object store names another one ({alternates})"
        objects = repo / folder / "objects"
        if os.path.islink(objects):  # the same as an alternates file, by another door
            return f"its object store is a link to another one ({objects})"
    index = _run(repo, (*OPTIONS, "ls-files", "--stage", "-z"), env)
    if index.returncode != 0:
        raise RuntimeError(f"git ls-files failed in {repo}: {index.stderr.strip()}")
    for entry in index.stdout.split("\0"):
        if entry.startswith("160000 "):
            return f"its index holds a submodule ({entry.split(chr(9), 1)[-1]!r})"
    return None


def run_git(
    repo: str | os.PathLike[str], *args: str, identity: Mapping[str, str] | None = None
) -> str:
    """Run `git -C repo args...` on the host with nothing in `repo` able to run a program.

    Returns git's standard output. Raises UnsafeRepository if the repository's configuration
    holds a setting outside HARMLESS_SETTINGS, or its index a submodule, or its object store
    an `alternates` file or is a link; and RuntimeError if git fails.
    """
    repo = Path(repo).absolute()
    if not repo.is_dir():
        raise NotADirectoryError(f"{repo} is not a folder")
    unsafe = unsafe_settings(repo)
    if unsafe:
        raise UnsafeRepository(
            f"Refused to run git in {repo}: its configuration sets {', '.join(unsafe)}. A "
            "setting there can name a program for git to run; course code runs git only on "
            "repositories whose configuration is what `git init` writes."
        )
    layout = unsafe_layout(repo)
    if layout:
        raise UnsafeRepository(
            f"Refused to run git in {repo}: {layout}. git would read or run what that other "
            "repository holds; course code runs git only on a repository of its own."
        )
    result = _run(repo, (*OPTIONS, *args), git_environment(repo, identity))
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout
