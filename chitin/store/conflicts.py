"""A sync stopped by a conflict, kept until a chitin command finishes it.

git would leave the store mid-merge, with conflict markers in the insight files: every
read would then meet a file that does not parse, every write would refuse, and the fix
(``git add``, ``git commit``) needs git knowledge and a git identity. Instead sync
ends git's merge, so the store stays at its last commit (the conflicted insights keep
their last committed version), and keeps here what it needs to finish the merge later:

- ``.git/chitin-sync.json``: the commit that was being merged and the paths in conflict;
- ``.chitin/conflicts/<path>``: each conflicted file with git's markers, for a person
  to edit into the version to keep.

``chitin sync --continue`` (or ``--ours``/``--theirs`` per insight) merges that commit
again and takes the edited files (or the chosen side) for those paths.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from chitin.errors import ChitinError, StateError
from chitin.format.layout import is_insight_path
from chitin.store.files import atomic_write
from chitin.store.loading import read_as

if TYPE_CHECKING:
    from chitin.store.git import Git

RECORD = "chitin-sync.json"
FOLDER = ".chitin/conflicts"
MARKERS = ("<<<<<<< ", ">>>>>>> ")


class Stopped(NamedTuple):
    remote: str
    branch: str
    theirs: str  # the commit whose merge stopped
    paths: tuple[str, ...]
    # (path, "ours" or "theirs"): a side chosen that removes the file, so that there is
    # no text of it to keep here; a chosen side with a text is kept as that text
    removed: tuple[tuple[str, str], ...] = ()


def record_path(git: Git) -> Path:
    return git.git_dir() / RECORD


def text_path(root: Path, path: str) -> Path:
    """Where the person edits the conflicted file ``path``."""
    return root / FOLDER / path


def load(git: Git) -> Stopped | None:
    """The stopped sync, or None. A record that does not read is taken as none: the
    next sync merges again and stops again if it must."""
    try:
        data = json.loads(record_path(git).read_text(encoding="utf-8"))
        paths = tuple(str(p) for p in data["paths"])
        removed = tuple((str(p), str(side)) for p, side in data.get("removed", {}).items())
        where = (str(data["remote"]), str(data["branch"]), str(data["theirs"]))
        return Stopped(*where, paths, removed)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save(git: Git, stopped: Stopped, texts: dict[str, bytes]) -> None:
    """Keep the conflicted texts (written first) and the record (last, atomically)."""
    import shutil  # see clear()

    folder = git.root / FOLDER
    if folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
    for path, text in texts.items():
        target = text_path(git.root, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text)
    data = {"remote": stopped.remote, "branch": stopped.branch, "theirs": stopped.theirs}
    data["paths"] = list(stopped.paths)  # type: ignore[assignment]
    data["removed"] = dict(stopped.removed)  # type: ignore[assignment]
    atomic_write(record_path(git), json.dumps(data), durable=True)


def clear(git: Git) -> None:
    # shutil (~2-10 ms with bz2 and lzma) only here and in save(): every write reads
    # this module (refuse_writes), and only a sync's stop and finish remove folders.
    import shutil

    with contextlib.suppress(FileNotFoundError):
        record_path(git).unlink()
    shutil.rmtree(git.root / FOLDER, ignore_errors=True)


def refuse_writes(git: Git, paths: Iterable[str]) -> None:
    """Refuse a write to a file a stopped sync holds in conflict (or to its insight
    under another path: archived, or of another type). ``sync --continue`` takes the
    version edited in .chitin/conflicts/ (``--ours``/``--theirs`` a side as it was at
    the stop) over whatever the store holds then, so the write would be lost without a
    word: an update or a reinforcement made meanwhile was."""
    stopped = load(git) if record_path(git).exists() else None
    if stopped is None:
        return
    held = {*stopped.paths, *(_id(p) for p in stopped.paths if is_insight_path(p))}
    for path in paths:
        if path in held or (is_insight_path(path) and _id(path) in held):
            name = _id(path) if is_insight_path(path) else path
            raise StateError(
                f"{name} is in conflict in a stopped sync, and a change to it now would be "
                f"lost when the sync finishes; finish it first: edit "
                f"{text_path(git.root, _stopped_path(stopped, path))} and run "
                f"`chitin sync --continue`, keep one side (`chitin sync --ours {name}` or "
                f"--theirs), or `chitin sync --abort`"
            )


def _id(path: str) -> str:
    return Path(path).stem


def _stopped_path(stopped: Stopped, path: str) -> str:
    """The conflicted path that stands for ``path`` (the same file, or its insight)."""
    return next((p for p in stopped.paths if p == path or _id(p) == _id(path)), path)


def marked(root: Path, path: str) -> bool:
    """Whether the person's version of a conflicted file still holds conflict markers
    (or is gone)."""
    try:
        data = text_path(root, path).read_bytes()
    except OSError:
        return True
    return _has_markers(data)


def _has_markers(data: bytes) -> bool:
    lines = data.decode("utf-8", "replace").splitlines()
    return any(line.startswith(MARKERS) for line in lines)


def edited(root: Path, path: str) -> bytes:
    """The person's version of a conflicted file. Refuses a text that is gone (say
    ``.chitin/`` was removed) or that still holds conflict markers."""
    target = text_path(root, path)
    stem = Path(path).stem
    try:
        data = _regular_bytes(target, stem)
    except FileNotFoundError:
        raise StateError(
            f"{target} is gone, so there is no edited version of {path}; keep one side "
            f"(chitin sync --ours {stem}, or --theirs {stem}) or run `chitin sync --abort` "
            "and sync again"
        ) from None
    if _has_markers(data):
        raise StateError(
            f"{target} still holds conflict markers (<<<<<<< … >>>>>>>); edit it into the "
            f"version to keep, or keep one side: chitin sync --ours {stem} "
            f"(or --theirs {stem})"
        )
    if is_insight_path(path):  # README.md, chitin.yaml and the like are any text
        _readable(target, path, data)
    return data


def _regular_bytes(target: Path, stem: str) -> bytes:
    """The bytes of ``target`` if it is a regular file. A symlink there would have the
    contents of whatever file it points at committed and pushed (README.md and the like
    are taken as any text), so it is refused, as is a folder or a device."""
    if not stat.S_ISREG(target.lstat().st_mode):
        raise StateError(
            f"{target} is not a regular file (a symlink, a folder or the like), so it is "
            f"not taken as the edited version; replace it with a plain file holding the "
            f"version to keep and run `chitin sync --continue` again, or keep one side: "
            f"chitin sync --ours {stem} (or --theirs {stem})"
        )
    descriptor = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(descriptor, "rb") as file:  # no link followed if one came meanwhile
        return file.read()


def _readable(target: Path, path: str, data: bytes) -> None:
    """Refuse an edit that would not read as the insight at ``path``: merged, it would
    be committed and pushed to every machine, where every read would skip it."""
    try:
        read_as(path, data)
    except (ChitinError, UnicodeDecodeError) as error:
        stem = Path(path).stem
        raise StateError(
            f"{target} does not read as the insight: {error}; fix it and run "
            f"`chitin sync --continue` again, or keep one side: chitin sync --ours {stem} "
            f"(or --theirs {stem})"
        ) from None
