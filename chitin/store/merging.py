"""The merge driver's work on file texts: three versions of one insight file in, one out.

The fields are merged by ``model.merge3``. What is left to merge by lines (a field
both sides changed differently, and a person's own additions to the body or the
frontmatter) goes to ``git merge-file``, after every field that merged cleanly has
been set to its merged value in all three versions: git then sees no difference
there, and marks only the real conflicts. A file that does not parse is merged by
lines alone, as git would.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import NamedTuple

from chitin.errors import ChitinError
from chitin.format.markdown import Layout, parse, serialize
from chitin.model.insight import Insight, format_timestamp
from chitin.model.merge3 import SCALAR_FIELDS, Resolution, Side, merge
from chitin.store.git_merge import merge_file


class Merged(NamedTuple):
    text: str
    conflicts: tuple[str, ...]  # the fields both sides changed; "lines" for a text conflict


def merge_texts(base: str | None, ours: str, theirs: str, path: str) -> Merged:
    """Merge one insight file. ``base`` is None when both sides added the file.

    A hand-made version may leave out its times, which chitin reads as the file's
    modification time; the merged file is written now, so a missing time is now: a
    side's real time is kept (the earliest ``created``), none is made up from 1970."""
    when = format_timestamp(datetime.now(UTC))
    try:
        sides = [
            _read(text, path, when) if text is not None else None for text in (base, ours, theirs)
        ]
    except (ChitinError, UnicodeDecodeError):
        return _by_lines(base or "", ours, theirs, path)
    old, mine, other = sides
    assert mine is not None and other is not None
    resolved = merge(_side(old), Side(mine[0], mine[1].evidence), Side(other[0], other[1].evidence))
    same_text = mine[1]._replace(evidence=()) == other[1]._replace(evidence=())
    if not resolved.conflicts and same_text:  # nothing is left for a line merge
        layout = mine[1]._replace(evidence=resolved.evidence)
        return Merged(serialize(resolved.insight, layout), ())
    texts = [_normalized(side, resolved) if side else "" for side in (old, mine, other)]
    merged, count = merge_file(texts[1], texts[0], texts[2], _labels(path))
    conflicts = resolved.conflicts or (("lines",) if count else ())
    return Merged(merged, conflicts if count else ())


def keep_side(base: bytes | None, ours: bytes, theirs: bytes, path: str, side: str) -> bytes:
    """Settle a conflicted insight file by one ``side`` ("ours" or "theirs"): the fields
    both sides changed differently, and the conflicting lines, are that side's; what
    merges cleanly (reinforcements, evidence, tags, times) stays merged, so keeping a
    side never loses the other's reinforcements. A file that does not read as an
    insight is that side's file whole."""
    kept = ours if side == "ours" else theirs
    when = format_timestamp(datetime.now(UTC))
    try:
        texts = [
            data.decode("utf-8") if data is not None else None for data in (base, ours, theirs)
        ]
        sides = [_read(text, path, when) if text is not None else None for text in texts]
    except (ChitinError, UnicodeDecodeError):
        return kept
    old, mine, other = sides
    assert mine is not None and other is not None
    resolved = merge(_side(old), Side(mine[0], mine[1].evidence), Side(other[0], other[1].evidence))
    normal = [_normalized(read, resolved) if read else "" for read in (old, mine, other)]
    merged, _ = merge_file(normal[1], normal[0], normal[2], _labels(path), favor=side)
    # lines taken from both sides that no longer read as the insight: the side, whole
    return kept if unreadable(merged, path) else merged.encode("utf-8")


def unreadable(text: str, path: str) -> str | None:
    """Why chitin cannot read ``text`` as the insight file at ``path``; None if it can."""
    try:
        _read(text, path, "1970-01-01T00:00:00Z")  # whether it reads: any time will do
    except (ChitinError, UnicodeDecodeError) as error:
        return str(error)
    return None


def _read(text: str, path: str, now: str) -> tuple[Insight, Layout]:
    where = PurePosixPath(path)
    parts = [*where.parts, "", ""]
    return parse(text, fallback_id=where.stem, fallback_type=parts[1], fallback_time=now)


def _side(read: tuple[Insight, Layout] | None) -> Side | None:
    return None if read is None else Side(read[0], read[1].evidence)


def _normalized(side: tuple[Insight, Layout], resolved: Resolution) -> str:
    """This side's file with every cleanly merged field set to its merged value: only
    the fields in conflict, and the person's own text, still differ between sides."""
    insight, layout = side
    own = {name: getattr(insight, name) for name in SCALAR_FIELDS if name in resolved.conflicts}
    values = resolved.insight.with_changes(**own)
    return serialize(values, layout._replace(evidence=resolved.evidence))


def _by_lines(base: str, ours: str, theirs: str, path: str) -> Merged:
    text, count = merge_file(ours, base, theirs, _labels(path))
    return Merged(text, ("lines",) if count else ())


def _labels(path: str) -> tuple[str, str, str]:
    return (f"ours:{path}", f"base:{path}", f"theirs:{path}")
