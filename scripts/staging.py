"""A folder filled in full or not at all, for the scripts that fill the CI cache."""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def staged(target: Path, stamp_name: str) -> Iterator[dict[str, Any]]:
    """Fill a fresh sibling of ``target`` (the dict yielded says where: ``"folder"``);
    when the block ends without an error, the rest of the dict is written to
    ``stamp_name`` in it, last, and the folder takes ``target``'s place. An error or
    an interruption leaves ``target`` as it was and no staging folder behind."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    stamp: dict[str, Any] = {"folder": staging}
    try:
        yield stamp
        del stamp["folder"]
        (staging / stamp_name).write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")
        if target.exists():  # an older or broken fill of the same kind
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def main(
    argv: list[str],
    target: Path,
    ready: Callable[[Path], bool],
    fill: Callable[[Path], float],
    done: str,
) -> int:
    """A cache script's command line: print ``target``'s path; unless it is ``ready``
    (or ``--where`` asks for the path alone), ``fill`` it first and say ``done`` with
    the seconds it took, on stderr."""
    if "--where" not in argv and not ready(target):
        seconds = fill(target)
        print(f"{done} in {seconds:.0f} s", file=sys.stderr)
    print(target)
    return 0
