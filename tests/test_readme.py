"""The README and the docs pages, as GitHub renders them (issue 30).

A small reader of CommonMark's fences and ATX headings: a fence closes only on a line
of the same character, at least as long, with nothing after it, so a ```` ```python ````
line inside a ```` ```markdown ```` example does not close the example: it is text,
and the next bare fence closes the example instead. That is how the "Use it from
Python" section once disappeared into the example insight file, while the file's own
``## Reasoning`` and ``## Context`` became headings of the README. Every page is read
so, and every relative link between them must lead to a file, and to a heading where
it names one.
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


PAGES = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))]


def read(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


@pytest.fixture
def readme() -> str:
    return read("README.md")


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


@pytest.mark.parametrize("page", PAGES)
def test_every_fence_closes_and_none_opens_inside_another(page: str) -> None:
    assert structure(read(page)).problems == []


@pytest.mark.parametrize("page", PAGES)
def test_the_outline_is_the_page_s_own_sections(page: str) -> None:
    """GitHub's outline lists the headings outside code: one title, then sections
    that go down one level at a time, and none of an example insight file's."""
    headings = structure(read(page)).headings
    assert [h.level for h in headings].count(1) == 1 and headings[0].level == 1
    for before, after in itertools.pairwise(headings):
        assert after.level <= before.level + 1, f"line {after.line}: {after.text!r} skips a level"
    assert not INSIGHT_SECTIONS & {h.text for h in headings}


def test_the_readme_outline_keeps_the_sections_the_tests_run(readme: str) -> None:
    outline = {h.text: h.level for h in structure(readme).headings}
    assert outline["Quick start"] == 2  # tests/test_shipping.py runs its commands
    assert outline["Using it"] == 2  # tests/test_process.py runs its examples
    assert outline["The session loop"] == 2


def test_the_example_insight_file_keeps_its_sections_inside_its_fence() -> None:
    page = read("docs/format.md")
    example = page.split("```markdown\n", 1)[1].split("\n```\n", 1)[0]
    assert "\n## Reasoning\n" in example and "\n## Context\n" in example
    assert "Use it from Python" not in example


def test_the_readme_links_every_docs_page(readme: str) -> None:
    """The reference lives in docs/: each page is one link away from the README."""
    linked = {target for target, _ in links(readme)}
    for page in PAGES[1:]:
        assert page in linked, f"the README does not link {page}"


def links(text: str) -> list[tuple[str, str]]:
    """(path, anchor) of each relative Markdown link outside code."""
    prose = [line for line in text.splitlines() if line.strip()]
    opened = False
    kept = []
    for line in prose:
        if FENCE.match(line):
            opened = not opened
            continue
        if not opened:
            kept.append(re.sub(r"`[^`]*`", "", line))
    found = re.findall(r"\]\(([^)\s]+)\)", " ".join(kept))
    relative = [t for t in found if not re.match(r"[a-z][a-z0-9+.-]*:", t)]
    return [(t.partition("#")[0], t.partition("#")[2]) for t in relative]


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings; a repeated one gets -1, -2, …"""
    seen: dict[str, int] = {}
    found = set()
    for heading in structure(page.read_text(encoding="utf-8")).headings:
        base = anchor(heading.text)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


@pytest.mark.parametrize("page", PAGES)
def test_every_relative_link_leads_to_a_file_and_a_heading(page: str) -> None:
    broken = []
    for path, fragment in links(read(page)):
        target = (ROOT / page).parent / path if path else ROOT / page
        if not target.exists():
            broken.append(f"{path}: no such file")
        elif fragment and fragment not in anchors(target):
            broken.append(f"{path}#{fragment}: no such heading")
    assert not broken, f"{page}: {broken}"


def test_the_link_reader_finds_what_is_broken(tmp_path: Path) -> None:
    """The checker itself: a missing file, a missing heading, a same-page anchor, and
    links in code that are not links."""
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n## Two words\n\n[a](#two-words) [b](#nope) [c](other.md#x)"
        " [d](https://example.org/x.md) `[e](gone.md)`\n\n```\n[f](gone.md)\n```\n"
    )
    (tmp_path / "other.md").write_text("# Other\n\n## X\n")
    found = links(page.read_text())
    assert found == [("", "two-words"), ("", "nope"), ("other.md", "x")]
    assert anchors(page) == {"page", "two-words"} and anchors(tmp_path / "other.md") == {
        "other",
        "x",
    }


def test_the_readme_names_every_script_ci_runs(readme: str) -> None:
    """The README says what CI runs: each script .ci/run calls is named there."""
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    scripts = re.findall(r"^(?:python3|bash) (scripts/\S+)", ci_run, re.M)
    assert len(scripts) >= 3
    for script in scripts:
        assert f"`{script}`" in readme, f"the README does not say that CI runs {script}"
    assert "exactly what CI runs" not in readme


def test_the_readme_says_what_openclaw_s_local_mode_loads(readme: str) -> None:
    """Issue 28 item 3: `openclaw agent --local` loads no hooks, so no PERSONALITY.md;
    a reader of the README (not only of docs/hooks.md) must learn it there."""
    said = " ".join(readme.split())
    assert "`openclaw agent --local`" in said
    assert "no `PERSONALITY.md`" in said and "only the gateway" in said.lower()
