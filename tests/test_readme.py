"""The README's structure as GitHub renders it (issue 30).

A small reader of CommonMark's fences and ATX headings: a fence closes only on a line
of the same character, at least as long, with nothing after it, so a ```` ```python ````
line inside a ```` ```markdown ```` example does not close the example: it is text,
and the next bare fence closes the example instead. That is how the "Use it from
Python" section once disappeared into the example insight file, while the file's own
``## Reasoning`` and ``## Context`` became headings of the README.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^ {0,3}(?P<mark>`{3,}|~{3,})(?P<info>.*)$")
HEADING = re.compile(r"^ {0,3}(?P<level>#{1,6})(?:[ \t]+(?P<text>.*?))?(?:[ \t]+#+)?[ \t]*$")
# The sections of an insight file's body: headings of an example, never of the README.
INSIGHT_SECTIONS = {"Reasoning", "Context", "Limitations"}


class Heading(NamedTuple):
    line: int
    level: int
    text: str


class Structure(NamedTuple):
    headings: list[Heading]
    problems: list[str]


def structure(text: str) -> Structure:
    """The headings outside fenced code, and what is wrong with the fences."""
    headings: list[Heading] = []
    problems: list[str] = []
    opened: tuple[int, str, int] | None = None  # line, character, length
    for number, line in enumerate(text.splitlines(), start=1):
        fence = FENCE.match(line)
        if opened is None:
            heading = HEADING.match(line)
            if fence and not ("`" in fence["info"] and fence["mark"][0] == "`"):
                opened = (number, fence["mark"][0], len(fence["mark"]))
            elif heading:
                headings.append(Heading(number, len(heading["level"]), heading["text"] or ""))
            continue
        start, char, length = opened
        if fence and fence["mark"][0] == char and len(fence["mark"]) >= length:
            if not fence["info"].strip():
                opened = None
            else:  # text to CommonMark; a fence meant to open, to its author
                problems.append(f"line {number}: a fence opens inside the one of line {start}")
    if opened is not None:
        problems.append(f"line {opened[0]}: the fence opened here is never closed")
    return Structure(headings, problems)


def anchor(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to -."""
    plain = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", text).lower()
    kept = "".join(c for c in plain if c in " -" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


@pytest.fixture
def readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_reader_finds_the_fence_that_swallowed_a_section() -> None:
    """The shape of the README before the fix: its damage, as this reader sees it."""
    broken = (
        "# t\n\n```markdown\n---\nid: x\n---\n\nA claim.\n\n## Use it from Python\n\n"
        "```python\nprint(1)\n```\n\nMore prose.\n\n## Reasoning\n\nWhy.\n```\n\n"
        "## Development\n"
    )
    found = structure(broken)
    assert found.problems == [
        "line 12: a fence opens inside the one of line 3",
        "line 21: the fence opened here is never closed",
    ]
    assert [h.text for h in found.headings] == ["t", "Reasoning"]


def test_every_fence_closes_and_none_opens_inside_another(readme: str) -> None:
    assert structure(readme).problems == []


def test_the_outline_is_the_readme_s_own_sections(readme: str) -> None:
    """GitHub's outline lists the headings outside code: one title, then sections
    that go down one level at a time, with the sections the tests and links rely
    on, and none of an example file's."""
    headings = structure(readme).headings
    assert [h.level for h in headings].count(1) == 1 and headings[0].level == 1
    for before, after in itertools.pairwise(headings):
        assert after.level <= before.level + 1, f"line {after.line}: {after.text!r} skips a level"
    outline = {h.text: h.level for h in headings}
    assert outline["Quick start"] == 2
    assert outline["Use it from Python"] == 2  # tests/test_public_api.py runs its example
    assert not INSIGHT_SECTIONS & set(outline)
    # The example insight file still shows its body's sections, inside its fence.
    example = readme.split("```markdown\n", 1)[1].split("\n```\n", 1)[0]
    assert "\n## Reasoning\n" in example and "## Use it from Python" not in example


def test_links_to_sections_lead_to_a_heading(readme: str) -> None:
    anchors = {anchor(h.text) for h in structure(readme).headings}
    linked = set(re.findall(r"\]\(#([^)]+)\)", readme))
    assert linked <= anchors, f"no heading for {sorted(linked - anchors)}"


def test_the_readme_names_every_script_ci_runs(readme: str) -> None:
    """The README says what CI runs: each script .ci/run calls is named there."""
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    scripts = re.findall(r"^(?:python3|bash) (scripts/\S+)", ci_run, re.M)
    assert len(scripts) >= 3
    for script in scripts:
        assert f"`{script}`" in readme, f"the README does not say that CI runs {script}"
    assert "exactly what CI runs" not in readme
