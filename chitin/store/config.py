"""chitin.yaml, the store's settings file: parsed strictly, and the parse remembered in
.chitin/ while the file's stat stays the same, so that a read parses no YAML."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

from chitin.errors import StoreError, ValidationError
from chitin.format.conflicts import ConflictMarkers, refuse_markers
from chitin.format.layout import FileStat, racily_recent
from chitin.lockfile import clear_in_the_way, derived_folder
from chitin.store.files import UnsafeFile, atomic_write, read_file, read_text

CONFIG_FILE = "chitin.yaml"
CONFIG_CACHE = "config.json"  # in .chitin/


def parse_config(path: Path) -> dict[str, Any]:
    """The settings ``path`` (a chitin.yaml) holds, or a StoreError of one line naming
    what is wrong with the file."""
    from chitin.format.frontmatter import load_yaml

    try:  # without anchors and aliases, as frontmatter (a pulled file can be a YAML bomb)
        text = read_text(path, links=True)  # never waits on a FIFO put in its place
        refuse_markers(text)  # a stopped merge: what it says is neither side
        data = load_yaml(text, CONFIG_FILE, "config", first_line=1)
    except ConflictMarkers as error:
        raise StoreError(f"{CONFIG_FILE} {error}; fix: {error.fix}") from None
    except ValidationError as error:
        raise StoreError(str(error)) from None
    except UnicodeDecodeError as error:
        raise StoreError(f"{CONFIG_FILE} does not parse: {error}") from None
    except OSError as error:
        raise StoreError(f"cannot read {CONFIG_FILE}: {error.strerror or error}") from None
    except UnsafeFile as error:
        raise StoreError(f"cannot read {CONFIG_FILE}: it is {error}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise StoreError(f"{CONFIG_FILE} must be a mapping of settings")
    return data


def remembered(root: Path, stat: FileStat) -> dict[str, Any] | None:
    """The settings parsed when chitin.yaml had this ``stat``; None if unknown. A damaged
    or foreign file reads as unknown, and is written over."""
    try:  # read as an insight file is: a FIFO there is not waited on, but written over
        kept = json.loads(read_file(derived_folder(root) / CONFIG_CACHE))
        if kept["stat"] == list(stat) and isinstance(kept["config"], dict):
            return dict(kept["config"])
    except (OSError, StoreError, ValueError, KeyError, TypeError):
        pass
    return None


def remember(root: Path, stat: FileStat, data: dict[str, Any]) -> None:
    """Keep the parsed settings, unless the file is racily recent (it could change again
    within the same mtime tick) or the settings do not survive JSON as they are."""
    if racily_recent(stat[0], time.time_ns()):
        return
    try:
        text = json.dumps({"stat": list(stat), "config": data})
        if json.loads(text)["config"] != data:  # dates, sets, number keys: keep no copy
            return
    except (TypeError, ValueError):
        return
    target = derived_folder(root) / CONFIG_CACHE
    if not target.parent.is_dir():
        return  # no .chitin/ yet: a reader does not create it
    with contextlib.suppress(OSError):
        clear_in_the_way(target)
        atomic_write(target, text, durable=False)
