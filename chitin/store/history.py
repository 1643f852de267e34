"""The history chitin reads back from ``git log`` (the messages it writes: messages.py).

Every operation is one commit whose trailers name it (``Chitin-Op``), the insight
(``Chitin-Insight``) and, where given, the source and evidence. History is not kept
anywhere else: ``history`` and ``changelog`` are views of git's log, so commits made
by hand, by ``git revert`` or by a pull show up too.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

from chitin.errors import ChitinError
from chitin.format.layout import ARCHIVE_DIR
from chitin.format.markdown import parse
from chitin.model.diff import field_changes
from chitin.model.history import Entry
from chitin.model.insight import Insight, format_timestamp, js_number
from chitin.store.deleted import Deleted as Deleted
from chitin.store.deleted import deleted as deleted
from chitin.store.deleted import last_version as last_version
from chitin.store.git import Git
from chitin.store.history_rows import (
    legacy_entry,
    reinforce_source,
    renamed,
    reverted,
    uncommitted_pair,
)
from chitin.store.merged import MergedAway as MergedAway
from chitin.store.merged import merged_away as merged_away
from chitin.store.messages import TRAILER_PREFIX, carried_rows, trailers_of

_RECORD, _UNIT = "\x1e", "\x1f"
_NULL_SHA = "0" * 40


class _Commit(NamedTuple):
    sha: str
    when: str
    author: str
    trailers: dict[str, str]
    changes: list[tuple[str, str, str, str]]  # (old blob, new blob, old path, new path)
    message: str
    merge: bool = False  # a commit of several parents (a sync's merge)


# Chitin-Op values and the history change type each one records.
_CHANGE_TYPES = {
    "contribute": "create",
    "import": "create",
    "import-carapace": "create",
    "promote": "update",
    "migrate": "create",
    "seed": "create",
    "update": "update",
    "reinforce": "reinforce",
    "merge": "merge",
    "archive": "archive",
    "unarchive": "unarchive",
    "sync": "sync",
}


def insight_history(git: Git, path: str, limit: int | None = None) -> list[Entry]:
    """Changes to the file at ``path``, oldest first, following renames (archive).
    With ``limit``, the newest ``limit`` changes (the original returned the oldest)."""
    count = [f"-n{limit}"] if limit else []
    touched, logged = [], list(_log(git, ["--follow", "-m", *count], [path]))
    while logged:  # back to a creation, and on past one undoing a delete (git revert)
        touched += _since_created(_merges_once(logged))
        logged = _before_brought_back(git, touched[-1], count) if touched else []
    per_commit = _entries(git, touched, targets=False)
    named = _named_only(git, Path(path).stem, {c.sha for c in touched}, count)
    newest_first = _by_time(git, list(zip(touched, per_commit, strict=True)), named)[:limit]
    changes = [entry for _, entries in reversed(newest_first) for entry in entries]
    changes += _uncommitted(git, path)  # the newest, as `git status` would say
    # N changes, not N commits: an update of three fields is three (1.x's LIMIT on rows).
    return changes[-limit:] if limit else changes


def _uncommitted(git: Git, path: str) -> list[Entry]:
    """The working tree's change to the file since HEAD, marked uncommitted."""
    found = uncommitted_pair(git, path)
    if found is None:
        return []
    head, now, when = found
    commit = _Commit("", when, "", {}, [], "")
    old, new = _insight(head, path), _insight(now, path)
    rows = _commit_entries(commit, old, new, (path, path)) if new is not None else []
    return [row._replace(uncommitted=True) for row in rows]


def _since_created(newest_first: list[_Commit]) -> list[_Commit]:
    """The commits of the file from the newest to the one that created it. git's
    --follow also follows copies (it looks for them harder than -M does): a new insight
    much like an older one (short claims, the same frontmatter keys) is read as a copy
    of it, and the older one's commits would follow as if they were this insight's.
    A copy is read as a creation (``_raw_changes``), and nothing before it counts; an
    archive's rename (the same file name) is followed as before."""
    for position, commit in enumerate(newest_first):
        if any(old_blob == _NULL_SHA for old_blob, *_ in commit.changes):
            return newest_first[: position + 1]
    return newest_first


def _before_brought_back(git: Git, made: _Commit, count: list[str]) -> list[_Commit]:
    """The file's commits before ``made``, if ``made`` brought back what they deleted
    (chitin's own creations are the first: nothing to look for)."""
    ours = _CHANGE_TYPES.get(made.trailers.get("Op", "")) == "create"
    paths = [] if ours else [path for old, _, _, path in made.changes if old == _NULL_SHA][:1]
    earlier = list(_log(git, ["--follow", "-m", *count, f"{made.sha}^@"], paths)) if paths else []
    return earlier if any(n == _NULL_SHA for c in earlier[:1] for _, n, *_ in c.changes) else []


def _merges_once(newest_first: list[_Commit]) -> list[_Commit]:
    """Each merge once, as the change that makes the history end where the merge did.

    ``git log -m`` shows a merge once per parent whose version of the file differs
    from the merge's. Both sides' own commits are already in the history, in time
    order; what the merge adds is the step from the newest of them (the next commit
    down) to the version the merge kept: nothing when that is the same (the merge
    took it), else the difference from that side (say a sync kept the older side, or
    added up both sides' reinforcements). A side without the file is no step."""
    kept: list[_Commit] = []
    for position, commit in enumerate(newest_first):
        if not commit.merge:
            kept.append(commit)
            continue
        if kept and kept[-1].sha == commit.sha:
            continue  # the same merge against its other parent: chosen below already
        sides = [c for c in newest_first[position:] if c.sha == commit.sha]
        older = next((c for c in newest_first[position:] if c.sha != commit.sha), None)
        chosen = _step(sides, older.changes[0][1] if older and older.changes else None)
        if chosen is not None:
            kept.append(chosen)
    return kept


def _step(sides: list[_Commit], newest: str | None) -> _Commit | None:
    """Of a merge's records (one per parent it differs from), the one from the blob
    ``newest``, else the first from a side that had the file; None when the merge
    kept ``newest`` itself or no side had the file."""
    changes = [(s, c) for s in sides for c in s.changes[:1] if c[0] != _NULL_SHA]
    if not changes or changes[0][1][1] == newest:
        return None
    side, change = next(((s, c) for s, c in changes if c[0] == newest), changes[0])
    return side._replace(changes=[change])


def _named_only(
    git: Git, insight_id: str, seen: set[str], count: list[str]
) -> list[tuple[_Commit, list[Entry]]]:
    """Commits whose ``Chitin-Insight`` trailer names the insight but which left its
    file as it was (a merge in the same second, with nothing new for the target): a
    path-based log misses them, and the insight's history would lose the merge."""
    grep = ["-F", f"--grep={TRAILER_PREFIX}Insight: {insight_id}", *count]
    found = []
    for commit in _log(git, grep, []):
        if commit.sha in seen or commit.trailers.get("Insight") != insight_id:
            continue
        found.append((commit, [_named_row(commit, insight_id)]))
    return found


def _named_row(commit: _Commit, insight_id: str) -> Entry:
    """The one row of a commit that names the insight but left its file as it was."""
    op, merged = commit.trailers.get("Op", ""), commit.trailers.get("Merged")
    source = f"merge:{merged}" if op == "merge" and merged else None
    change, at = _CHANGE_TYPES.get(op, "edit"), commit.when
    return Entry(insight_id, "*", None, None, change, at, source, commit.sha, commit.author)


def _unchanged_target(commit: _Commit, entries: list[Entry]) -> list[Entry]:
    """The row of a merge that left its target's file as it was (``_named_only``)."""
    target = commit.trailers.get("Insight") if commit.trailers.get("Op") == "merge" else None
    if not target or any(entry.insight_id == target for entry in entries):
        return []
    return [_named_row(commit, target)]


def _by_time(
    git: Git, touched: list[tuple[_Commit, list[Entry]]], named: list[tuple[_Commit, list[Entry]]]
) -> list[tuple[_Commit, list[Entry]]]:
    """Two newest-first lists as one, newest first."""
    merged: list[tuple[_Commit, list[Entry]]] = []
    while touched and named:
        newer = named if _later(git, named[0][0], touched[0][0]) else touched
        merged.append(newer.pop(0))
    return merged + touched + named


def _later(git: Git, named: _Commit, touched: _Commit) -> bool:
    """Whether ``named`` came after ``touched``. In the same second (a merge, then a
    reinforce, from a script), git says: the older is the other's ancestor."""
    if named.when != touched.when:
        return named.when > touched.when
    ancestor = ["merge-base", "--is-ancestor", named.sha, touched.sha]
    return git.run(ancestor, check=False).returncode != 0


def changelog(git: Git, days: int | None, limit: int) -> list[Entry]:
    """The newest ``limit`` changes across the store, newest first.

    A commit can hold several changes (a merge, an import) or none worth a row (a
    merge of branches, a file that does not parse), so commits are read ``limit`` at a
    time, then twice as many, until there are ``limit`` rows or no more commits."""
    since = [f"--since={days} days ago"] if days else []
    # git's --since picks commits; the rows a migration or an import carries keep their
    # own (older) times, and the window is about those, as 1.x's changed_at filter was.
    cutoff = format_timestamp(datetime.now(UTC) - timedelta(days=days)) if days else ""
    found: list[Entry] = []
    skip, batch = 0, limit
    while len(found) < limit:
        args = [f"-n{batch}", f"--skip={skip}", *since]
        commits = list(_log(git, args, ["insights", "archive"]))
        found += [
            entry
            for entries in _entries(git, commits)
            for entry in reversed(entries)
            if entry.changed_at >= cutoff
        ]
        if len(commits) < batch:
            break
        skip, batch = skip + batch, batch * 2
    return found[:limit]


def _log(git: Git, args: list[str], paths: list[str]) -> Iterator[_Commit]:
    if git.head() is None:
        return
    fmt = f"--format={_RECORD}%H{_UNIT}%at{_UNIT}%an{_UNIT}%P{_UNIT}%B{_UNIT}"
    output = git.run(["log", fmt, "--raw", "--no-abbrev", "-M", *args, "--", *paths]).stdout
    for record in output.split(_RECORD)[1:]:
        sha, stamp, author, parents, message, raw = record.split(_UNIT, 5)
        when = format_timestamp(datetime.fromtimestamp(int(stamp), tz=UTC))
        changes = list(_raw_changes(raw))
        merge = len(parents.split()) > 1
        yield _Commit(sha, when, author, trailers_of(message), changes, message, merge)


def _raw_changes(raw: str) -> Iterator[tuple[str, str, str, str]]:
    for line in raw.splitlines():
        if not line.startswith(":"):
            continue
        meta, *paths = line.split("\t")
        fields = meta.split()
        old_blob, new_blob = fields[2], fields[3]
        if fields[4].startswith("C"):  # a new file much like another: a creation
            yield _NULL_SHA, new_blob, paths[-1], paths[-1]
            continue
        yield old_blob, new_blob, paths[0], paths[-1]


def _entries(git: Git, commits: list[_Commit], targets: bool = True) -> list[list[Entry]]:
    """Each commit's entries (log order), oldest first; ``targets``: _unchanged_target's."""
    blobs = git.cat_blobs(b for c in commits for ch in c.changes for b in ch[:2])
    per_commit: list[list[Entry]] = []
    for commit in commits:
        entries: list[Entry] = []
        for old_blob, new_blob, old_path, new_path in commit.changes:
            old = _insight(blobs.get(old_blob), old_path)
            new = _insight(blobs.get(new_blob), new_path)
            entries.extend(_commit_entries(commit, old, new, (old_path, new_path)))
        entries += _unchanged_target(commit, entries) if targets else []
        undid = reverted(git, commit.message, commit.trailers)
        per_commit.append([e._replace(reverts=undid) for e in entries] if undid else entries)
    return per_commit


def _insight(blob: bytes | None, path: str) -> Insight | None:
    if blob is None:
        return None
    try:
        insight, _ = parse(
            blob.decode("utf-8"),
            fallback_id=Path(path).stem,
            fallback_type=[*path.split("/"), "", ""][1],
            fallback_time="1970-01-01T00:00:00Z",
        )
    except (ChitinError, UnicodeDecodeError):
        return None
    return insight.with_changes(archived=path.startswith(f"{ARCHIVE_DIR}/"))


def _commit_entries(
    commit: _Commit, old: Insight | None, new: Insight | None, paths: tuple[str, str]
) -> list[Entry]:
    op = commit.trailers.get("Op", "")
    kind = _CHANGE_TYPES.get(op, "edit")
    known = new or old
    insight_id = known.id if known is not None else Path(paths[1]).stem
    at = commit.when

    def entry(
        field: str, before: str | None, after: str | None, source: str | None, change: str = kind
    ) -> Entry:
        return Entry(
            insight_id, field, before, after, change, at, source, commit.sha, commit.author
        )

    if old is None and new is None:
        return []
    if old is None:
        # A migration and an import carry the insight's earlier history in the message.
        carried = op in ("migrate", "import")
        legacy = carried_rows(commit.message).get(insight_id, []) if carried else []
        if legacy:
            return [legacy_entry(row, at, commit.sha, commit.author) for row in legacy]
        return [entry("*", None, new.claim if new else None, None, "create")]
    if new is None:
        merged_into = commit.trailers.get("Insight") if op == "merge" else None
        note = f"merged into {merged_into}" if merged_into else None
        return [entry("*", old.claim, note, None, kind if op == "merge" else "delete")]
    # Archived or back, by chitin, or by hand or `git revert` (a move, maybe with edits).
    moved = [entry("archived", str(old.archived).lower(), str(new.archived).lower(), None)]
    if op in ("archive", "unarchive"):
        return moved
    moved = moved if old.archived != new.archived else []
    was = renamed(old, new, *paths)  # by hand: git mv (and the id in the file)
    moved += [entry("id", was[0], was[1], None)] if was else []
    if op == "reinforce":
        return [
            entry(
                "confidence",
                js_number(old.confidence),
                js_number(new.confidence),
                reinforce_source(new.reinforcements, commit.trailers),
            )
        ]
    source = f"merge:{commit.trailers.get('Merged', '')}" if op == "merge" else None
    changes = field_changes(old, new)
    if op == "merge":  # the original's order of a merge's rows, not an update's
        changes.sort(key=lambda change: _MERGE_ORDER.get(change.field, len(_MERGE_ORDER)))
    if not changes:
        return moved or [entry("*", None, None, source)]
    return moved + [entry(c.field, c.old, c.new, source) for c in changes]


# 1.4.5 wrote a merge's rows on the target in this order (reference §1.5), so its
# changelog, newest first, led with reasoning (§2.10); other fields follow, as updated.
_MERGED = ("claim", "confidence", "tags", "reinforcement_count", "reasoning")
_MERGE_ORDER = {name: rank for rank, name in enumerate(_MERGED)}
