"""The store's insight files at a git revision, or in the working tree, read in bulk.

``chitin diff`` compares two sides. Rather than parse every insight of both, it asks
git which insight files differ (``git diff --raw``: one process, no file read) and reads
only those: their blobs through one ``git cat-file --batch``, and, for the working tree,
the files themselves (hand edits and untracked files included, as every other command
sees them). ``write_snapshot`` puts a revision's files in a folder, so that it can be
rendered as a store of its own.

Paths are relative to the store root, which may be a sub-folder of the repository:
git runs there, and ``--relative`` keeps its paths relative to it too.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from chitin.errors import ChitinError, StoreError, ValidationError
from chitin.format.layout import ARCHIVE_DIR, SCANNED_DIRS, is_insight_path
from chitin.format.lint import fix_for
from chitin.format.markdown import parse
from chitin.model.diff import Unreadable, Version
from chitin.store.files import (
    UnsafeFile,
    read_file,
    through_link,
)
from chitin.store.git import Git
from chitin.store.messages import trailers_of

# Besides the insights, what a rendering of a revision reads from the store root.
RENDER_FILES = ("chitin.yaml", "templates/PERSONALITY.md")
# A file without a `created` time gets this one, on both sides alike, so that the
# comparison does not depend on when a file happened to be checked out.
_NO_TIME = "1970-01-01T00:00:00Z"
_NULL_SHA = "0" * 40


class Problem(NamedTuple):
    """Why a file is not an insight, and the fix every read's warning gives for it."""

    error: str
    fix: str | None = None


class FileVersions(NamedTuple):
    """An insight file that differs between the sides: its bytes on each (None: absent),
    and why the working tree's file was not read, if it was not (a symbolic link, a
    FIFO, a file too large: see files.read_file)."""

    path: str
    old: bytes | None
    new: bytes | None
    problem: Problem | None = None


class Sides(NamedTuple):
    """The insights that differ, by id, on each side, and the files that could not be read."""

    old: dict[str, Version]
    new: dict[str, Version]
    unreadable: list[Unreadable]


# ---------------------------------------------------------------- revisions


def check_repository(git: Git) -> None:
    """Refuse a store that is not in a git repository: it has no revisions."""
    if git.run(["rev-parse", "--show-prefix"], check=False).returncode != 0:
        raise StoreError(
            f"the store at {git.root} is not a git repository, so it has no revisions to compare"
        )


def resolve(git: Git, revision: str) -> str:
    """The full id of the commit ``revision`` names (a branch, tag, sha, HEAD~2, …)."""
    # A name starting with '-' would be read as an option; no commit is named so.
    if revision and not revision.startswith("-"):
        found = git.run(["rev-parse", "-q", "--verify", f"{revision}^{{commit}}"], check=False)
        if found.returncode == 0 and found.stdout.strip():
            return found.stdout.strip()
    raise ValidationError(
        "revision", f"unknown revision {revision!r}: the store has no commit by that name"
    )


def merge_base(git: Git, first: str, second: str) -> str:
    """The best common ancestor of two commits, as ``git diff A...B`` uses."""
    found = git.run(["merge-base", first, second], check=False)
    if found.returncode != 0 or not found.stdout.strip():
        raise ValidationError(
            "revision", f"commits {first[:12]} and {second[:12]} have no common ancestor"
        )
    return found.stdout.split()[0]


def empty_tree(git: Git) -> str:
    """The id of the empty tree, in this repository's hash (the side before any commit)."""
    return git.run(["hash-object", "-t", "tree", "--stdin"], input="").stdout.strip()


def merged_between(git: Git, old: str | None, new: str) -> dict[str, str]:
    """Sources of the merges committed after ``old`` up to ``new``: source id → target id.

    Read from the ``Chitin-Op: merge`` commits' trailers (``Chitin-Merged`` names the
    sources, comma-separated where one commit folded several, as ``merge a b target``
    and ``dedupe --apply`` do; ``Chitin-Insight`` the target), oldest first, so a chain
    of merges ends at the last target.
    """
    span = f"{old}..{new}" if old else new
    grep = ["--fixed-strings", "--grep=Chitin-Op: merge"]
    log = git.run(["log", "--reverse", "-z", "--format=%B", *grep, span]).stdout
    merged: dict[str, str] = {}
    for message in log.split("\0"):
        trailers = trailers_of(message)
        if trailers.get("Op") == "merge" and "Merged" in trailers and "Insight" in trailers:
            for source in trailers["Merged"].split(", "):
                merged[source] = trailers["Insight"]
    # A source merged into a target that was itself merged on: follow to the end.
    return {source: _last(merged, target) for source, target in merged.items()}


def _last(merged: dict[str, str], target: str) -> str:
    seen = {target}
    while target in merged and merged[target] not in seen:
        target = merged[target]
        seen.add(target)
    return target


# ---------------------------------------------------------------- what differs


def changed_files(git: Git, old: str | None, new: str | None) -> list[FileVersions]:
    """The insight files that differ from commit ``old`` (None: before any commit) to
    commit ``new`` (None: the working tree), with their bytes on each side."""
    base = old or empty_tree(git)
    args = ["--no-optional-locks", "diff", "--raw", "-z", "--no-abbrev", "--no-renames"]
    sides = [base] if new is None else [base, new]
    raw = git.run([*args, "--relative", *sides, "--", *SCANNED_DIRS]).stdout
    records = {path: (old_sha, new_sha) for old_sha, new_sha, path in _raw_records(raw)}
    if new is None:  # untracked files are in no diff; they are part of the working tree
        _add_untracked(git, base if old else None, records)
    blobs = git.cat_blobs(sha for pair in records.values() for sha in pair)
    found: list[FileVersions] = []
    for path, (old_sha, new_sha) in sorted(records.items()):
        if new is None:
            after, problem = _from_disk(git.root, path)
            found.append(FileVersions(path, blobs.get(old_sha), after, problem))
        else:
            found.append(FileVersions(path, blobs.get(old_sha), blobs.get(new_sha)))
    return found


def _raw_records(raw: str) -> Iterator[tuple[str, str, str]]:
    """(old blob, new blob, path) of each insight file in ``git diff --raw -z`` output."""
    fields = raw.split("\0")
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.split()
        if len(parts) >= 5 and is_insight_path(path):
            yield parts[2], parts[3], path


def _add_untracked(git: Git, base: str | None, records: dict[str, tuple[str, str]]) -> None:
    """Add the untracked insight files, each with its blob at ``base`` if it has one
    (a file removed from the index but still on disk is listed as deleted already)."""
    untracked = [p for p in git.untracked(list(SCANNED_DIRS)) if is_insight_path(p)]
    fresh = [path for path in untracked if path not in records]
    at_base = _tree_blobs(git, base) if base and fresh else {}
    for path in untracked:
        old_sha = records[path][0] if path in records else at_base.get(path, _NULL_SHA)
        records[path] = (old_sha, _NULL_SHA)


def _tree_blobs(git: Git, commit: str) -> dict[str, str]:
    listed = git.run(["ls-tree", "-r", "-z", commit, "--", *SCANNED_DIRS]).stdout
    return dict(_tree_entries(listed))


def _from_disk(root: Path, path: str) -> tuple[bytes | None, Problem | None]:
    """The file's bytes, as every other command reads them: a symbolic link, a FIFO or
    a file too large is not read, and the reason is given instead."""
    if through_link(root, path):
        return None, None
    try:
        return read_file(root / path), None
    except UnsafeFile as error:
        return None, Problem(str(error), error.fix)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None, None


# ---------------------------------------------------------------- parsing


def versions(changed: Sequence[FileVersions]) -> Sides:
    """The insights of the changed files on each side, by id.

    A file that moved without a change (archive, unarchive) has the same bytes on both
    sides and is parsed once.
    """
    sides = Sides({}, {}, [])
    parsed: dict[tuple[bytes, str, str | None], Version | Problem] = {}
    for item in changed:
        if item.problem is not None:
            sides.unreadable.append(Unreadable(item.path, "to", *item.problem))
        for side, data, into in (("from", item.old, sides.old), ("to", item.new, sides.new)):
            if data is None:
                continue
            stem, kind = _fallbacks(item.path)
            key = (data, stem, kind)  # all that the reading depends on, but the place
            if key not in parsed:
                parsed[key] = _read_or_reason(item.path, data)
            found = parsed[key]
            problem = _place(found if isinstance(found, Problem) else _at(found, item.path), into)
            if problem:
                sides.unreadable.append(Unreadable(item.path, side, *problem))
    return sides


def _read_or_reason(path: str, data: bytes) -> Version | Problem:
    try:
        return read_version(path, data)
    except UnicodeDecodeError:
        return Problem("not UTF-8 text", "save it as UTF-8")
    except ChitinError as error:
        fix = getattr(error, "fix", None)
        if fix is None and isinstance(error, ValidationError):
            fix = fix_for(error)
        return Problem(str(error), fix)


def _place(version: Version | Problem, into: dict[str, Version]) -> Problem | None:
    """Add ``version`` to its side; the problem, if it cannot be."""
    if isinstance(version, Problem):
        return version
    held = into.get(version.insight.id)
    if held is not None:
        return Problem(f"id {version.insight.id} is also used by {held.path}")
    into[version.insight.id] = version
    return None


def read_version(path: str, data: bytes) -> Version:
    """One insight file's content, read as ``chitin`` reads the file at ``path``: a
    missing id, type or creation time falls back to the file name, folder and epoch."""
    stem, kind = _fallbacks(path)
    text = data.decode("utf-8")
    insight, layout = parse(text, fallback_id=stem, fallback_type=kind, fallback_time=_NO_TIME)
    return _at(Version(insight, path, layout.evidence), path)


def _fallbacks(path: str) -> tuple[str, str | None]:
    """The id and type a file at ``path`` has when its frontmatter leaves them out."""
    parts = path.split("/")
    return Path(path).stem, parts[1] if len(parts) > 2 else None


def _at(version: Version, path: str) -> Version:
    """``version`` as the file at ``path``: archived when it lies under archive/."""
    archived = path.startswith(ARCHIVE_DIR + "/")
    if version.path == path and version.insight.archived == archived:
        return version
    return Version(version.insight.with_changes(archived=archived), path, version.evidence)


# ---------------------------------------------------------------- snapshots


def write_snapshot(git: Git, commit: str, folder: Path) -> int:
    """Write the commit's insight files, chitin.yaml and template into ``folder``, a
    store of that revision without its history. Returns how many insight files.

    Files get the commit's time as their modification time, so that a file without a
    ``created`` time reads the same in every snapshot of that commit.
    """
    listed = git.run(["ls-tree", "-r", "-z", commit, "--", *SCANNED_DIRS, *RENDER_FILES]).stdout
    entries = dict(_tree_entries(listed))
    blobs = git.cat_blobs(entries.values())
    stamp = git.commit_time(commit).timestamp()
    for path, sha in entries.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blobs.get(sha, b""))
        os.utime(target, (stamp, stamp))
    return sum(1 for path in entries if is_insight_path(path))


def _tree_entries(listed: str) -> Iterable[tuple[str, str]]:
    """(path, blob) of each regular file in ``git ls-tree -r -z`` output."""
    for record in listed.split("\0"):
        meta, _, path = record.partition("\t")
        parts = meta.split()
        regular = len(parts) == 3 and parts[1] == "blob" and not parts[0].startswith("120")
        if regular and (is_insight_path(path) or path in RENDER_FILES):
            yield path, parts[2]
