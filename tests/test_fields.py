"""The table of insight fields (model/fields.py) drives every list of fields.

Each derived list is checked twice: against the table's projection (so that the table
is what drives it) and against its value before the table existed (so that no order,
and therefore no output byte, changed). Round trips through the file and the JSON with
every field set show that each field the table declares is written and read back.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import pytest

from chitin.errors import ValidationError
from chitin.format import frontmatter, lint, markdown
from chitin.index import db, fulltext, rows
from chitin.model import diff, fields, interchange, merge3, ops, record, secrets
from chitin.model.fields import FIELDS, Field
from chitin.model.insight import Insight, to_public_dict
from chitin.render import budget, text
from chitin.retrieval import scoring
from chitin.store import legacy

T0, T1 = "2026-11-01T10:00:00Z", "2026-11-02T10:00:00Z"
POSITIONS = tuple(name for name in Field.__slots__ if name.endswith("_at"))

# An insight with every field set to something other than its default.
FULL = Insight(
    id="deploy-on-friday-k3f9",
    type="trigger",
    claim="Do not deploy on a Friday afternoon",
    confidence=0.85,
    created=T0,
    updated=T1,
    tags=("deploy", "ops"),
    provenance="correction",
    source="the outage of November",
    condition="when a deploy is planned after 3pm on a Friday",
    avoid=True,
    reinforcements=3,
    last_reinforced=T1,
    reasoning="Nobody is there to watch it over the weekend.",
    context="Production services.",
    limitations="Hotfixes for an outage go out anyway.",
    archived=True,
    carapace_id="test-42",
)


def projection(position: str) -> tuple[str, ...]:
    placed = [f for f in FIELDS if getattr(f, position) is not None]
    return tuple(f.name for f in sorted(placed, key=lambda f: getattr(f, position)))


# ---------------------------------------------------------------- the table itself


def test_the_table_has_one_row_per_insight_attribute_in_its_order() -> None:
    assert tuple(f.name for f in FIELDS) == Insight._fields
    assert {f.name: f for f in FIELDS} == fields.BY_NAME


# What each form's values are in Python: the annotation and the row must agree.
PYTHON_TYPES = {
    fields.TEXT: {str, str | None}, fields.WORD: {str, str | None}, fields.TIME: {str, str | None},
    fields.SECTION: {str | None}, fields.CLAIM: {str}, fields.NUMBER: {float},
    fields.COUNT: {int}, fields.FLAG: {bool}, fields.FOLDER: {bool}, fields.LIST: {tuple[str, ...]},
}  # fmt: skip


@pytest.mark.parametrize("row", FIELDS, ids=repr)
def test_each_attributes_python_type_is_the_one_its_form_holds(row: Field) -> None:
    annotation = Insight.__annotations__[row.name]
    assert annotation.__origin__ in PYTHON_TYPES[row.form]
    assert annotation.__metadata__ == (row,)


def test_an_attribute_without_its_row_is_refused_when_the_class_is_made() -> None:
    # Made by call: this file's annotations are strings (``from __future__``).
    bare = NamedTuple("Bare", [("claim", Annotated[str, Field(fields.CLAIM, json_at=1)]),  # noqa: UP014
                               ("mood", str | None)])  # fmt: skip
    with pytest.raises(TypeError, match=r"Insight\.mood needs one Field in its annotation"):
        record.rows_of(bare)


@pytest.mark.parametrize("position", POSITIONS)
def test_each_purpose_numbers_its_fields_from_1_without_gaps(position: str) -> None:
    placed = sorted(getattr(f, position) for f in FIELDS if getattr(f, position) is not None)
    assert placed == list(range(1, len(placed) + 1))


def test_every_field_is_in_the_json_and_keys_are_unique() -> None:
    assert all(f.json_at is not None for f in FIELDS)
    assert len({f.json for f in FIELDS}) == len(FIELDS)


def test_a_field_is_in_the_frontmatter_or_the_body_or_known_from_its_folder() -> None:
    for f in FIELDS:
        in_body = f.form in (fields.CLAIM, fields.SECTION)
        assert (f.file_at is not None) + in_body + (f.form == fields.FOLDER) == 1, f.name
        assert (f.title is not None) == (f.form == fields.SECTION), f.name
        assert bool(f.choices) == (f.form == fields.WORD), f.name
        assert (f.search_at is None) == (f.search_weight is None), f.name


# ---------------------------------------------------------------- the derived lists

# Each list, as it was hand-kept before the table (chitin 2 up to issue 12): a change
# to one of these orders changes output (error messages, files, JSON, history).
BEFORE: dict[str, tuple[str, ...]] = {
    "json_at": (
        "id", "type", "claim", "reasoning", "context", "limitations", "confidence", "tags",
        "source", "provenance", "condition", "carapace_id", "avoid", "created", "updated",
        "reinforcements", "last_reinforced", "archived",
    ),
    "file_at": (
        "id", "type", "confidence", "tags", "provenance", "source", "carapace_id", "condition",
        "avoid", "reinforcements", "created", "updated", "last_reinforced",
    ),
    "edit_at": (
        "type", "claim", "confidence", "reasoning", "context", "limitations", "tags", "source",
        "provenance", "condition", "avoid",
    ),
    "guard_at": (
        "claim", "condition", "reasoning", "context", "limitations", "source", "tags", "id",
    ),
    "merge_at": (
        "id", "type", "claim", "provenance", "source", "carapace_id", "condition", "avoid",
        "reasoning", "context", "limitations",
    ),
    "history_at": (
        "claim", "reasoning", "context", "limitations", "confidence", "tags", "source",
        "carapace_id", "provenance", "condition", "avoid", "type", "reinforcements",
    ),
    "compare_at": (
        "type", "claim", "confidence", "reinforcements", "tags", "provenance", "source",
        "carapace_id", "condition", "avoid", "reasoning", "context", "limitations",
    ),
    "search_at": ("claim", "condition", "tags", "context", "reasoning", "limitations"),
    # The labelled lines of get's text, and under a claim in retrieve's full format
    # (render/text.py and render/budget.py kept them by hand up to issue 29).
    "get_at": ("reasoning", "context", "limitations", "provenance", "source"),
    "full_at": ("context", "reasoning", "limitations"),
}  # fmt: skip


@pytest.mark.parametrize("position", POSITIONS)
def test_each_order_is_the_one_kept_by_hand_before(position: str) -> None:
    assert projection(position) == BEFORE[position]


def test_the_lists_of_the_model_are_the_tables_projections() -> None:
    assert ops.CONTRIBUTE_FIELDS == ops.UPDATE_FIELDS == projection("edit_at")
    assert projection("guard_at") == secrets.GUARDED_FIELDS
    assert projection("merge_at") == merge3.SCALAR_FIELDS
    assert projection("compare_at") == diff.COMPARED_FIELDS
    history = tuple(
        "reinforcement_count" if name == "reinforcements" else name
        for name in projection("history_at")
    )
    assert history == diff.DIFF_FIELDS


def test_the_interchange_keys_are_the_json_keys_with_last_retrieved_after_the_count() -> None:
    keys = [fields.BY_NAME[name].json for name in projection("json_at")]
    keys.insert(keys.index("reinforcementCount") + 1, "lastRetrievedAt")
    # Then what a backup holds beside the fields (issue 25), hand-added keys too (qa56),
    # and hand-added body text in its place (qa113).
    known = (*keys, "evidence", "extraFrontmatter", "extraBody", "history")
    assert known == interchange.KNOWN_KEYS


def test_the_legacy_columns_are_the_fields_1x_had_in_json_order() -> None:
    expected = {
        f.legacy: f.json
        for f in (fields.BY_NAME[name] for name in projection("json_at"))
        if f.legacy is not None
    }
    assert list(legacy._COLUMNS) == [
        "id", "type", "claim", "reasoning", "context", "limitations", "confidence", "tags",
        "source", "provenance", "condition", "avoid", "created_at", "updated_at",
        "reinforcement_count", "last_retrieved_at",
    ]  # fmt: skip
    assert {k: v for k, v in legacy._COLUMNS.items() if k != "last_retrieved_at"} == expected
    assert legacy._COLUMNS["last_retrieved_at"] == "lastRetrievedAt"


def test_the_file_formats_lists_are_the_tables_projections() -> None:
    assert (*projection("file_at"), "evidence") == markdown.KEY_ORDER
    assert markdown.SECTION_TITLES == {
        "reasoning": "Reasoning",
        "context": "Context",
        "limitations": "Limitations",
    }
    assert set(frontmatter._FAST_VALUES) | {"tags"} == set(projection("file_at"))
    assert list(frontmatter._FAST_LISTS) == ["tags:", "evidence:"]


def test_the_search_columns_and_weights_come_from_the_table() -> None:
    assert tuple(scoring.RELEVANCE_WEIGHTS) == projection("search_at") == fields.SEARCHED
    assert scoring.RELEVANCE_WEIGHTS == {
        "claim": 4.0,
        "condition": 3.0,
        "tags": 2.0,
        "context": 1.5,
        "reasoning": 1.0,
        "limitations": 0.5,
    }
    # index/ keeps its own column list until it is connected to the table: they agree.
    assert fulltext.COLUMNS == fields.SEARCHED


def test_the_labelled_lines_of_get_and_of_the_full_format_come_from_the_table() -> None:
    assert text.detail(FULL, "insights/trigger/x.md") == [
        "[trigger] Do not deploy on a Friday afternoon",
        "  When: when a deploy is planned after 3pm on a Friday",
        "  Action: AVOID",
        "  Reasoning: Nobody is there to watch it over the weekend.",
        "  Context: Production services.",
        "  Limitations: Hotfixes for an outage go out anyway.",
        "  Confidence: 0.85 | Reinforced: 3x",
        "  Tags: deploy, ops",
        "  Provenance: correction",
        "  Source: the outage of November",
        "  ID: deploy-on-friday-k3f9",
        "  File: insights/trigger/x.md (archived)",
    ]
    assert budget.line(FULL, full=True, label="ab").splitlines()[1:] == [
        "  Context: Production services.",
        "  Reasoning: Nobody is there to watch it over the weekend.",
        "  Limitations: Hotfixes for an outage go out anyway.",
    ]
    assert [fields.label(fields.BY_NAME[name]) for name in projection("get_at")] == [
        "Reasoning", "Context", "Limitations", "Provenance", "Source",
    ]  # fmt: skip
    assert fields.label(fields.BY_NAME["carapace_id"]) == "Carapace id"


def test_the_caches_columns_are_the_tables_fields_and_hold_each_value_as_it_was(
    tmp_path: Path,
) -> None:
    with contextlib.closing(db.open_database(tmp_path)) as database:
        columns = database.execute("PRAGMA table_info(entries)").fetchall()
        declared = [(name, kind) for _, name, kind, *_ in columns]
        names = [name for name, _ in declared]
        insight_columns = declared[names.index("error") + 1 : names.index("strength")]
        assert insight_columns == [
            ("id", "TEXT"), ("type", "TEXT"), ("claim", "TEXT"), ("confidence", "REAL"),
            ("created", "TEXT"), ("updated", "TEXT"), ("tags", "TEXT"), ("provenance", "TEXT"),
            ("source", "TEXT"), ("condition", "TEXT"), ("avoid", "INTEGER"),
            ("reinforcements", "INTEGER"), ("last_reinforced", "TEXT"), ("reasoning", "TEXT"),
            ("context", "TEXT"), ("limitations", "TEXT"), ("archived", "INTEGER"),
            ("carapace_id", "TEXT"),
        ]  # fmt: skip
        assert tuple(name for name, _ in insight_columns) == Insight._fields
        for insight in (FULL, FULL._replace(tags=(), avoid=False, archived=False, source=None)):
            stat = (1, 1, 1, 1)
            database.execute(
                rows.INSERT,
                (
                    "p",
                    "d",
                    *stat,
                    None,
                    *rows.row_values(insight),
                    0.5,
                    "h",
                    rows.tag_keys(insight),
                ),
            )
            (row,) = database.execute(f"SELECT {rows.INSIGHT_COLUMNS} FROM entries").fetchall()
            database.execute("DELETE FROM entries")
            back = rows.to_insight(row)
            assert back == insight
            assert [type(value) for value in back] == [type(value) for value in insight]


def test_the_cache_is_stamped_with_its_schemas_text() -> None:
    """Another field table (another schema text), or a version bumped by hand, gives
    the file another number: a cache made by another chitin is rebuilt as outdated."""
    stamp = db.schema_version(db.SCHEMA_VERSION, db._TABLES)
    assert stamp == db.USER_VERSION and 0 < stamp < 2**31
    grown = db._TABLES.replace("carapace_id TEXT,", "carapace_id TEXT,\n    mood TEXT,")
    assert grown != db._TABLES
    assert db.schema_version(db.SCHEMA_VERSION, grown) != stamp
    assert db.schema_version(db.SCHEMA_VERSION + 1, db._TABLES) != stamp


@pytest.mark.parametrize("row", [f for f in FIELDS if f.fix is not None], ids=lambda f: f.name)
def test_check_says_how_to_fix_each_field_as_the_table_does(row: Field) -> None:
    assert lint.fix_for(ValidationError(row.name, "wrong")) == row.fix


# ---------------------------------------------------------------- every field, end to end


def test_a_file_with_every_field_reads_back_the_same_and_writes_the_same_bytes() -> None:
    text = markdown.serialize(FULL)
    for f in FIELDS:
        if f.file_at is not None:
            assert f"\n{f.name}:" in text, f.name
        if f.title is not None:
            assert f"\n## {f.title}\n" in text, f.name
    insight, layout = markdown.parse(text, fallback_id="x", fallback_type=None, fallback_time=T0)
    assert insight == FULL._replace(archived=False)  # the folder says archived, not the file
    assert markdown.serialize(insight, layout) == text
    front = text.split("---\n")[1]
    fast = frontmatter._read_canonical(front)  # every key read without PyYAML
    assert fast is not None and tuple(fast) == projection("file_at")


def test_the_frontmatter_lines_are_in_the_tables_order() -> None:
    text = markdown.serialize(FULL)
    keys = [line.split(":")[0] for line in text.split("---\n")[1].splitlines()]
    assert [key for key in keys if not key.startswith("- ")] == list(projection("file_at"))


def test_json_with_every_field_reads_back_the_same() -> None:
    evidence = ("2026-01-02T00:00:00Z agent@host abcd",)
    history = ({"field": "*", "oldValue": None, "newValue": FULL.claim, "changeType": "create",
                "changedAt": T1, "source": None},)  # fmt: skip
    extra = ("team: platform",)
    body = (("claim", ""), ("section", "reasoning"), ("text", "## Notes\n\nMine."))
    data = interchange.export_dict(FULL, T1, evidence, history, extra, body)
    assert tuple(data) == interchange.KNOWN_KEYS
    assert list(to_public_dict(FULL)) == [f.json for f in interchange_fields()]
    item = interchange.read_item(data, 0, T1, lambda claim: "unused")
    rows = ({"insightId": FULL.id, **history[0]},)
    assert item == interchange.Item(FULL, T1, evidence, rows, extra, body)


def interchange_fields() -> list[Field]:
    return [fields.BY_NAME[name] for name in projection("json_at")]


def test_absent_optional_fields_are_left_out_of_the_json() -> None:
    bare = Insight("a-k3f9", "skill", "Claim", 0.5, T0, T0)
    keys = list(to_public_dict(bare))
    assert keys == [
        "id", "type", "claim", "confidence", "tags", "avoid", "createdAt", "updatedAt",
        "reinforcementCount", "archived",
    ]  # fmt: skip


def test_contribute_and_update_accept_every_editable_field_and_name_them_in_order() -> None:
    values: dict[str, Any] = {name: getattr(FULL, name) for name in ops.CONTRIBUTE_FIELDS}
    made = ops.new_insight(values, FULL.id, T0)
    assert all(getattr(made, name) == getattr(FULL, name) for name in ops.CONTRIBUTE_FIELDS)
    with pytest.raises(ValidationError) as refused:
        ops.new_insight({**values, "archived": True}, FULL.id, T0)
    assert f"(allowed: {', '.join(projection('edit_at'))})" in str(refused.value)


def test_history_and_diff_report_every_field_of_theirs_in_order() -> None:
    other = Insight(
        id=FULL.id,
        type="skill",
        claim="Deploy any day",
        confidence=0.5,
        created=T0,
        updated=T0,
        tags=("x",),
        provenance="observation",
        source="a guess",
        reinforcements=0,
        reasoning="r",
        context="c",
        limitations="l",
        carapace_id="test-7",
    )
    assert [c.field for c in diff.field_changes(other, FULL)] == list(diff.DIFF_FIELDS)
    assert [c.field for c in diff.value_changes(other, FULL)] == list(diff.COMPARED_FIELDS)


def test_the_merge_driver_reports_a_conflict_in_every_scalar_field_in_order() -> None:
    base = FULL._replace(archived=False)
    ours = base._replace(**{n: _changed(n, base, "ours") for n in merge3.SCALAR_FIELDS})
    theirs = base._replace(**{n: _changed(n, base, "theirs") for n in merge3.SCALAR_FIELDS})
    resolved = merge3.merge(merge3.Side(base), merge3.Side(ours), merge3.Side(theirs))
    # A flag has two values: only one side can change it, so it merges without a conflict.
    assert resolved.conflicts == tuple(n for n in merge3.SCALAR_FIELDS if n != "avoid")
    assert resolved.insight.avoid is not base.avoid


def _changed(name: str, insight: Insight, side: str) -> Any:
    value = getattr(insight, name)
    if isinstance(value, bool):
        return not value if side == "ours" else value
    return f"{value}-{side}"


@pytest.mark.parametrize("name", secrets.GUARDED_FIELDS)
def test_a_secret_in_each_guarded_field_is_found_under_its_name(name: str) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    value: Any = (token,) if name == "tags" else token
    found = secrets.secrets_in(FULL._replace(**{name: value}), FULL)
    assert [field for field, _ in found] == [name]


@pytest.mark.parametrize(("tool", "own"), [("contribute", {"force"}), ("update", {"id"})])
def test_the_mcp_tools_that_write_fields_take_exactly_the_editable_ones(
    tool: str, own: set[str]
) -> None:
    """contribute and update pass on model/fields.py's EDITABLE (server/tool_calls.py):
    their schemas name each of those fields, and nothing else but their
    own options."""
    from chitin.server.tools import listing

    (schema,) = [t["inputSchema"] for t in listing() if t["name"] == tool]
    assert set(schema["properties"]) == set(fields.EDITABLE) | own | {"allow_secret"}


def test_the_mcp_tool_listing_is_the_one_the_sdk_generated() -> None:
    """contribute's and update's field parameters are derived from the table
    (server/tools.py): the listing stays, byte for byte, what the MCP SDK generated
    when chitin served on it (kept in tests/data/mcp_tools.json)."""
    from chitin.server.tools import listing

    golden = Path(__file__).parent / "data" / "mcp_tools.json"
    shown = json.dumps(listing(), indent=2, ensure_ascii=False) + "\n"
    assert shown == golden.read_text(encoding="utf-8")
