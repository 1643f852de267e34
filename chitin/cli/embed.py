"""Commands for the vector sidecar: embed, embed-status."""

from __future__ import annotations

import os

import click

from chitin import provider_names
from chitin.cli.context import EmbedProgress, opened
from chitin.cli.options import Named, format_option
from chitin.cli.output import emit_json
from chitin.render import shapes


@click.command(short_help="Embed insights for semantic search.")
@click.option(
    "--provider",
    metavar="|".join(provider_names()),
    type=Named("a provider", provider_names(), only=True),
    help="Embedding provider (default: chitin.yaml's, else local).",
)
@click.option(
    "--model",
    type=Named("the provider's model"),
    help="The provider's model (default: the provider's own).",
)
@click.option("--force", is_flag=True, help="Embed every insight again.")
@click.option(
    "--background-worker",
    "worker",
    is_flag=True,
    hidden=True,  # what a session start runs, detached (core/background.py)
)
@format_option
@click.pass_context
def embed(
    ctx: click.Context,
    provider: str | None,
    model: str | None,
    force: bool,
    worker: bool,
    fmt: str,
) -> None:
    """Embed every insight that lacks a current vector (only those: a vector goes stale
    when its text, provider or model changes). A provider or model given here is
    recorded in chitin.yaml.

    The default provider runs offline: no key, no download. A session start that finds
    many insights without a vector (after an import, or in a fresh clone) runs this in
    the background by itself; `embedding: {background: false}` in chitin.yaml stops it.
    """
    if worker:
        _background(ctx)
        return
    with opened(ctx, reading=False) as chitin:
        counter = EmbedProgress(fmt == "human")
        meaning, done = chitin.embed(provider, model, force=force, progress=counter)
        counter.finish()
        total, fresh, _ = chitin.embed_status()
    p = meaning.provider
    if fmt == "json":
        emit_json(shapes.embedded(done, total, p.name, p.model, p.dimensions))
    elif total == 0:
        click.echo("No insights to embed.")
    elif done == 0:
        click.echo(f"All {fresh} insight(s) already have current vectors ({p.name}/{p.model}).")
    else:
        click.echo(
            f"✓ Embedded {done} insight(s) with {p.name}/{p.model} ({p.dimensions} dimensions)"
        )


def _background(ctx: click.Context) -> None:
    """The detached run: nothing to say to anyone (its output goes to a log file)."""
    from chitin import run_embed_worker

    with opened(ctx, reading=False) as chitin:
        done = run_embed_worker(chitin, os.environ)
    click.echo("another background embedding is running" if done is None else f"embedded {done}")


@click.command("embed-status", short_help="How many insights have current vectors.")
@format_option
@click.pass_context
def embed_status(ctx: click.Context, fmt: str) -> None:
    """Show how many insights have a current vector, and from which provider."""
    with opened(ctx) as chitin:
        total, fresh, held = chitin.embed_status()
    provider, model, dimensions = [*held.split(":"), None, None, None][:3] if held else [None] * 3
    if fmt == "json":
        emit_json(
            shapes.embed_status(
                total, fresh, provider, model, int(dimensions) if dimensions else None
            )
        )
        return
    shown = f"{provider}/{model}" if provider else "(none — run `chitin embed` to generate)"
    lines = [
        "Embedding Status",
        f"  Total insights: {total}",
        f"  With embeddings: {fresh}",
        f"  Missing embeddings: {total - fresh}",
        f"  Provider: {shown}",
    ]
    if dimensions:
        lines.append(f"  Dimensions: {dimensions}")
    click.echo("\n".join(lines))
