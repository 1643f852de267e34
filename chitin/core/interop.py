"""Export, import and migration from chitin 1.x.

An import is all or nothing: every item is read and checked, ids and duplicates
included, before a file is written, and the files then land in one commit. A 1.x
database goes through the same path; its history rows travel in the migration
commit's message, where ``history`` finds them again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from io import TextIOBase
from os import PathLike, fspath
from pathlib import Path
from typing import Any, NamedTuple, TextIO, TypeVar

from chitin.core.exporting import export as export
from chitin.core.import_ids import case_twin, id_taken
from chitin.core.import_repeats import live_keys, repeats
from chitin.core.session import Session
from chitin.errors import ChitinError, ValidationError
from chitin.format.markdown import Layout, checked_render
from chitin.index import usage
from chitin.index.cache import Cache, Problem
from chitin.model import arguments, interchange, secrets, strict_json
from chitin.model.ids import new_id
from chitin.model.insight import Insight
from chitin.model.interchange import Item, items_of, not_an_export, read_item
from chitin.model.original_items import from_original
from chitin.model.search_text import well_formed
from chitin.notices import notice
from chitin.retrieval.judgement import exact_key, side_of
from chitin.search.door import strength
from chitin.store.legacy import is_database as sqlite_file
from chitin.store.legacy import read_database
from chitin.store.messages import LEGACY_HISTORY_HEADER, commit_message

T = TypeVar("T")


class Skipped(NamedTuple):
    item: int  # its position in the document
    id: str
    reason: str
    unreadable: bool = False  # its id's file cannot be read; else a duplicate


@dataclass
class Imported:
    insights: list[Insight]
    skipped: list[Skipped]
    commit: str | None
    history_rows: int = 0
    generation: str | None = None  # the 1.x schema a database was migrated from
    embeddings_left: int = 0  # 1.x vectors not copied (they are made again)
    repeated: int = 0  # items a plain import wrote that repeat a live insight


STDIN = "-"  # what errors call a stream, as the command line calls standard input


def import_source(
    opened: Session,
    source: str | PathLike[str] | TextIO | object,
    origin: str | None = None,
    merge: bool = False,
    allow_secret: bool = False,
) -> Imported:
    """Import ``source``: a file's path (a chitin 1.x database, else an export's JSON),
    a text stream of JSON (standard input: ``-`` in errors), or an export already
    parsed. ``origin`` names a document in the commit (default: the file's name,
    "stdin" for a stream). A path's errors name it as given."""
    if origin is not None:  # a number raised TypeError at the commit message's wording
        origin = arguments.text("origin", origin)
    if isinstance(source, str | PathLike):
        path = Path(source)
        # Only a regular file is looked into first: a pipe (`import <(chitin export)`)
        # gives its bytes once, and the look would take them from the JSON.
        if _is_file(path) and sqlite_file(path):
            return import_database(opened, path, merge, allow_secret)
        read: Callable[[], str] = partial(path.read_text, encoding="utf-8")
        name, named = fspath(source), path.name
    elif isinstance(source, TextIOBase):
        read, name, named = source.read, STDIN, "stdin"
    else:
        return import_document(opened, source, origin or "a document", merge, allow_secret)
    document = _parsed_export(_read(read, name), name)
    return import_document(opened, document, origin or named, merge, allow_secret)


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a regular file; False where it cannot be looked at (a name
    too long for the system, no access): reading it then says why, in one line."""
    try:
        return path.is_file()
    except OSError:
        return False


def _read(read: Callable[[], str], name: str) -> str:
    try:
        return read()
    except UnicodeDecodeError as error:  # said as Python's codec says it, before
        why = f"it is not UTF-8 text (byte {error.start + 1})"
        raise ChitinError(not_an_export(name, error.object, why)) from None
    except OSError as error:
        raise ChitinError(f"cannot read {name}: {error.strerror or error}") from None


def _parsed_export(raw: str, name: str) -> Any:
    """``raw`` JSON, parsed; a one-line error naming ``name`` if it is not JSON."""
    raw = raw.removeprefix("\ufeff")  # Windows tools write one; RFC 8259 §8.1
    if not raw.strip():
        raise ChitinError(
            f"{name} is empty: expected a chitin export (a JSON array of insights, from "
            "`chitin export`) or a chitin 1.x database"
        )
    try:
        return strict_json.loads(raw)
    except strict_json.RepeatedKey as repeated:  # json.loads kept the last, silently
        raise ChitinError(
            f'{name}: items[{repeated.item or 0}] gives the key "{repeated.key}" twice in '
            "one object; keep one (nothing was imported)"
        ) from None
    except json.JSONDecodeError as error:
        why = f"{error.msg} at line {error.lineno}, column {error.colno}"
        raise ChitinError(not_an_export(name, raw, why)) from None
    except RecursionError:
        raise ChitinError(f"cannot read {name}: its JSON is nested too deeply") from None
    except ValueError as error:  # an integer of more than 4,300 digits
        reason = str(error).split(":")[0]
        raise ChitinError(f"cannot read {name}: {reason}") from None


def import_document(
    opened: Session,
    document: object,
    origin: str,
    merge: bool = False,
    allow_secret: bool = False,
) -> Imported:
    """Import parsed JSON: chitin 1.x's export or seed.json, or our own export;
    ``origin`` names it in the commit."""
    now = opened.timestamp()
    subject = "Import {count} insight(s) from " + origin
    plan = _Plan("import", subject, origin, [], allow_secret)
    items = [from_original(item) for item in items_of(document)]
    return _import(opened, items, merge, now, plan)


def import_database(
    opened: Session, path: Path, merge: bool = False, allow_secret: bool = False
) -> Imported:
    """Migrate a chitin 1.x SQLite database: every insight with its id and history."""
    now = opened.timestamp()
    legacy = read_database(path)
    subject = "Migrate {count} insight(s) from chitin 1.x (" + path.name + ")"
    plan = _Plan("migrate", subject, path.name, legacy.history, allow_secret)
    result = _import(opened, legacy.items, merge, now, plan)
    result.generation = legacy.generation
    result.embeddings_left = legacy.embeddings
    return result


class _Plan(NamedTuple):
    op: str
    subject: str  # with {count}
    origin: str
    history: Sequence[Mapping[str, Any]]
    allow_secret: bool = False  # import text that looks like a credential, knowingly


def _import(
    opened: Session, raw: Sequence[Mapping[str, Any]], merge: bool, now: str, plan: _Plan
) -> Imported:
    # Check every item before the store is even created, then again under the lock,
    # where ids are compared with the store's and fresh ones are made.
    items = _checked(lambda: _read_all(raw, now, lambda _: False))
    for index, item in enumerate(items):  # hand-added keys read back, before the store is made
        if item.extra_keys or item.body:
            _rendered(opened, item, index)
    if not plan.allow_secret:
        _refuse_secrets(items)
    with opened.writing() as cache:
        everything = _checked(
            lambda: _read_all(raw, now, lambda i: cache.id_ignoring_case(i) is not None)
        )
        kept, skipped = _checked(lambda: _sort_out(cache, everything, merge))
        repeated = 0 if merge else repeats(cache, kept)  # before they are written
        position = {id(item): index for index, item in enumerate(everything)}
        imported = [item.insight for item in kept]
        ids = {insight.id for insight in imported}
        history = [row for row in plan.history if row.get("insightId") in ids]
        history += [row for item in kept for row in item.history]
        history = _guarded_history(history, plan.allow_secret)
        writes = {
            opened.store.path_for(item.insight, archived=item.insight.archived): _rendered(
                opened, item, position[id(item)]
            )
            for item in kept
        }
        commit = None
        if writes:
            message = _message(plan, imported, history, opened.agent)
            commit = opened.store.apply(writes, message)
            opened.record_written(cache, dict(zip(writes, imported, strict=True)))
    times = [(item.insight.id, item.last_retrieved) for item in kept if item.last_retrieved]
    usage.record_times(opened.root, times)
    return Imported(imported, skipped, commit, len(history), repeated=repeated)


def _rendered(opened: Session, item: Item, index: int) -> str:
    """The file of the item at ``index``; one too large for a file stops the import,
    naming the item as every other refusal of an import does."""
    try:
        layout = Layout(item.extra_keys, item.body or Layout().body, item.evidence)
        return checked_render(opened.store.render(item.insight, layout), item.insight, layout)
    except ValidationError as error:
        name = f"items[{index}].{error.field}"
        raise ValidationError(name, f"{name}: {error}; nothing was imported") from None


def _checked(step: Callable[[], T]) -> T:
    try:
        return step()
    except ValidationError as error:
        raise ValidationError(error.field, f"{error}; nothing was imported") from None


def _refuse_secrets(items: Sequence[Item]) -> None:
    """A likely credential in any item stops the whole import, before anything is written."""
    for index, item in enumerate(items):
        extra = interchange.EXTRA_KEY
        chunks = [(extra, c) for c in item.extra_keys] + [
            (interchange.BODY_KEY, text) for kind, text in item.body if kind == "text"
        ]
        # the evidence log becomes lines of the file, so it is committed as well
        chunks += [(interchange.EVIDENCE_KEY, line) for line in item.evidence]
        found = [(field, s) for field, chunk in chunks for s in secrets.find_secrets(chunk)]
        for field, secret in [*secrets.secrets_in(item.insight), *found]:
            name = f"items[{index}].{field}"
            message = secrets.refusal(field, secret.kind)
            raise ValidationError(name, f"{name}: {message}; nothing was imported")


def _read_all(
    raw: Sequence[Mapping[str, Any]], now: str, taken: Callable[[str], bool]
) -> list[Item]:
    """Every item validated; an item without an id gets a fresh one nobody uses."""
    named = {str(r["id"]).lower() for r in raw if isinstance(r.get("id"), str)}

    def fresh(claim: str) -> str:
        insight_id = new_id(claim, lambda i: i.lower() in named or taken(i))
        named.add(insight_id.lower())
        return insight_id

    return [read_item(item, index, now, fresh) for index, item in enumerate(raw)]


def _sort_out(cache: Cache, items: list[Item], merge: bool) -> tuple[list[Item], list[Skipped]]:
    """Items to write, and those ``--merge`` skips. Without ``--merge`` an id that is
    taken, in the store or earlier in the document, is an error."""
    unreadable = {p.path.rsplit("/", 1)[-1].removesuffix(".md"): p for p in cache.problems()}
    if not merge:
        seen_ids: dict[str, int] = {}  # by the id's lower case: see id_ignoring_case
        for index, item in enumerate(items):
            insight_id, earlier = item.insight.id, seen_ids.get(item.insight.id.lower())
            held = cache.id_ignoring_case(insight_id)
            if earlier is not None or held or insight_id in unreadable:
                where = unreadable.get(insight_id)
                taken = id_taken(index, insight_id, earlier, where, held, items)
                raise ValidationError(f"items[{index}].id", taken)
            seen_ids[insight_id.lower()] = index
        return list(items), []
    reasons = _merge_skips(cache, items, unreadable)
    kept = [item for index, item in enumerate(items) if index not in reasons]
    skipped = [
        Skipped(i, items[i].insight.id, reasons[i], items[i].insight.id in unreadable)
        for i in sorted(reasons)
    ]
    return kept, skipped


# The reason an item the store holds live is skipped, naming the rule (contribute's).
LIVE_COPY = "the same insight is live in the store as {} (as contribute judges a copy)"


def _merge_skips(
    cache: Cache, items: Sequence[Item], unreadable: Mapping[str, Problem]
) -> dict[int, str]:
    """Why ``--merge`` skips each item it skips, by position: an id the store or an
    earlier item has, an insight the store holds live (as ``contribute`` judges a copy:
    its type and claim, and a trigger's condition and side; an archived one is none),
    or one repeated in the document, of which only the strongest comes in (live first;
    the first at a tie). Of items sharing an id, too, the strongest comes in."""
    reasons: dict[int, str] = {}
    ids: dict[str, int] = {}  # the strongest item of each id
    for index, item in enumerate(items):  # ids by lower case: see id_ignoring_case
        holder = ids.setdefault(item.insight.id.lower(), index)
        if _stronger(item.insight, items[holder].insight):
            ids[item.insight.id.lower()] = index
    known = live_keys(cache)  # the store's live id of each
    best: dict[tuple[str, ...], int] = {}
    for index, item in enumerate(items):
        insight = item.insight
        key = exact_key(side_of(insight))
        holder, held = ids[insight.id.lower()], cache.id_ignoring_case(insight.id)
        if holder != index:
            reasons[index] = f"repeats the id of items[{holder}]"
        elif held:
            reasons[index] = "already in the store" + case_twin(insight.id, held)
        elif insight.id in unreadable:  # a hand edit that does not parse: never written over
            reasons[index] = f"{unreadable[insight.id].path} holds the id but cannot be read"
        elif key in known:
            reasons[index] = LIVE_COPY.format(known[key])
        elif key not in best or _stronger(insight, items[best[key]].insight):
            best[key] = index
    for index, item in enumerate(items):
        winner = best.get(exact_key(side_of(item.insight)), index)
        if index not in reasons and winner != index:
            why = "live" if item.insight.archived > items[winner].insight.archived else "stronger"
            reasons[index] = f"the same insight as items[{winner}], which is {why}"
    return reasons


def _stronger(insight: Insight, than: Insight) -> bool:
    """Strictly stronger: live (an archived copy would take the lesson out of
    retrieval), then more reinforced, then more confident (search.door's order, which
    dedupe and merge keep the strongest by)."""
    return (insight.archived, *strength(insight)[:2]) < (than.archived, *strength(than)[:2])


def _guarded_history(
    rows: Sequence[Mapping[str, Any]], allow_secret: bool
) -> list[Mapping[str, Any]]:
    """1.x history rows as the migration commit may carry them: text, and without the
    likely credentials they hold (an old value can hold a token since removed from the
    insight; git history would keep it forever). Each is replaced by ``[redacted
    <kind>]``, and a notice says how many; ``--allow-secret`` keeps them."""
    kept: list[Mapping[str, Any]] = []
    hidden = 0
    for row in rows:
        clean: dict[str, Any] = {}
        for key, value in row.items():
            if isinstance(value, bytes):  # a BLOB where 1.x wrote text
                value = value.decode("utf-8", "replace")
            if isinstance(value, str) and not allow_secret:
                value, kinds = secrets.redacted(value)
                hidden += len(kinds)
            clean[key] = value
        kept.append(clean)
    if hidden:
        notice(
            f"{hidden} likely credential(s) in chitin 1.x's history rows were redacted from "
            "the migration commit (--allow-secret keeps them)"
        )
    return kept


# Characters that would break a history row's line when the message is read back
# (str.splitlines breaks at U+0085, U+2028 and U+2029), escaped as JSON allows.
_LINE_BREAKERS = "\x7f-\x9f\u2028\u2029"


def _history_line(row: Mapping[str, Any]) -> str:

    line = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
    return re.sub(f"[{_LINE_BREAKERS}]", lambda m: f"\\u{ord(m.group()):04x}", line)


def _message(
    plan: _Plan, imported: list[Insight], history: list[Mapping[str, Any]], agent: str | None
) -> str:
    body = [f"- {insight.id}" for insight in imported]
    if history:
        body += ["", LEGACY_HISTORY_HEADER]
        body += [_history_line(row) for row in history]
    # The file's name goes into the message too: as text git can take (a name that is
    # not UTF-8 has lone surrogates), and without a credential; not worth refusing for.
    origin = well_formed(plan.origin)
    origin = origin if plan.allow_secret else secrets.redacted(origin)[0]
    trailers = {"Source": origin, "Agent": agent}
    # Not str.format: a file name may hold braces.
    subject = plan.subject.replace(plan.origin, origin).replace("{count}", str(len(imported)))
    return commit_message(plan.op, subject, body, trailers)
