"""The skill command: print SKILL.md, the guide that teaches an agent to use chitin.

It reads one packaged file and never opens a store.
"""

from __future__ import annotations

import re

import click

import chitin.resources  # as a module: tests replace asset_path there
from chitin import __version__

# The leading front-matter block, and a version line inside it.
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*\r?$", re.S | re.M)
_VERSION_LINE = re.compile(r"^version:[^\r\n]*", re.M)


def with_version(text: str, version: str) -> str:
    """Set the first ``version:`` line of the leading front-matter to ``version``, quoted.

    The body is left alone, and so is a file without front-matter or without a version line.
    """
    front = _FRONT_MATTER.match(text)
    if front is None:
        return text
    start, end = front.span(1)
    stamped = _VERSION_LINE.sub(f'version: "{version}"', text[start:end], count=1)
    return text[:start] + stamped + text[end:]


@click.command(short_help="Print the guide for agents (SKILL.md).")
@click.option("--path", "show_path", is_flag=True, help="Print the guide's absolute path instead.")
def skill(show_path: bool) -> None:
    """Print SKILL.md, the guide that teaches an AI agent when and how to use chitin.

    Install it where your agent looks for skills, for example:

    \b
    mkdir -p skills/chitin && chitin skill > skills/chitin/SKILL.md
    """

    path = chitin.resources.asset_path("SKILL.md")
    if not path.is_file():
        raise click.ClickException(f"SKILL.md not found at {path}")
    if show_path:
        click.echo(str(path))
        return
    click.echo(with_version(path.read_text(encoding="utf-8"), __version__), nl=False)
