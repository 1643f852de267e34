"""PERSONALITY.md: the insights for a query, packed into a budget and set in a template.

``chitin render`` and the agent hooks both make it here, so what a hook injects is
exactly what ``render`` writes.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from os import PathLike
from pathlib import Path

from chitin.core.retrieving import Query, Retrieving
from chitin.core.session import Session
from chitin.errors import StoreError, ValidationError
from chitin.location import locate
from chitin.model import arguments
from chitin.model.bounds import MAX_COUNT
from chitin.model.packing import Packed
from chitin.model.search_text import well_formed
from chitin.notices import notice
from chitin.render import budget as marshalling
from chitin.render import personality as templates
from chitin.resources import data_path
from chitin.search.engine import Retrieval
from chitin.store import files


@dataclass
class Personality:
    """A rendered PERSONALITY.md, how many insights it holds, and the retrieval behind
    it (whose notes, such as a fallback to text search, the caller reports)."""

    text: str
    count: int
    found: Retrieval
    ids: tuple[str, ...] = ()  # the insights in the text, in its order


def render_personality(
    retrieving: Retrieving,
    query: Query,
    *,
    template: Path | None = None,
    now: datetime | None = None,
    limit: int | None = None,
    how: tuple[bool, Path | None] = (False, None),
    store: Path | None = None,
) -> Personality:
    """The file for ``query``. It is a function of the store's commit, the query and
    the budget: decay is measured at the commit's time, so the same three always give
    the same text, which can then be committed, diffed and cached.

    ``now`` is when a session asks for it: the insights' retrieval times are noted as
    then. Without it (another revision's file, for ``diff --render``) nothing is noted.

    ``limit``: the most characters (UTF-16 code units, as a JavaScript host counts
    them) the whole file may take, template included. The budget is then lowered
    until it fits: the insights take at most four characters per token of budget, so
    the budget becomes at most (limit - the template's own characters) / 4, and the
    header names the budget used. The store's template longer than the limit alone
    gives way to chitin's own (``_within``); chitin's, longer still, is left as it is.
    ``how`` (mcp, reader) and ``store``: whom the closing instructions are for."""
    query = query._replace(text=well_formed(query.text))  # it is printed in the header too
    budget, (limit, how) = query.budget, _checked(limit, how)
    commit, when = retrieving.snapshot_time()
    found = retrieving.retrieve_at(query, now or when, decay_at=when, record=now is not None)
    insights = [ranked.insight for ranked in found.ranked]
    path, template_text = template_of(retrieving.session.root, template)
    acting = instructions(retrieving.session, how[0], store, how[1])

    def filled(budget: int, packed: Packed | None) -> str:
        values = {
            "header": templates.header(commit, query.text, budget, bool(insights)),
            "insights": _body(query.text, found, packed),
            "query": templates.chosen_for(query.text, _matched(found), bool(found.ranked)),
            "budget": budget,
            "commit": commit or "",
            "category": found.category,
            "count": len(packed.chosen) if packed else 0,
            "omitted": packed.omitted if packed else len(insights),
            "actions": acting,
        }
        return templates.render(template_text, values, str(path))

    if limit is not None and path == retrieving.session.root / STORE_TEMPLATE:
        path, template_text = _within(limit, path, template_text, characters(filled(0, None)))
    packed = marshalling.pack(insights, budget, labels=found.short_ids)
    text = filled(budget, packed)
    if limit is not None and characters(text) > limit:
        # The insights take at most 4 characters a token; the rest is the template's.
        budget = min(budget, max(0, (limit - characters(filled(budget, None))) // 4))
        packed = marshalling.pack(insights, budget, labels=found.short_ids)
        text = filled(budget, packed)
        while characters(text) > limit and budget > 0:  # a count grown by a digit
            budget = max(0, budget - max(1, (characters(text) - limit + 3) // 4))
            packed = marshalling.pack(insights, budget, labels=found.short_ids)
            text = filled(budget, packed)
    return Personality(text, len(packed.chosen), found, tuple(i.id for i in packed.chosen))


def _body(query: str, found: Retrieval, packed: Packed | None) -> str:
    """``$insights``: the insights packed, or, when a query chose none, what retrieve
    says then (an empty section reads as a file cut short)."""
    if query.strip() and not found.ranked:
        return templates.NOTHING_MATCHES
    return marshalling.marshal(packed) if packed else ""


def _matched(found: Retrieval) -> bool:
    """Whether an insight found matches the query (retrieve's rule: else they are filler)."""
    return any(ranked.matched for ranked in found.ranked)


def instructions(
    session: Session, mcp: bool, store: Path | None, reader: Path | None = None
) -> str:
    """The closing instructions (``$actions``). ``mcp``: the agent reads the file
    through the MCP server, and acts through its tools; else through its shell,
    running the chitin that rendered it, told the store when that shell, in ``reader``
    (the folder the file is written to; default: here), would not find it. ``store``:
    the store they are for (default: the session's; ``diff`` renders other revisions in
    scratch folders, for the live store)."""
    if mcp:
        return templates.actions(None)
    command_line = shell_command(session.command, session.env.get("PATH"))
    named = store_to_name(store or session.root, session.env, reader)
    return templates.actions(command_line, named)


def agent_command(session: Session) -> str:
    """How the agent's shell runs this chitin on ``session``'s store, as the closing
    instructions tell it: ``shell_command``, with ``--store`` when that shell, here,
    would find another store (``store_to_name``)."""
    command = shell_command(session.command, session.env.get("PATH"))
    store = store_to_name(session.root, session.env)
    return f"{command} --store {store}" if store else command


def shell_command(program: Sequence[str], path: str | None) -> str:
    """How an agent's shell runs this chitin: ``chitin`` when that name on ``path``
    (its PATH) is this very program; else the program itself by absolute path, as the
    hooks run it (a chitin in a virtual environment is often not on the agent's PATH)."""
    if tuple(program) == ("chitin",):  # the library's: a program that names none
        if path and shutil.which("chitin", path=path):
            return "chitin"
        # else the console script installed beside the library's Python, if there is one
        beside = Path(sys.executable).parent / "chitin"
        return shlex.quote(str(beside)) if beside.is_file() else "chitin"
    if len(program) == 1:
        found = shutil.which("chitin", path=path) if path else None
        if found is not None and _same_file(found, program[0]):
            return "chitin"
    return shlex.join(program)


def store_to_name(root: Path, env: Mapping[str, str], reader: Path | None = None) -> str | None:
    """``root``, shell-quoted, when chitin run with ``env`` in ``reader`` (default:
    here: the agent's shell, in the folder a hook runs in) would use another store;
    else None. A hook bound with --store renders that store, while the agent's own
    `chitin reinforce <id>` finds the default one, where the id names nothing, or
    another insight."""
    try:
        found = locate(None, env, reader or current_folder()).path
    except StoreError:  # no home: no default store, so the agent's chitin needs this one
        return shlex.quote(str(root.absolute()))
    if _same_file(str(found), str(root)) or found == root.absolute():
        return None
    return shlex.quote(str(root.absolute()))


def current_folder() -> Path | None:
    try:
        return Path.cwd()
    except OSError:  # removed under us: no store is found from there
        return None


def _same_file(first: str, second: str) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:
        return False


def characters(text: str) -> int:
    """The length of ``text`` as JavaScript counts it (UTF-16 code units), which is
    how Claude Code measures the context a hook adds."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


STORE_TEMPLATE = "templates/PERSONALITY.md"


def template_of(root: Path, given: Path | None) -> tuple[Path, str]:
    """The template to fill, and its text: ``given`` (``--template``), which must be
    usable; else the store's own ``templates/PERSONALITY.md``; else chitin's.

    The store's own is a hand-edited file read at every session start, which must not
    fail for it: when it cannot be read or filled, chitin's own is used, and a notice
    says why (``chitin check`` names it too)."""
    given = arguments.path("template", given)  # a number was read as a file descriptor
    if given is not None:
        text = templates.read(str(given))
        templates.check(text, str(given))
        return given, text
    own = root / STORE_TEMPLATE
    if os.path.lexists(own):
        try:
            text = read_store_template(own)
            templates.check(text, str(own))
            return own, text
        except ValidationError as error:
            notice(f"{error}; chitin's own template is used instead")

    return shipped_template()


def read_store_template(own: Path) -> str:
    """The store's own template, read as an insight file is: a symbolic link is not
    followed out of the store, a FIFO not waited on, a folder not taken for the file;
    each a ValidationError saying what it is."""
    try:
        return files.read_text(own)
    except files.UnsafeFile as error:
        what = str(error).replace("not an insight file", "not a regular file")
        raise ValidationError("template", f"{own} is {what}") from None
    except UnicodeDecodeError as error:
        raise ValidationError(
            "template", f"{own} is not UTF-8 text (at byte {error.start})"
        ) from None
    except OSError as error:
        raise ValidationError("template", f"cannot read {own}: {error.strerror or error}") from None


def shipped_template() -> tuple[Path, str]:
    shipped = data_path("templates") / "PERSONALITY.md"
    return shipped, shipped.read_text(encoding="utf-8")


def _checked(
    limit: object, how: tuple[bool, object]
) -> tuple[int | None, tuple[bool, Path | None]]:
    """A library caller's ``limit`` and reader, refused naming them: a text limit raised
    TypeError ('>' between int and str), a text reader AttributeError (no 'absolute')."""
    if limit is not None:
        limit = arguments.count("limit", limit, MAX_COUNT)
    reader = how[1]
    if reader is not None and not isinstance(reader, str | PathLike):
        raise ValidationError("reader", f"reader must be a folder's path, got {reader!r:.60}")
    return limit, (how[0], None if reader is None else Path(reader))


def _within(limit: int, path: Path, text: str, alone: int) -> tuple[Path, str]:
    """The store's own template, unless it takes ``limit`` characters by itself (with
    no insight): then no insight could reach the host's context, and chitin's own is
    used, with a notice (as for a template that cannot be filled)."""
    if alone <= limit:
        return path, text
    notice(
        f"{path}: the template alone is {alone} characters, over the {limit} kept for "
        "the host's context; chitin's own template is used instead"
    )
    return shipped_template()
