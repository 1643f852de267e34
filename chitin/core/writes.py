"""Files the CLI writes outside the store's insights: an ``--output`` file (render,
export) and the merge driver's result over git's ``%A``. All of them go through
``write_file``: atomically, so a reader never sees half a file."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from chitin.errors import ChitinError, StoreError, ValidationError
from chitin.format.layout import ARCHIVE_DIR, INSIGHTS_DIR
from chitin.model import arguments
from chitin.model.bounds import MAX_INSIGHT_BYTES
from chitin.store.files import UnsafeFile, atomic_write, kind_of, read_text
from chitin.store.merging import Merged, merge_texts, unreadable


class Unmergeable(ChitinError):
    """A version of the file the merge driver cannot read: a person resolves it."""


def write_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file renamed over it)."""

    atomic_write(path, text)


def output_target(path: Path) -> Path:
    """The regular file ``--output path`` writes: ``path``, or the file a symlink there
    points to (which is replaced in place, so the link stays a link). Anything else
    (a folder, FIFO, socket or device, also behind a symlink) is refused: replacing
    it by a regular file would break what it was, and writing into it could block
    or reach a device."""

    path = _named("path", path)
    try:
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
    except OSError as error:  # a name too long to look up
        raise StoreError(f"cannot write {path}: {(error.strerror or '').lower()}") from None
    via = f" (a symlink to {target})" if target != path else ""
    try:
        # What the link leads to, followed as a write would follow it: /dev/stdout's
        # "pipe:[…]" is no path realpath can give, but the pipe is there to stat.
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        _refuse_missing_folder(path, target)
        return target  # a new file
    except OSError as error:
        raise StoreError(f"{path}{via} cannot be written: {error.strerror}") from None
    if stat.S_ISREG(mode):
        return target

    kind = kind_of(mode, "not a regular file")
    raise StoreError(
        f"{path}{via} is {kind}; --output writes only regular files (`--output -` writes to stdout)"
    )


def _refuse_missing_folder(path: Path, target: Path) -> None:
    """A new file goes into a folder that exists: a typo in --output must not make a
    tree of folders somewhere (as `>` in a shell would not)."""
    folder = target.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise StoreError(
            f"cannot write {path}: the folder {folder} {what} (--output makes no folders)"
        )


def write_output(path: Path, text: str, store: Path | None = None) -> None:
    """Write ``--output``: atomically, to the regular file ``output_target`` names
    (checked again: it may have changed while the command ran). With ``store``, never
    into the files the store keeps (see ``_refuse_inside``)."""
    path, text = _named("path", path), arguments.text("text", text)
    try:
        target = output_target(path)
        if store is not None:
            _refuse_inside(path, target, _named("store", store))
        write_file(target, text)
    except OSError as error:
        if error.errno not in _NOT_WRITABLE_HERE:
            raise  # no permission, no space, read-only: render/failures.py names those
        reason = (error.strerror or "cannot be written").lower()
        raise StoreError(f"cannot write {path}: {reason} (choose another --output)") from None


# What a store keeps for itself: git's files, the derived data, and the insight files
# (written by chitin's commands and a person's editor, never by an --output).
_KEPT = (".git", ".chitin", INSIGHTS_DIR, ARCHIVE_DIR)


def _refuse_inside(path: Path, target: Path, store: Path) -> None:
    """A rendered PERSONALITY.md or an export written over `.git/HEAD` or an insight
    file breaks the store it came from: such an --output is refused."""
    where, root = Path(os.path.realpath(target)), Path(os.path.realpath(store))
    for kept in _KEPT:
        if where.is_relative_to(root / kept):
            raise StoreError(
                f"cannot write {path}: it is inside the store's {kept}/ ({root / kept}), "
                "which chitin keeps; choose an --output outside .git/, .chitin/, "
                f"{INSIGHTS_DIR}/ and {ARCHIVE_DIR}/"
            )


# What a path can say when the folder exists but the file cannot be made in it: a name
# longer than the file system allows, a folder that takes no new files (/proc), a name
# the file system refuses. Said as the user's --output, not as chitin's temporary file.
_NOT_WRITABLE_HERE = frozenset(
    {errno.ENAMETOOLONG, errno.ENOENT, errno.EINVAL, errno.EISDIR, errno.ENOTDIR}
)


def _named(name: str, raw: object) -> Path:
    """A file a library caller names: a Path, or its text."""
    given = arguments.path(name, raw)
    if given is None:
        raise ValidationError(name, f"{name} must be a path, got None")
    return given


def _refuse_oversized(text: str) -> None:
    """Two versions within the limit can merge into one over it (both sides' evidence
    lines): such a file would never be read again, so a person resolves it."""

    size = len(text.encode("utf-8"))
    if size > MAX_INSIGHT_BYTES:
        raise Unmergeable(
            f"the merged file would be {size:,} bytes, more than an insight file may hold "
            f"({MAX_INSIGHT_BYTES:,})"
        )


def _refuse_unreadable(merged: Merged, ours: str, name: str) -> None:
    """A clean merge must not turn OURS, which chitin reads, into a file it cannot:
    a side that does not parse is merged by lines, which take its out-of-bounds value
    (a count of 2^63, the year 10000) as readily as any. A person resolves it."""

    if merged.conflicts or unreadable(ours, name) is not None:
        return
    why = unreadable(merged.text, name)
    if why is not None:
        raise Unmergeable(f"the merged file could not be read: {why}")


def merge_file(base: Path, ours: Path, theirs: Path, name: str) -> tuple[str, ...]:
    """git's merge driver: merge the three versions of one insight file field by field
    and write the result over ``ours``. The fields changed differently on both sides
    (the file then holds conflict markers); empty when merged. A version that cannot
    be read (too large, not UTF-8), or a clean merge that chitin could not read while
    it reads ``ours``, raises ``Unmergeable`` and ``ours`` stays as it is."""

    base, ours, theirs = _named("base", base), _named("ours", ours), _named("theirs", theirs)
    name = arguments.text("name", name)
    try:
        base_text, ours_text, theirs_text = (read_text(side) for side in (base, ours, theirs))
    except UnsafeFile as error:
        raise Unmergeable(f"a version is {error}") from None
    except UnicodeDecodeError:
        raise Unmergeable("not UTF-8 text") from None
    merged = merge_texts(
        base_text or None,  # git passes an empty base when both sides added the file
        ours_text,
        theirs_text,
        name,
    )
    _refuse_oversized(merged.text)
    _refuse_unreadable(merged, ours_text, name)
    write_file(ours, merged.text)
    return tuple(merged.conflicts)
