"""``chitin check``: validate a store's files as they are on disk.

A linter for files people edit by hand, and for CI on a fresh clone: it reads the
files themselves, never the cache, and writes nothing (no ``.chitin/``, no commit).
The rules are in ``chitin.format.lint``; this module finds and reads the files.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from os import PathLike, fspath
from pathlib import Path

from chitin.core import settings
from chitin.core.check_related import related_findings
from chitin.core.openclaw import openclaw_hooks_dir
from chitin.core.personality import STORE_TEMPLATE, read_store_template
from chitin.core.setup_check import setup_findings, stopped_sync_findings
from chitin.errors import ChitinError, StoreError, ValidationError
from chitin.format import layout, lint
from chitin.format.lint import Checked, Finding
from chitin.format.lint_times import future_findings
from chitin.lockfile import DERIVED_DIR
from chitin.render import personality as templates
from chitin.store import files
from chitin.store.config import CONFIG_FILE, parse_config
from chitin.store.git import Git


@dataclass
class Report:
    files: int
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    # Live insights (of the focus, if any) judged by words because the sidecar holds no
    # current vector of them: `chitin embed` makes them.
    by_words: int = 0
    # Pairs whose verdict depends on the alignment of their own words, judged by the
    # cosine alone (past chitin.search.aligned's budget, or the model failed).
    without_alignment: int = 0


def check(
    root: Path, env: Mapping[str, str], paths: Sequence[Path] | None, home: Path | None
) -> Report:
    """``Chitin.check``: the insight files as they are on disk (only ``paths``, if
    given) against the rules; with ``home``, also the hooks, MCP server entries and
    merge driver that run a chitin (or a store) that is gone, the user's and those of
    the project the current folder is in. Reads the files, not the cache, and writes
    nothing."""

    listed = _paths(paths)
    if home is not None and not isinstance(home, str | PathLike):
        raise ValidationError("home", f"home must be a path, got {type(home).__name__}")
    report = check_store(root, listed, env)
    if home is not None:
        folder = openclaw_hooks_dir(Path(home), env)
        report.warnings.extend(setup_findings(root, Path(home), folder, env, _current_folder()))
    return report


def _paths(paths: object) -> list[Path] | None:
    """``paths`` as Paths, each given as a path or its text (a text was taken for a
    Path, and failed on its missing ``.name``; a number or None in the list likewise)."""
    if paths is None:
        return None
    if isinstance(paths, str | PathLike):  # one path's text was read letter by letter
        raise ValidationError("paths", f"paths must be a list of paths, got {fspath(paths)!r:.60}")
    items: list[object] = list(paths) if isinstance(paths, Collection) else [paths]
    kept = [Path(item) for item in items if isinstance(item, str | PathLike)]
    if len(kept) < len(items):
        wrong = next(item for item in items if not isinstance(item, str | PathLike))
        raise ValidationError("paths", f"paths must be a list of paths, got {type(wrong).__name__}")
    return kept


def _current_folder() -> Path | None:
    try:
        return Path.cwd()
    except OSError:  # removed under us: no project to look at
        return None


def check_store(
    root: Path, paths: Sequence[Path] | None = None, env: Mapping[str, str] | None = None
) -> Report:
    """Check every insight file of the store at ``root``, or only ``paths`` (files
    anywhere; those that are not insight files of this store are ignored).

    With ``paths`` (what pre-commit passes: the changed files), the per-file rules and
    the near-duplicate warnings cover those files, and ids are compared with the
    whole store's. With ``env``, the local model gives the token vectors of the pairs
    whose verdict depends on them (chitin.search.aligned); without, the cosine decides.
    """
    if not root.is_dir():
        problem = "it is not a folder" if root.exists() else "the folder does not exist"
        raise StoreError(f"no store at {root}: {problem}")
    every = sorted(f"{d}/{n}" for d, folder in files.walk(root).items() for n in folder.names)
    focus = None if paths is None else _focus(root, paths, every)
    checked = [_check(root, path, focus) for path in every]
    findings = [f for item in checked for f in item.findings]
    findings += lint.duplicate_ids(checked, focus) + lint.case_ids(checked, focus)
    valid = [item for item in checked if item.insight]
    related, by_words, unaligned = related_findings(valid, focus, root, env)
    findings += related
    findings += [
        _folder_finding(path)
        for path in _insight_folders(root)
        if focus is None or _named(root, paths or [], path)
    ]
    # By file; the sort is stable, so each file's findings keep their order.
    order = {path: index for index, path in enumerate(every)}
    findings.sort(key=lambda f: order.get(f.path, len(order)))
    if focus is None:
        findings[:0] = (
            _linked_tops(root) + _derived_not_a_folder(root) + stopped_sync_findings(root)
        )

    if paths is None or _named(root, paths, STORE_TEMPLATE):
        findings[:0] = template_findings(root)
    if paths is None or _named(root, paths, CONFIG_FILE):
        findings[:0] = settings_findings(root)
    findings = [_bounded(f) for f in findings]
    return Report(
        files=len(every) if focus is None else len(focus),
        errors=[f for f in findings if f.severity == lint.ERROR],
        warnings=[f for f in findings if f.severity == lint.WARNING],
        by_words=by_words,
        without_alignment=unaligned,
    )


def settings_findings(root: Path) -> list[Finding]:
    """What is wrong with the store's chitin.yaml, read from the file itself (not the
    parsed copy in .chitin/): settings.findings."""
    return settings.findings(root, parse_config)


def template_findings(root: Path) -> list[Finding]:
    """The store's own PERSONALITY.md template, if it cannot be read or filled: an
    error, though render and the hooks then use chitin's own and go on."""

    path = root / STORE_TEMPLATE
    if not os.path.lexists(path):
        return []
    try:
        templates.check(read_store_template(path), STORE_TEMPLATE)
    except ChitinError as error:
        message = str(error).removeprefix(f"{STORE_TEMPLATE}: ").removeprefix(f"{path} ")
        message, _, fix = message.partition("; fix: ")  # conflict markers say their fix
        fix = fix or "correct it, or remove it to have chitin's own"
        return [Finding(STORE_TEMPLATE, "template", message, fix, lint.ERROR, "invalid")]
    return []


def _named(root: Path, paths: Sequence[Path], relative: str) -> bool:
    """Whether ``paths`` (a pre-commit's changed files) include the store's ``relative``."""
    wanted = os.path.realpath(root / relative)
    return any(os.path.realpath(path) == wanted for path in paths)


def _focus(root: Path, paths: Sequence[Path], every: Sequence[str]) -> set[str]:
    """The store-relative insight paths among ``paths`` (of ``every``, those under a
    folder named); other files are ignored. A path's folder is resolved, the file
    itself is not: a symbolic link in the store is checked (and reported), not followed."""
    base = os.path.realpath(root)
    chosen: set[str] = set()
    for path in paths:
        given = os.path.abspath(path)  # "." names its folder too
        full = os.path.join(os.path.realpath(os.path.dirname(given)), os.path.basename(given))
        relative = os.path.relpath(full, base).replace(os.sep, "/")
        listed = files.is_listed(Path(base), relative)
        if not os.path.lexists(full):  # a typo: checking nothing is no pass
            raise ChitinError(f"no such {'insight file' if listed else 'file or folder'}: {path}")
        if relative == ".." or relative.startswith("../"):
            continue
        if os.path.isdir(full) and not os.path.islink(full):  # `check insights/skill`
            chosen.update(p for p in every if relative == "." or p.startswith(relative + "/"))
        elif listed:
            chosen.add(relative)
    return chosen


def _insight_folders(root: Path) -> list[str]:
    """The folders named like an insight file (``insights/skill/x.md/``), which the walk
    neither reads nor enters (and ``get`` names as an insight that cannot be read)."""
    found = []
    for top in layout.SCANNED_DIRS:
        if (root / top).is_symlink():
            continue
        for directory, subfolders, _ in os.walk(root / top):
            kept = []
            for name in subfolders:
                full = os.path.join(directory, name)
                if name.startswith(".") or os.path.islink(full) or files.nested_repository(full):
                    continue
                if layout.is_insight_name(name):
                    found.append(os.path.relpath(full, root).replace(os.sep, "/"))
                else:
                    kept.append(name)
            subfolders[:] = kept
    return sorted(found)


def _folder_finding(path: str) -> Finding:
    message = "is a folder, not an insight file: chitin does not read it"
    fix = "move the folder away, and put the insight's file there"
    return Finding(path, "file", message, fix, lint.ERROR, "parse")


def _linked_tops(root: Path) -> list[Finding]:
    """A top insight folder that is a symbolic link: the walk does not follow it."""
    return [
        Finding(
            f"{top}/",
            "file",
            "is a symbolic link, which chitin does not follow: no insight in it is read",
            f"make {top}/ a folder of the store itself",
            lint.ERROR,
            "parse",
        )
        for top in layout.SCANNED_DIRS
        if (root / top).is_symlink()
    ]


def _derived_not_a_folder(root: Path) -> list[Finding]:
    """``.chitin`` that is a link or a file (committed, it arrives by clone or sync):
    never followed; a link is replaced with a folder, and writes refuse a file."""
    where = root / DERIVED_DIR
    link = where.is_symlink()
    if not link and (where.is_dir() or not where.exists()):
        return _derived_committed(root)
    fate = "the next command replaces it with a folder" if link else "writes refuse it"
    return [
        Finding(
            DERIVED_DIR,
            "file",
            f"is {'a symbolic link' if link else 'not a folder'}, where chitin keeps "
            f"its derived data: it is never followed, and {fate}",
            f"remove it (`git rm --cached {DERIVED_DIR}` if it is committed), and have "
            f"`{DERIVED_DIR}` (no trailing slash) in .gitignore",
            lint.ERROR,
            "parse",
        )
    ]


def _derived_committed(root: Path) -> list[Finding]:
    """``.chitin`` in git's index, once a command has replaced the link: every clone
    and sync of the store brings it back."""
    try:
        listed = Git(root).run(["ls-files", "-z", "--", DERIVED_DIR], check=False)
    except ChitinError:  # no git, or a repository git refuses: said by other checks
        return []
    if listed.returncode != 0 or not listed.stdout:
        return []
    problem = "is committed, though it holds only this machine's derived data"
    return [
        Finding(
            DERIVED_DIR,
            "file",
            f"{problem}: every clone and sync of the store brings it back",
            f"`git rm -r --cached {DERIVED_DIR}` and commit",
            lint.ERROR,
            "parse",
        )
    ]


def _bounded(finding: Finding) -> Finding:
    """A finding quotes at most a few hundred characters of what a file holds."""
    field, message, fix = (layout.clipped(text) for text in finding[1:4])
    if (field, message, fix) == finding[1:4]:
        return finding
    return finding._replace(field=field, message=message, fix=fix)


def _check(root: Path, path: str, focus: set[str] | None) -> Checked:
    """A file of the focus gets every per-file check; the others are only read for
    their ids and claims, which the checks across files need. A symbolic link, a file
    that is not a regular one or a file too large is reported and not read."""
    checked_fully = focus is None or path in focus
    try:
        data = files.read_file(root / path)
    except files.UnsafeFile as error:
        problem = Finding(path, "file", str(error), error.fix, lint.ERROR, "parse")
        return Checked(path, None, [problem] if checked_fully else [])
    except OSError as error:
        reason = f"cannot be read ({error.strerror})"
        problem = Finding(path, "file", reason, "check its permissions", lint.ERROR, "parse")
        return Checked(path, None, [problem] if checked_fully else [])
    if checked_fully:
        checked = lint.check_file(path, data)
        ahead = future_findings(path, checked.insight, datetime.now(UTC))
        return checked._replace(findings=[*checked.findings, *ahead])
    try:
        return Checked(path, lint.read(path, data.decode("utf-8")), [])
    except (UnicodeDecodeError, ChitinError):
        return Checked(path, None, [])
