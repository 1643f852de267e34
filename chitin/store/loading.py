"""An insight file read into a value. A hand-made file may leave out its id, its type and
its creation time: the file's name, folder and modification time stand in."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chitin.errors import ValidationError
from chitin.format.layout import ARCHIVE_DIR, FileStat
from chitin.model.insight import Insight, format_timestamp
from chitin.store import files

if TYPE_CHECKING:  # the file format loads when a file is read, not before
    from chitin.format.markdown import Layout


def load_file(root: Path, path: str, stat: FileStat) -> tuple[Insight, Layout]:
    """Parse the insight file at ``path`` (relative to ``root``), layout and all.

    A hand-made file may leave out its id (the file name is used), its type (the
    type folder is used) and its creation time (the file's modification time). A file
    that is not a regular one, or is too large, is refused (``files.read_file``).
    """
    from chitin.format.markdown import parse

    try:
        insight, layout = parse(files.read_text(root / path), **_fallbacks(path, stat))
    except ValidationError as error:
        raise _named(path, error) from None
    return insight.with_changes(archived=path.startswith(ARCHIVE_DIR + "/")), layout


def _named(path: str, error: ValidationError) -> ValidationError:
    """A file the cache reads (it leaves the evidence log unchecked) that a rewrite or an
    export cannot: named, with ``chitin check``'s fix, as the bare reason names no file.
    An error that says its own fix (conflict markers, an invisible character) stays."""
    if type(error) is not ValidationError:
        return error
    from chitin.format.lint import fix_for  # only when a file does not read

    return ValidationError(error.field, f"{path} cannot be read: {error}; fix: {fix_for(error)}")


def load_insight(root: Path, path: str, stat: FileStat) -> Insight:
    """The insight at ``path``, for readers such as the cache that never write it back."""
    from chitin.format.markdown import read_insight

    insight = read_insight(files.read_text(root / path), **_fallbacks(path, stat))
    return insight.with_changes(archived=path.startswith(ARCHIVE_DIR + "/"))


_LATEST_SECOND = 253402300799.0  # 9999-12-31T23:59:59Z


def _fallbacks(path: str, stat: FileStat) -> dict[str, Any]:
    parts = path.split("/")
    # A file without a creation time was made when it was last changed, as far as
    # anyone knows; a modification time outside the years a time may hold is clamped.
    seconds = min(max(stat[0] / 1e9, 0.0), _LATEST_SECOND)
    modified = datetime.fromtimestamp(seconds, tz=UTC)
    return {
        "fallback_id": Path(path).stem,
        "fallback_type": parts[1] if len(parts) > 2 else None,
        "fallback_time": format_timestamp(modified),
    }


def read_as(path: str, data: bytes) -> Insight:
    """``data`` read as the insight file at ``path`` would be: ValidationError (or
    UnicodeDecodeError) when it would not read, or declares another id than its name."""
    from chitin.format.markdown import read_insight

    now = format_timestamp(datetime.now(UTC))
    parts = path.split("/")
    insight = read_insight(
        data.decode("utf-8"),
        fallback_id=Path(path).stem,
        fallback_type=parts[1] if len(parts) > 2 else None,
        fallback_time=now,
    )
    if insight.id != Path(path).stem:
        raise ValidationError(
            "id", f"it declares the id {insight.id!r}, not the {Path(path).stem!r} of its name"
        )
    return insight
