"""Commands that choose insights for a situation: retrieve, render."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from chitin.cli import bounds
from chitin.cli.context import emit_json, note, opened, output_option, write_output
from chitin.core import Query
from chitin.model import arguments
from chitin.model.insight import TYPES
from chitin.render import budget as marshalling

if TYPE_CHECKING:
    from chitin import Ranked, Retrieval

EMPTY_STORE = "No insights stored yet. Use `chitin contribute` to add some."
NOTHING_MATCHES = "Nothing stored matches this query; the strongest insights follow."
FORMATS = ("compact", "full", "json", "markdown")


def _selection_options(function: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--budget",
                type=bounds.BUDGET,
                default=2000,
                show_default=True,
                help="Most tokens the insights may take (about 4 characters each).",
            ),
            click.option(
                "--max-results",
                type=bounds.COUNT,
                default=15,
                show_default=True,
                help="Most insights to consider.",
            ),
            click.option(
                "--type", "types", metavar="TYPES", help=f"Comma list of: {', '.join(TYPES)}."
            ),
            click.option("--tags", help="Comma list; only insights with any of them."),
            click.option("--min-confidence", metavar="0..1", help="Only insights this confident."),
        ]
    ):
        function = option(function)
    return function


def _query(
    query: str,
    budget: int,
    max_results: int,
    types: str | None,
    tags: str | None,
    min_confidence: str | None,
    full: bool = False,
) -> Query:
    """The flags, parsed: comma lists into tuples, the confidence into a number."""
    return Query(
        query,
        max_results,
        arguments.values(types),
        arguments.tags(tags),
        arguments.floor(min_confidence),
        budget,
        full,
    )


def _report(found: Retrieval) -> None:
    """Say on stderr how the retrieval fell short, if it did."""
    if found.degraded:
        note(f"chitin: {found.degraded}")
    if not found.recorded:
        note("chitin: could not note retrieval times in .chitin/ (is it writable?)")


@click.command(short_help="The insights that matter for what you are about to do.")
@click.option("--query", required=True, help="What you are about to do, in your own words.")
@_selection_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="compact",
    show_default=True,
    help="compact (markdown is the same), full, or json.",
)
@click.option("--explain", is_flag=True, help="Show every factor of every score.")
@click.pass_context
def retrieve(
    ctx: click.Context,
    query: str,
    budget: int,
    max_results: int,
    types: str | None,
    tags: str | None,
    min_confidence: str | None,
    fmt: str,
    explain: bool,
) -> None:
    """Print the insights that matter for QUERY, within a token budget.

    They come grouped by type, best first: the group holding the best insight leads,
    and each group lists its insights best first. When nothing matches the query, a
    first line says so and the strongest insights fill the result.

    \b
    chitin retrieve --query "fix the flaky login test"
    chitin retrieve --query "reply to Priya's review" --budget 500 --format json
    """
    with opened(ctx) as chitin:
        full = fmt == "full"
        asked = _query(query, budget, max_results, types, tags, min_confidence, full)
        found = chitin.retrieve(asked)
        _report(found)
        empty = not found.ranked and chitin.stats().total == 0
    if fmt == "json":
        from chitin.render import shapes  # JSON only: the session start's text needs none

        emit_json(shapes.retrieval(found, explain))
        return
    if empty:
        click.echo(EMPTY_STORE)
    else:
        if query.strip() and found.ranked and not any(r.matched for r in found.ranked):
            click.echo(NOTHING_MATCHES)
        click.echo(marshalling.marshal(marshalling.packed_of(found), full))
    if explain:
        click.echo(
            "\n".join(
                [
                    "",
                    f"Scores (the query reads as {found.category}):",
                    *(_explanation(n, r) for n, r in enumerate(found.ranked, 1)),
                ]
            )
        )


def _factor(value: float) -> str:
    """Three decimals; a weak match's tiny relevance in significant digits, as its
    score is, so that a match never reads as a relevance of 0.000."""
    return f"{value:.3f}" if round(value, 3) or not value else f"{value:.3g}"


def _explanation(number: int, ranked: Ranked) -> str:
    f = ranked.factors
    if f.half_life:
        decay = f"decay {f.decay:.3f} = 0.5^({f.age_days:.1f} d / {f.half_life:g} d)"
    else:
        decay = f"decay 1 ({ranked.insight.provenance or 'no provenance'}: never decays)"
    product = (
        f"confidence {f.confidence:.3f} × reinforcement {f.reinforcement:.3f} × "
        f"type boost {f.type_boost:.3f} × {decay}"
    )
    if ranked.matched:
        relevance = f"relevance {_factor(f.relevance)} (match {f.match:.3f} of the best)"
        head = f"{ranked.score:.3g} = {relevance} × {product}"
    else:
        head = f"0 (no match; fills the result with strength {f.score:.3g} = {product})"
    lines = [f"  {number:>2}. {head}", f"      [{ranked.insight.type}] {ranked.insight.id}"]
    if ranked.also_covers:
        lines.append(
            f"      also covers {', '.join(ranked.also_covers)}: the same lesson, not shown "
            f"twice (chitin merge {ranked.also_covers[0]} {ranked.insight.id} folds them)"
        )
    if ranked.outweighs:
        lines.append(
            f"      left out {', '.join(ranked.outweighs)}: contradicts this one, which is "
            "stronger (chitin update or chitin archive resolves it)"
        )
    return "\n".join(lines)


@click.command(short_help="Write PERSONALITY.md from the insights for a query.")
@click.option("--query", default="", help="What the session is about (may be empty).")
@_selection_options
@click.option(
    "--template",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A string.Template file (default: the store's templates/PERSONALITY.md, "
    "else chitin's own).",
)
@output_option("Write here (atomically) instead of to stdout.")
@click.option(
    "--session",
    metavar="ID",
    help="Note, for this session's reflection, which insights it was given "
    "(what the OpenClaw hook does).",
)
@click.pass_context
def render(
    ctx: click.Context,
    query: str,
    budget: int,
    max_results: int,
    types: str | None,
    tags: str | None,
    min_confidence: str | None,
    template: Path | None,
    output: Path | None,
    session: str | None,
) -> None:
    """Render PERSONALITY.md: the insights for QUERY in a Markdown template.

    The file is a function of the store's commit, the query and the budget: the same
    three always give the same bytes (time-dependent decay is measured at the commit's
    time), so it can be committed, diffed and cached.
    """
    asked = _query(query, budget, max_results, types, tags, min_confidence)
    with opened(ctx) as chitin:
        # The agent reads the file where it is written, and runs chitin from there.
        reader = output.absolute().parent if output is not None else None
        made = chitin.render(asked, template=template, reader=reader)
        _report(made.found)
        if session is not None:
            chitin.note_session_start(session, list(made.ids))
    text = made.text
    if output is None:
        click.echo(text, nl=False)
        return
    write_output(output, text)
    click.echo(
        f"✓ Wrote {output} ({made.count} insight(s), ~{marshalling.estimate_tokens(text)} tokens)"
    )
