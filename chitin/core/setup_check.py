"""What ``chitin check`` says of the setup around the store: the hooks, MCP entries
and merge driver that run a chitin (or a store) that is gone, a clone whose git
config lacks the merge driver its .gitattributes names (git config is not cloned),
and a sync stopped on a conflict in this clone."""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Mapping
from pathlib import Path

from chitin.core import hooks
from chitin.core.host_files import Installed, is_gone
from chitin.format import lint
from chitin.format.lint import Finding
from chitin.location import is_store
from chitin.store import conflicts, remote
from chitin.store.git import Git


def setup_findings(
    root: Path,
    home: Path,
    openclaw_dir: Path,
    env: Mapping[str, str] | None = None,
    here: Path | None = None,
) -> list[Finding]:
    """Warnings for a chitin that git's merge driver or an agent host's hook runs by
    absolute path, and that is no longer there (its virtual environment was removed,
    chitin was reinstalled elsewhere): those hooks give up quietly, so say it here.
    And for a merge driver .gitattributes names that git's config does not."""

    named = hooks.installed_programs(home, openclaw_dir, env, here)
    git = Git(root)
    unset: list[Finding] = []
    if git.is_repository():
        driver = remote.configured(git, "merge.chitin.driver")
        program = driver.split(" merge-driver ")[0] if " merge-driver " in driver else ""
        with contextlib.suppress(ValueError, IndexError):
            program = shlex.split(program)[0]
            where = root / ".git" / "config"
            named.append(Installed(where, "git's merge driver runs", program, "chitin init"))
        if not driver and remote.driver_wanted(root):
            unset.append(_driver_unset())
    gone = [
        Finding(
            str(item.where),
            "chitin",
            f"{item.what} {item.program}, which is no longer there, so nothing happens",
            f"run `{item.fix}` with the chitin you use now",
            lint.WARNING,
            "setup",
        )
        for item in named
        if is_gone(item.program)
    ]
    stores = [_store_gone(item) for item in named if item.store and _not_store(item.store)]
    return unset + gone + stores


def _driver_unset() -> Finding:
    """A plain `git clone` of a store: .gitattributes sends insight files to chitin's
    merge driver, but git's config, which is not cloned, does not define it, so a `git
    pull` merges them by lines (two reinforcements conflict)."""
    return Finding(
        ".git/config",
        "merge.chitin",
        "git's config does not define chitin's merge driver, which .gitattributes names "
        "(git config is not cloned), so a `git pull` merges insight files by lines",
        "run `chitin init` once in this clone (chitin's next write or sync does it too)",
        lint.WARNING,
        "setup",
    )


def _not_store(folder: str) -> bool:
    return not is_store(Path(folder))


def _store_gone(item: Installed) -> Finding:
    """A hook bound at install to a store that is no longer one (moved, removed): the
    host's sessions would start from an empty store."""
    return Finding(
        str(item.where),
        "store",
        f"{item.what} chitin on the store {item.store}, which is no longer there (no "
        "insights/ and .git), so its sessions see an empty store",
        "run `chitin --store <the store> hooks install …` again for the store you use now",
        lint.WARNING,
        "setup",
    )


def stopped_sync_findings(root: Path) -> list[Finding]:
    """The files a sync stopped on: no read meets them (they wait in .chitin/conflicts/,
    the store keeps its last commit), so only this says that the other side's changes
    are not in yet. An error per file not yet settled, until the sync is finished."""
    stopped = conflicts.load(Git(root))
    if stopped is None:
        return []
    settled = {path for path, _ in stopped.removed}
    return [_stopped(root, path) for path in stopped.paths if path not in settled]


def _stopped(root: Path, path: str) -> Finding:
    waiting = f"{conflicts.FOLDER}/{path}"
    name = Path(path).stem if path.startswith(("insights/", "archive/")) else path
    sides = f"`chitin sync --ours {name}` (or --theirs) keeps one side"
    if conflicts.marked(root, path):
        said = f"both wait in {waiting}, between git's conflict markers"
        fix = f"edit that file into the version to keep, then `chitin sync --continue`; or {sides}"
    else:  # edited already, or a change against a removal: no markers to take out
        said = f"the version to keep waits in {waiting}, not merged yet"
        fix = f"check it, then `chitin sync --continue`; or {sides}"
    return Finding(
        path,
        "file",
        f"changed on both sides in a stopped sync; {said}",
        f"{fix}; or `chitin sync --abort`",
        lint.ERROR,
        "merge-conflict",
    )
