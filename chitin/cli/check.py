"""The check command: validate a store's files, for pre-commit hooks and CI."""

from __future__ import annotations

import os
from pathlib import Path

import click

from chitin import Chitin
from chitin.cli.global_options import late_store
from chitin.cli.options import GivenPath, format_option
from chitin.cli.output import emit_json
from chitin.location import expanded, needed_home
from chitin.render import shapes, text


@click.command(short_help="Validate the store's files (for pre-commit and CI).")
@click.argument("paths", nargs=-1, metavar="[FILE]...", type=GivenPath(path_type=Path))
@click.option(
    "--store",
    "store",
    type=click.Path(file_okay=False, path_type=str),  # str: Path("") would be "."
    metavar="PATH",
    callback=late_store,  # the store of this invocation: --verbose names it
    help="The store to check (also accepted here, after the command, for pre-commit's args).",
)
@format_option
@click.pass_context
def check(ctx: click.Context, paths: tuple[Path, ...], store: str | None, fmt: str) -> None:
    """Validate insight files, chitin.yaml and the PERSONALITY.md template as they
    are on disk; exit 1 if any has an error.

    \b
    Errors: a file that does not parse or holds git's conflict markers; a bad
    type, provenance or confidence; a trigger without a condition; an id that
    does not match the file's name and folder; an id used twice; a likely
    credential (token, key, password); a chitin.yaml setting chitin cannot
    use; a template render cannot fill.
    Warnings: live insights that nearly duplicate or contradict each other (by
    meaning where the store holds a current vector of both, else by words: the
    output says how many had none; with the local model's token vectors where a
    verdict hangs on them, as at contribute, a bounded few: the output says how
    many pairs went without); a
    chitin.yaml setting nothing reads; and a chitin that git's merge driver or
    an agent host's hook runs but that is gone.

    With FILEs (as pre-commit passes them), only those are checked (a folder of
    the store: the insight files under it), and their ids against the whole
    store's; other files (but chitin.yaml and templates/PERSONALITY.md) are ignored,
    a missing path is an error; findings name files relative to this folder.
    The store is found as by every command (`chitin where`): --store, else
    $CHITIN_STORE, else the store you stand in (this folder or the nearest above
    it holding insights/ and .git, such as a clone), else the default. Nothing is
    written.
    """

    root = expanded(Path(store), os.environ, "--store").absolute() if store else _store(ctx)
    home = needed_home(
        os.environ, "check reads the agent hosts' settings in the home folder; set HOME"
    )
    report = Chitin(root).check(list(paths) if paths else None, home=home)
    # Files named as the user (pre-commit) named them: from here, as linters do.
    errors = [f._replace(path=_from_here(root, f.path)) if paths else f for f in report.errors]
    warnings = [f._replace(path=_from_here(root, f.path)) if paths else f for f in report.warnings]
    if fmt == "json":
        emit_json(
            shapes.check_report(
                report.files,
                errors,
                warnings,
                report.by_words,
                report.without_alignment,
            )
        )
    else:
        for finding in errors + warnings:
            click.echo(finding.line())
        if report.by_words:
            # Said, not warned: a fresh clone has no vectors, and that is no problem.
            click.echo(
                f"{text.counted(report.by_words, 'insight')} judged by words "
                "(no vector yet; `chitin embed` makes them)"
            )
        if report.without_alignment:
            click.echo(text.unaligned_line(report.without_alignment))
        click.echo(_summary(report.files, len(report.errors), len(report.warnings)))
    if report.errors:
        ctx.exit(1)


def _from_here(root: Path, path: str) -> str:
    """A finding's store-relative ``path`` made relative to the current folder, where
    the FILEs were given from (a store in a folder of the repository that pre-commit
    runs at the top of); a path outside the current folder, in full."""
    if os.path.isabs(path):  # a host's settings file, named in full already
        return path
    full = os.path.normpath(os.path.join(root, path))
    here = os.getcwd()
    shown = os.path.relpath(full, here) if _under(full, here) else full
    folder = "/" if path.endswith("/") else ""  # `insights/`, a linked folder
    return shown.replace(os.sep, "/") + folder


def _under(path: str, folder: str) -> bool:
    return os.path.commonpath([path, folder]) == folder


def _store(ctx: click.Context) -> Path:
    """The store every command uses here (chitin/location.py): a linter run in a
    store's checkout (pre-commit runs hooks at the repository's top) checks it."""
    store: Path = ctx.find_root().obj.store
    return store


def _summary(files: int, errors: int, warnings: int) -> str:
    if errors:
        counts = (text.counted(errors, "error"), text.counted(warnings, "warning"))
        return f"✗ {counts[0]}, {counts[1]} in {text.counted(files, 'file')}"
    checked = text.counted(files, "insight file") + " checked"
    if warnings:
        return f"✓ {checked}: no errors, {text.counted(warnings, 'warning')}"
    return f"✓ {checked}: no problems"
