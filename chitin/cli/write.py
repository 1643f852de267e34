"""Commands that change insights; each change is one git commit."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from chitin.cli.context import opened
from chitin.cli.fields import field_options, missing
from chitin.cli.options import format_option
from chitin.cli.output import emit_json, standard_input
from chitin.core import Change
from chitin.errors import DuplicateError, ValidationError
from chitin.model import strict_json
from chitin.model.insight import EVIDENCE_KINDS
from chitin.render import shapes, text

if TYPE_CHECKING:
    from chitin import Chitin

_ALLOW_SECRET_HELP = (
    "Write text that looks like a credential (a token, key or password) anyway; "
    "without it, such text is refused."
)


_EXAMPLE = 'one JSON object such as {"type": "skill", "claim": "…", "confidence": 0.8}'


def _read_stdin_object() -> dict[str, Any]:
    try:
        raw = standard_input().read()
    except UnicodeDecodeError:
        raise ValidationError("stdin", "stdin must be valid UTF-8 text") from None
    raw = raw.removeprefix("\ufeff")  # Windows tools write one; RFC 8259 §8.1
    if not raw.strip():  # nothing piped in (or stdin closed): say so, not JSON's "char 0"
        raise ValidationError("stdin", f"stdin is empty: --json reads {_EXAMPLE} from it")
    try:
        data = strict_json.loads(raw)
    except strict_json.RepeatedKey as repeated:  # json.loads kept the last, silently
        raise ValidationError(
            "stdin", f'stdin gives the key "{repeated.key}" twice in one object; keep one'
        ) from None
    except json.JSONDecodeError as error:
        raise ValidationError("stdin", f"malformed JSON on stdin: {error}") from None
    except (ValueError, RecursionError) as error:  # 5,000 digits, or [[[[…]]]] too deep
        raise ValidationError(
            "stdin", f"unreadable JSON on stdin: {_first_clause(error)}"
        ) from None
    if not isinstance(data, dict):
        raise ValidationError("stdin", f"stdin must hold {_EXAMPLE}")
    return data


def _first_clause(error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return "it is nested too deeply"
    return str(error).split(";")[0].split(":")[0]


@click.command(short_help="Add an insight; duplicates and conflicts are caught.")
@field_options(updating=False)
@click.option(
    "--json",
    "from_json",
    is_flag=True,
    help="Read the whole insight as one JSON object from stdin.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Write it even if the store has it already; skip the duplicate and conflict check.",
)
@click.option("--allow-secret", is_flag=True, help=_ALLOW_SECRET_HELP)
@format_option
@click.pass_context
def contribute(
    ctx: click.Context,
    /,
    from_json: bool,
    force: bool,
    allow_secret: bool,
    fmt: str,
    **options: Any,
) -> None:
    """Add an insight. Duplicates and conflicts with stored insights are reported.

    \b
    chitin contribute --type skill --claim "Write the failing test first" --confidence 0.85
    chitin contribute --type trigger --condition "a test fails" \\
        --claim "weakening the assertion" --avoid --confidence 0.9
    echo '{"type":"skill","claim":"…","confidence":0.8}' | chitin contribute --json
    """
    given = {k: v for k, v in options.items() if v is not None}
    if from_json:
        if given:
            raise click.UsageError(
                f"--json reads the insight from stdin; drop --{next(iter(given))}"
            )
        fields = _read_stdin_object()
    else:
        if (flag := missing(options)) is not None:
            raise click.UsageError(f"Missing option '{flag}'.")
        fields = given
    with opened(ctx, reading=False) as chitin:
        try:
            result = chitin.contribute(fields, check=not force, allow_secret=allow_secret)
        except DuplicateError as known:
            raise in_cli_words(known) from None
    if fmt == "json":
        emit_json(
            shapes.contribution(
                result.insight,
                result.conflicts,
                result.duplicates,
                result.path,
                result.commit,
                result.degraded,
            )
        )
        return
    lines = text.contributed(result.insight)
    if result.duplicates:
        lines += text.duplicates_block(result.duplicates)
    if result.conflicts:
        lines += text.conflicts_block(result.conflicts)
    click.echo("\n".join(lines))


@click.command(short_help="Change fields of an insight ('' clears one).")
@click.argument("insight_id", metavar="ID")
@field_options(updating=True)
@click.option("--allow-secret", is_flag=True, help=_ALLOW_SECRET_HELP)
@format_option
@click.pass_context
def update(
    ctx: click.Context,
    /,
    insight_id: str,
    allow_secret: bool,
    fmt: str,
    **options: Any,
) -> None:
    """Change fields of an insight. An empty value ('') clears an optional field."""
    changes = {k: v for k, v in options.items() if v is not None}
    with opened(ctx, reading=False) as chitin:
        result = chitin.update(insight_id, changes, allow_secret=allow_secret)
        retrieved = chitin.last_retrieved([result.insight.id]) if fmt == "json" else {}
    if fmt == "json":
        emit_json(
            shapes.changed(result.insight, retrieved, result.dropped, result.cleared, result.same)
        )
        return
    if result.commit is None:
        click.echo(f"✓ No changes to insight: {result.insight.id}")
    else:
        click.echo(f'✓ Updated insight: {result.insight.id}\n  "{result.insight.claim}"')
        if result.before is not None:
            from chitin.render import diff  # difflib and the field diff: not contribute's

            for line in diff.update_lines(result.before, result.insight):
                click.echo(f"  {line}")
    for message in result.notes:
        click.echo(f"  note: {message}")
    if result.cleared:
        click.echo(f"  note: {', '.join(result.cleared)} cleared")


@click.command(short_help="Record that experience confirmed an insight.")
@click.argument("insight_id", metavar="ID")
@click.option("--source", help="What confirmed it.")
@click.option("--evidence", metavar="|".join(EVIDENCE_KINDS), help="Kind of evidence.")
@click.option("--allow-secret", is_flag=True, help=_ALLOW_SECRET_HELP)
@format_option
@click.pass_context
def reinforce(
    ctx: click.Context,
    insight_id: str,
    source: str | None,
    evidence: str | None,
    allow_secret: bool,
    fmt: str,
) -> None:
    """Record that experience confirmed an insight: confidence rises, the count goes up."""
    with opened(ctx, reading=False) as chitin:
        result = chitin.reinforce(
            insight_id, source=source, evidence_kind=evidence, allow_secret=allow_secret
        )
        retrieved = chitin.last_retrieved([result.insight.id]) if fmt == "json" else {}
    if fmt == "json":
        emit_json(shapes.reinforced(result.insight, result.before, retrieved))
        return
    new = result.insight
    old = result.before.confidence if result.before is not None else new.confidence
    lines = [
        f"✓ Reinforced: {new.claim}",
        f"  Confidence: {text.confidence_change(old, new.confidence)}",
        f"  Count: {new.reinforcements}",
    ]
    if source:
        lines.append(f"  Source: {source}")
    if evidence:
        lines.append(f"  Evidence: {evidence}")
    click.echo("\n".join(lines))


def _moved(chitin: Chitin, result: Change, verb: str, fmt: str) -> None:
    if fmt == "json":
        emit_json(shapes.insight(result.insight, chitin.last_retrieved([result.insight.id])))
    elif result.commit is None:
        click.echo(f"✓ Insight already {verb}: {result.insight.id}")
    else:
        click.echo(f"✓ {verb.capitalize()} insight: {result.insight.id}")
        for message in result.notes:
            click.echo(f"  note: {message}")


@click.command(short_help="Retire an insight to archive/ (a soft delete).")
@click.argument("insight_id", metavar="ID")
@format_option
@click.pass_context
def archive(ctx: click.Context, insight_id: str, fmt: str) -> None:
    """Retire an insight: its file moves to archive/<type>/ (undo with unarchive)."""
    with opened(ctx, reading=False) as chitin:
        _moved(chitin, chitin.archive(insight_id), "archived", fmt)


@click.command(short_help="Bring an archived insight back.")
@click.argument("insight_id", metavar="ID")
@format_option
@click.pass_context
def unarchive(ctx: click.Context, insight_id: str, fmt: str) -> None:
    """Bring an archived insight back into insights/<type>/."""
    with opened(ctx, reading=False) as chitin:
        _moved(chitin, chitin.unarchive(insight_id), "unarchived", fmt)


@click.command(short_help="Fold one insight (or several) into another, in one commit.")
@click.argument("source_ids", metavar="SOURCE...", nargs=-1, required=True)
@click.argument("target_id", metavar="TARGET")
@click.option("--claim", help="A new claim for the merged insight.")
@click.option("--allow-secret", is_flag=True, help=_ALLOW_SECRET_HELP)
@format_option
@click.pass_context
def merge(
    ctx: click.Context,
    source_ids: tuple[str, ...],
    target_id: str,
    claim: str | None,
    allow_secret: bool,
    fmt: str,
) -> None:
    """Fold SOURCE into TARGET and delete SOURCE, in one commit. Several sources are
    folded in turn, still in one commit (what `chitin dedupe` suggests).

    TARGET keeps the highest confidence, all tags, every reasoning and evidence line,
    and the sum of reinforcements. It keeps what SOURCE knew: a context, limitations or
    source it lacks is SOURCE's, one it has gets SOURCE's after it (a new paragraph; a
    source: after "; "), text it already holds is not added twice; SOURCE's hand-added
    frontmatter keys it lacks and SOURCE's other body text (a "## Notes") come along.
    """
    sources: str | list[str] = source_ids[0] if len(source_ids) == 1 else list(source_ids)
    with opened(ctx, reading=False) as chitin:
        result = chitin.merge(sources, target_id, claim or None, allow_secret=allow_secret)
        retrieved = chitin.last_retrieved([result.insight.id]) if fmt == "json" else {}
    insight = result.insight
    if fmt == "json":
        emit_json(shapes.changed(insight, retrieved, result.dropped))
        return
    click.echo(
        "\n".join(
            [
                f"✓ Merged into: {insight.id}",
                f'  "{insight.claim}"',
                f"  confidence: {text.confidence(insight.confidence)} | "
                f"reinforced: {insight.reinforcements}×",
                f"  tags: {text.tags_text(insight)}",
                *(f"  note: {message}" for message in result.notes),
            ]
        )
    )


def in_cli_words(known: DuplicateError) -> DuplicateError:
    """The refusal of an exact duplicate, naming the command to run and the flag."""
    existing = known.existing
    return DuplicateError(
        existing,
        f"already known as {existing}: run `chitin reinforce {existing}` to strengthen it "
        "(--force writes a second copy anyway)",
    )
