"""``chitin check``: validate a store's files as they are on disk.

A linter for files people edit by hand, and for CI on a fresh clone: it reads the
files themselves, never the cache, and writes nothing (no ``.chitin/``, no commit).
The rules are in ``chitin.format.lint``; this module finds and reads the files.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike, fspath
from pathlib import Path

from chitin.core import settings
from chitin.core.openclaw import openclaw_hooks_dir
from chitin.core.personality import STORE_TEMPLATE
from chitin.core.setup_check import setup_findings, stopped_sync_findings
from chitin.errors import ChitinError, StoreError, ValidationError
from chitin.format import layout, lint
from chitin.format.lint import Checked, Finding
from chitin.lockfile import DERIVED_DIR
from chitin.model.insight import Insight
from chitin.model.search_text import embedding_text
from chitin.render import personality as templates
from chitin.render.text import counted
from chitin.retrieval.clusters import WORDS_ONLY, Cluster, Grouping, Meaning, group
from chitin.retrieval.judgement import side_of
from chitin.search import aligned, semantic, stored
from chitin.search.door import strength
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
    findings += lint.duplicate_ids(checked, focus)
    valid = [item for item in checked if item.insight]
    related, by_words, unaligned = related_findings(valid, focus, root, env)
    findings += related
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
    parsed copy in .chitin/): an error for what does not parse or what a setting's
    reader refuses, a warning for a setting nobody reads."""

    name = CONFIG_FILE
    if not (root / name).exists():
        return []
    try:
        config = parse_config(root / name)
    except StoreError as error:
        message, _, fix = str(error).removeprefix(f"{name} ").partition("; fix: ")
        fix = fix or "correct the YAML"  # conflict markers say their own fix
        return [Finding(name, "file", message, fix, lint.ERROR, "parse")]
    return [
        Finding(
            name,
            problem.setting,
            problem.message,
            "correct the value, or remove the setting to have its default"
            if problem.severe
            else "correct the name, or remove it",
            lint.ERROR if problem.severe else lint.WARNING,
            "invalid" if problem.severe else "unknown-setting",
        )
        for problem in settings.problems(config)
    ]


def template_findings(root: Path) -> list[Finding]:
    """The store's own PERSONALITY.md template, if it cannot be read or filled: an
    error, though render and the hooks then use chitin's own and go on."""

    path = root / STORE_TEMPLATE
    if not path.is_file():
        return []
    try:
        templates.check(templates.read(str(path)), STORE_TEMPLATE)
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
        if relative == ".." or relative.startswith("../"):
            continue
        if os.path.isdir(full) and not os.path.islink(full):  # `check insights/skill`
            chosen.update(p for p in every if relative == "." or p.startswith(relative + "/"))
        elif files.is_listed(Path(base), relative):
            if not os.path.lexists(full):
                raise ChitinError(f"no such insight file: {path}")
            chosen.add(relative)
    return chosen


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
        return lint.check_file(path, data)
    try:
        return Checked(path, lint.read(path, data.decode("utf-8")), [])
    except (UnicodeDecodeError, ChitinError):
        return Checked(path, None, [])


def related_findings(
    valid: Sequence[Checked],
    focus: Collection[str] | None,
    root: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[list[Finding], int, int]:
    """Warnings for live insights that duplicate or contradict one another, judged as
    ``contribute`` judges them: by meaning where the store's sidecar holds a current
    vector of both (read, never made: see ``judged_grouping``), else by words. One line
    per cluster of duplicates, on its strongest file, and one per conflicting pair of
    clusters. With ``focus``, only those touching a file of the focus, on that file.
    Also how many of those insights (of the focus) had no current vector, and how many
    pairs were judged without the alignment their verdict depends on."""

    items = [i for i in valid if i.insight is not None and not i.insight.archived]
    insights = [item.insight for item in items if item.insight is not None]
    paths = [item.path for item in items]
    lacking: list[int] = []
    if root is not None:
        found_groups, lacking = judged_grouping(root, insights, env)
    else:
        found_groups = aligned.Grouped(_group(insights, WORDS_ONLY), 0)
    by_words = sum(1 for k in lacking if focus is None or paths[k] in focus)
    grouping = found_groups.grouping
    found = []
    for cluster in grouping.clusters:
        here = _reported_on(cluster.members, paths, focus)
        if here is not None:
            found.append(_cluster_finding(cluster, here, insights, paths))
    for clash in grouping.clashes:
        here = _reported_on((clash.second, clash.first), paths, focus)
        if here is not None:
            there = clash.first if here == clash.second else clash.second
            message = f"claim conflicts with {paths[there]} ({clash.reason})"
            fix = "reconcile them: reword one, give each its context or limitations, or archive one"
            found.append(Finding(paths[here], "claim", message, fix, lint.WARNING, "conflict"))
    return found, by_words, found_groups.without_alignment


def _group(insights: Sequence[Insight], meaning: Meaning) -> Grouping:
    return group([side_of(i) for i in insights], [strength(i) for i in insights], meaning)


def judged_grouping(
    root: Path, insights: Sequence[Insight], env: Mapping[str, str] | None
) -> tuple[aligned.Grouped, list[int]]:
    """The clusters and conflicts of ``insights`` of the store at ``root``, judged by
    the stored vectors of the provider chitin.yaml names (read, never made) and, with
    ``env``, the alignment where a verdict depends on it (chitin.search.aligned); and
    the positions of the insights without a current vector (judged by words; none
    where chitin.yaml turns embedding off: no `chitin embed` would make them)."""
    try:
        picked = semantic.choice(parse_config(root / CONFIG_FILE))
    except ChitinError:  # check reports a bad chitin.yaml itself
        picked = semantic.Choice("local", None)
    if picked.provider == semantic.NO_PROVIDER:
        return aligned.Grouped(_group(insights, WORDS_ONLY), 0), []
    meaning, lacking = stored.meaning(root / ".chitin", insights, picked.provider)
    source = None if env is None else aligned.token_source(picked.provider, picked.model, env)
    try:
        found = aligned.grouped(
            [side_of(i) for i in insights],
            [strength(i) for i in insights],
            meaning,
            lambda k: embedding_text(insights[k]),
            source,
        )
    finally:
        if source is not None:
            source.close()
    return found, lacking


def _reported_on(
    members: Sequence[int], paths: Sequence[str], focus: Collection[str] | None
) -> int | None:
    """The member whose file a finding goes on: the first, or the first in the focus
    (None if none is)."""
    if focus is None:
        return members[0]
    return next((m for m in members if paths[m] in focus), None)


_NAMED = 3  # other files a cluster's line names


def _cluster_finding(
    cluster: Cluster, here: int, insights: Sequence[Insight], paths: Sequence[str]
) -> Finding:
    others = [m for m in cluster.members if m != here]
    named = ", ".join(paths[m] for m in others[:_NAMED])
    more = f" and {len(others) - _NAMED} more" if len(others) > _NAMED else ""
    how = "repeats" if cluster.claim else "nearly duplicates"
    message = f"claim {how} {counted(len(others), 'other file')}: {named}{more}"
    keep = insights[cluster.members[0]].id
    if len(cluster.members) == 2 and insights[cluster.members[1]].id == keep:
        fix = f"delete the copy: both files hold the id {keep}"  # merge takes ids, not files
    elif len(cluster.members) == 2:
        other = insights[cluster.members[1]].id
        fix = f"fold one into the other: chitin merge {other} {keep}"
    else:
        fix = f"fold them into the strongest, {keep}: chitin dedupe --apply"
    return Finding(paths[here], "claim", message, fix, lint.WARNING, "near-duplicate")
