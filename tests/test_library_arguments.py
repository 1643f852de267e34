"""The library's remaining unchecked arguments (fix113): each refused as a
ValidationError naming the parameter and what it takes, through model/arguments.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chitin import Chitin, Query, ValidationError
from chitin.model import arguments
from chitin.retrieval.scoring import DEFAULT_SHAPE, Shape


@pytest.mark.parametrize(
    ("options", "field", "said"),
    [
        ({"shape": 5}, "shape", "shape must be a Shape (chitin.retrieval.scoring) or None, got 5"),
        ({"shape": (1.0, 1.0, 1.0, None)}, "shape", "shape must be a Shape"),
        ({"fusion": "bogus"}, "fusion", "fusion must be one of blend, rrf, got 'bogus'"),
        ({"fusion": None}, "fusion", "fusion must be one of blend, rrf, got None"),
    ],
)
def test_the_scoring_options_are_checked_at_construction(
    store: Path, options: dict[str, Any], field: str, said: str
) -> None:
    """shape=5 raised AttributeError at the first retrieval; fusion="bogus" blended."""
    with pytest.raises(ValidationError) as refused:
        Chitin(store=store, **options)
    assert refused.value.field == field and str(refused.value).startswith(said)


def test_the_scoring_options_of_the_right_kind_are_taken(store: Path) -> None:
    for shape in (None, DEFAULT_SHAPE, Shape(confidence=0.5)):
        for fusion in ("blend", "rrf"):
            Chitin(store=store, shape=shape, fusion=fusion).close()
    assert Shape._fields == arguments.SHAPE_FIELDS  # the two kept together


@pytest.mark.parametrize(
    ("template", "said"),
    [(5, "template must be a path, got 5"), (b"t.md", "template must be a path, got b't.md'")],
)
def test_render_refuses_a_template_that_is_no_path(store: Path, template: Any, said: str) -> None:
    """render(template=5) said "cannot read 5" (open() took it for a file descriptor)."""
    with Chitin(store=store) as chitin:
        chitin.init(seed=True)
        with pytest.raises(ValidationError) as refused:
            chitin.render(template=template)
    assert refused.value.field == "template" and str(refused.value) == said


def test_render_takes_a_template_named_by_its_text(store: Path, tmp_path: Path) -> None:
    template = tmp_path / "mine.md"
    template.write_text("# Mine\n\n{{insights}}\n")
    with Chitin(store=store) as chitin:
        chitin.init(seed=True)
        assert chitin.render(template=str(template)).text.startswith("# Mine")


@pytest.mark.parametrize("tags", [[5], ("git", None), 5, [["git"]]])
def test_a_query_with_tags_that_are_no_texts_is_refused(store: Path, tags: Any) -> None:
    """Query(tags=[5]) quietly matched nothing."""
    with Chitin(store=store) as chitin:
        chitin.init(seed=True)
        with pytest.raises(ValidationError) as refused:
            chitin.retrieve(Query("tests", tags=tags))
    assert refused.value.field == "tags"
    assert str(refused.value).startswith("tags must be a list of texts, got ")


def test_a_query_with_tags_of_texts_still_filters(store: Path) -> None:
    with Chitin(store=store) as chitin:
        chitin.init()
        kept = chitin.contribute(
            {"type": "skill", "confidence": 0.7, "claim": "Run the linter first.", "tags": ["git"]}
        ).insight.id
        chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Lint the code first."})
        found = chitin.retrieve(Query("lint", tags=["git"]))
        assert [r.insight.id for r in found.ranked] == [kept]
        for tags in (("git",), "git", "ci, git", ["Git"]):  # a comma text, as --tags
            assert [r.insight.id for r in chitin.retrieve(Query("lint", tags=tags)).ranked] == [
                kept
            ], tags
