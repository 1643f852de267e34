"""What retrieve and render do once their flags are read: choose the insights, print
or write them.

Without click, so that the session start's parser (cli/lean.py) runs the very code the
click commands in cli/retrieve.py run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from chitin.cli.context import Settings, opened_at, write_output
from chitin.cli.output import emit_json, note, say
from chitin.core import Query
from chitin.model import arguments
from chitin.render import budget as marshalling

if TYPE_CHECKING:
    from chitin import Ranked, Retrieval

EMPTY_STORE = "No insights stored yet. Use `chitin contribute` to add some."
NOTHING_MATCHES = "Nothing stored matches this query; the strongest insights follow."
NO_MATCH = "Nothing stored matches this query."
FORMATS = ("compact", "full", "json", "markdown")


def recall(
    settings: Settings,
    query: str,
    budget: int,
    max_results: int,
    types: str | None,
    tags: str | None,
    min_confidence: str | None,
    fmt: str,
    explain: bool,
) -> None:
    """Print the insights that matter for ``query`` in ``fmt`` (retrieve's --help)."""
    with opened_at(settings) as chitin:
        full = fmt == "full"
        asked = asked_for(query, budget, max_results, types, tags, min_confidence, full)
        found = chitin.retrieve(asked)
        report(found)
        empty = not found.ranked and chitin.stats().total == 0
    if fmt == "json":
        from chitin.render import shapes  # JSON only: the session start's text needs none

        emit_json(shapes.retrieval(found, explain))
        return
    if empty:
        _lead(EMPTY_STORE, "", budget)
    elif query.strip() and not found.ranked:
        # no match, and no principle, personality or behavioral insight to fill with
        _lead(NO_MATCH, "", budget)
    else:
        packed = marshalling.packed_of(found)
        body = marshalling.marshal(packed, full)
        if query.strip() and found.ranked and not any(r.matched for r in found.ranked):
            _lead(NOTHING_MATCHES, body, budget)
        say(body)
        if packed.omitted and not packed.note:
            # The output keeps within the budget (what a hook relies on), so a budget
            # too small for the left-out line hears of it here instead.
            note(
                f"chitin: {marshalling.omission_note(packed.omitted)[1:-1]}; "
                f"--budget {budget} has no room for this line in the output"
            )
    if explain:
        heading = f"Scores (the query reads as {found.category}):"
        if not found.ranked:  # a heading with no line under it reads as output cut short
            heading += " none, as no insight was chosen."
        say("\n".join(["", heading, *(_explanation(n, r) for n, r in enumerate(found.ranked, 1))]))


def _lead(line: str, body: str, budget: int) -> None:
    """A first line for the person, above ``body``: in the output when both fit the
    budget (the output never exceeds it, as a hook relies on), else on stderr."""
    if marshalling.estimate_tokens(f"{line}\n{body}".rstrip("\n")) <= budget:
        say(line)
    else:
        note(f"chitin: {line}")


def render_for(
    settings: Settings,
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
    """Render PERSONALITY.md for ``query`` to stdout or ``output`` (render's --help).
    The session is noted as given these insights only once they are written: an
    ``output`` that fails leaves no note."""
    asked = asked_for(query, budget, max_results, types, tags, min_confidence)
    with opened_at(settings) as chitin:
        # The agent reads the file where it is written, and runs chitin from there.
        reader = output.absolute().parent if output is not None else None
        made = chitin.render(asked, template=template, reader=reader)
        report(made.found)
        if session is not None:  # a key the queue would refuse: refused before any write
            chitin.note_session_start(session, None)
        text = made.text
        if output is None:
            say(text, nl=False)
        else:
            write_output(output, text, chitin.root)
        if session is not None:
            chitin.note_session_start(session, list(made.ids))
    if output is not None:
        tokens = marshalling.estimate_tokens(text)
        say(f"✓ Wrote {output} ({made.count} insight(s), ~{tokens} tokens)")


def asked_for(
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


def report(found: Retrieval) -> None:
    """Say on stderr how the retrieval fell short, if it did."""
    if found.degraded:
        note(f"chitin: {found.degraded}")
    if not found.recorded:
        note("chitin: could not note retrieval times in .chitin/ (is it writable?)")


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
            f"twice (chitin merge {' '.join(ranked.also_covers)} {ranked.insight.id} folds them)"
        )
    if ranked.outweighs:
        lines.append(
            f"      left out {', '.join(ranked.outweighs)}: contradicts this one, which is "
            "stronger (chitin update or chitin archive resolves it)"
        )
    return "\n".join(lines)
