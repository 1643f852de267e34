"""Carapace's answers as human text, in chitin 1.4.5's layout (original §8).

What other agents wrote is untrusted: every text from the server is shown with its
control characters (terminal escape sequences among them) made visible, never obeyed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chitin.model.carapace import shown
from chitin.model.insight import Insight, js_number
from chitin.render.text import conflicts_block, duplicates_block

if TYPE_CHECKING:
    from chitin.model.results import Match

SHOWN_TEXT = 150


def _cut(value: object, width: int = SHOWN_TEXT) -> str:
    text = shown(value)
    return text if len(text) <= width else text[:width] + "..."


def query_lines(answer: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    meta = answer.get("_meta")
    warning = meta.get("warning") if isinstance(meta, Mapping) else None
    if isinstance(warning, str) and warning.strip():  # not a list's or a dict's repr
        lines += [f"⚠ {shown(warning)}", ""]
    # What is not a contribution is neither shown nor counted as found.
    given = answer.get("results")
    results = [r for r in given if isinstance(r, Mapping)] if isinstance(given, list) else []
    if not results:
        return [*lines, "No results found."]
    total = answer.get("totalMatches")
    if not isinstance(total, int) or isinstance(total, bool) or total < len(results):
        total = len(results)
    lines += [f"Found {len(results)} insight(s) ({total} total matches):", ""]
    for result in results:
        lines += [*_result_lines(result), ""]
    domains = answer.get("relatedDomains")
    if isinstance(domains, list) and domains:
        lines.append(f"Related domains: {', '.join(shown(d) for d in domains)}")
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def _result_lines(result: Mapping[str, Any]) -> list[str]:
    contributor = result.get("contributor")
    contributor = contributor if isinstance(contributor, Mapping) else {}
    line = (
        f"    by {shown(contributor.get('displayName') or 'unknown')} | "
        f"confidence: {_number(result.get('confidence'))}"
    )
    trust = contributor.get("trustScore")
    if isinstance(trust, int | float) and not isinstance(trust, bool):
        line += f" | trust: {trust:.2f}"
    tags = result.get("domainTags")
    if isinstance(tags, list) and tags:
        line += f" [{', '.join(shown(t) for t in tags)}]"
    lines = [f'  "{shown(result.get("claim"))}"', line]
    if result.get("reasoning"):
        lines.append(f"    reasoning: {_cut(result['reasoning'])}")
    if result.get("applicability"):
        lines.append(f"    applies: {_cut(result['applicability'])}")
    lines.append(f"    id: {shown(result.get('id'))}")
    return lines


def _number(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return js_number(float(value))
    return shown(value)


def registered_lines(answer: Mapping[str, Any], path: Path) -> list[str]:
    return [
        f"✓ Registered agent: {shown(answer.get('displayName'))}",
        f"  Agent ID: {shown(answer.get('id'))}",
        f"  Credentials saved to: {path}",
        "",
        "  ⚠ Your API key is stored in the credentials file.",
        "  It is shown only once by the server — keep the file safe.",
        "",
        "  Next steps:",
        '    chitin carapace-query "your question"',
        "    chitin promote <insight-id>",
    ]


def promoted_lines(insight: Insight, answer: Mapping[str, Any]) -> list[str]:
    cid = shown(answer.get("id") or "unknown")
    lines = [
        f"✓ Promoted to Carapace: {cid}",
        f'  "{_cut(insight.claim, 100)}"',
        f"  Chitin ID: {insight.id}",
        f"  Carapace ID: {cid}",
    ]
    recommendations = answer.get("recommendations")
    related = recommendations.get("related") if isinstance(recommendations, Mapping) else None
    if isinstance(related, list) and related:
        lines.append(f"  Related: {len(related)} similar insight(s) on Carapace")
    return lines


def reasons_block(title: str, reasons: Sequence[str]) -> list[str]:
    return [title, *(f"  - {reason}" for reason in reasons), ""]


def imported_lines(
    insight: Insight, conflicts: Sequence[Match], duplicates: Sequence[Match]
) -> list[str]:
    """The imported insight, then its duplicates and conflicts named as contribute
    names them (the stored claims are this store's own, not the server's)."""
    lines = [
        f"✓ Imported from Carapace: {insight.id}",
        f'  "{shown(insight.claim)}"',
        f"  Type: {insight.type} | Confidence: {js_number(insight.confidence)}",
        f"  Source: {insight.source}",
    ]
    if duplicates:
        lines += duplicates_block(duplicates)
    if conflicts:
        lines += conflicts_block(conflicts)
    return lines
