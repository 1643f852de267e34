"""Human-readable text for insights, close to the original's wording (strings only)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from chitin.model.escapes import visible
from chitin.model.fields import SECTION, label, ordered
from chitin.model.insight import Insight, js_number
from chitin.model.quality import fixed as fixed  # cli/reflect.py prints with it too

if TYPE_CHECKING:
    from chitin.model.history import Entry
    from chitin.model.results import Candidate, Match


def tags_text(insight: Insight) -> str:
    return ", ".join(insight.tags) if insight.tags else "(none)"


def contributed(insight: Insight) -> list[str]:
    line = f"  confidence: {confidence(insight.confidence)} | tags: {tags_text(insight)}"
    if insight.provenance:
        line += f" | provenance: {insight.provenance}"
    lines = [f"✓ Contributed {insight.type} insight: {insight.id}", f'  "{insight.claim}"', line]
    if insight.condition:
        action = "AVOID" if insight.avoid else "DO"
        lines.append(f"  when: {insight.condition} → {action}")
    return lines


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """A count and its noun, agreeing: "1 duplicate", "2 duplicates", "2 exact copies"."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def duplicates_block(matches: Sequence[Match]) -> list[str]:
    lines = ["", f"⚠ {counted(len(matches), 'duplicate')}: this is already known."]
    for match in matches:
        lines += [
            "",
            f'  [{match.type}] "{match.claim}"',
            f"    similarity: {percent(match.similarity)} | already known as {match.id}; "
            f"reinforce it instead? chitin reinforce {match.id}",
        ]
    return lines


def conflicts_block(matches: Sequence[Match]) -> list[str]:
    # 1.4.5's own words, kept as issue 2 asks (as `N insight(s)` is kept).
    lines = ["", f"⚠ {len(matches)} potential conflict(s) detected:"]
    for match in matches:
        lines += [
            "",
            f'  [{match.type}] "{match.claim}"',
            f"    conflict: {percent(match.conflict_score)} | tension: {match.tension_reason}",
            f"    id: {match.id}",
        ]
    lines += ["", "  Consider: chitin merge, chitin update, or chitin archive to resolve."]
    return lines


class _Merged(Protocol):
    @property
    def commit(self) -> str | None: ...


class Cluster(Protocol):
    """A cluster of duplicates as dedupe gives it (chitin.core.lifecycle.Deduped)."""

    @property
    def keep(self) -> Insight: ...
    @property
    def others(self) -> Sequence[Insight]: ...
    @property
    def exact(self) -> bool: ...
    @property
    def same_claim(self) -> bool: ...
    @property
    def copies(self) -> int: ...
    @property
    def claim_copies(self) -> int: ...
    @property
    def command(self) -> str: ...
    @property
    def change(self) -> _Merged | None: ...


def dedupe_lines(found: Sequence[Cluster], applied: bool) -> list[str]:
    """dedupe: one block per cluster, strongest first, then a summary."""
    if not found:
        return ["✓ No duplicates found."]
    lines: list[str] = []
    for cluster in found:
        keep = cluster.keep
        lines += [
            f"[{keep.type}] {keep.claim}",
            f"  keep: {keep.id} ({keep.reinforcements}×, confidence "
            f"{confidence(keep.confidence)}) | {_members(cluster)}:",
        ]
        lines += [f'    {other.id}: "{other.claim}"' for other in cluster.others]
        if cluster.change is not None:
            lines.append(f"  ✓ merged into {keep.id} ({(cluster.change.commit or '')[:8]})")
        else:
            lines.append(f"  run: {cluster.command}")
        lines.append("")
    folded = sum(len(c.others) for c in found)
    verb = "merged" if applied else "to merge"
    lines.append(f"{counted(len(found), 'cluster')}, {counted(folded, 'duplicate')} {verb}")
    return lines


def _members(cluster: Cluster) -> str:
    """What the others of a cluster are: exact copies (of the insight, or of its claim
    under other types) or near duplicates, or some of each ("3 exact copies and 1 near
    duplicate")."""
    count = len(cluster.others)
    if cluster.exact:
        return counted(count, "exact copy", "exact copies")
    if cluster.same_claim:
        return counted(count, "exact copy of the claim", "exact copies of the claim")
    near = count - cluster.copies - cluster.claim_copies
    parts = [
        counted(cluster.copies, "exact copy", "exact copies") if cluster.copies else "",
        counted(cluster.claim_copies, "exact copy of the claim", "exact copies of the claim")
        if cluster.claim_copies
        else "",
        counted(near, "near duplicate") if near else "",
    ]
    said = [part for part in parts if part]
    return ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0]


def unaligned_line(count: int) -> str:
    """check and dedupe: the pairs judged by the cosine alone whose verdict depends on
    the alignment of their own words (chitin.search.aligned's budget), said, not hidden."""
    return (
        f"{counted(count, 'pair')} judged without the alignment of their own words (past the "
        "budget of token vectors, or no model): contribute may judge them otherwise"
    )


def percent(value: float) -> str:
    """Whole percent, ties rounded up like JavaScript's toFixed(0)."""
    return f"{int(value * 100 + 0.5 + 1e-9)}%"


# get's labelled lines (model/fields.py's ``get_at``): the body's sections come before
# the numbers, the other fields after the tags, as 1.4.5 prints them.
_GET_SECTIONS = tuple((label(f), f.name) for f in ordered("get_at") if f.form == SECTION)
_GET_OTHERS = tuple((label(f), f.name) for f in ordered("get_at") if f.form != SECTION)


def labelled(insight: Insight, shown: Sequence[tuple[str, str]]) -> list[str]:
    """``  Label: value`` for each (label, field name) in ``shown`` that has a value."""
    lines = []
    for name, field in shown:
        value = getattr(insight, field)
        if value:
            lines.append(f"  {name}: {value}")
    return lines


def detail(insight: Insight, path: str) -> list[str]:
    lines = [f"[{insight.type}] {insight.claim}"]
    if insight.type == "trigger" and insight.condition:
        lines += [f"  When: {insight.condition}", f"  Action: {'AVOID' if insight.avoid else 'DO'}"]
    lines += labelled(insight, _GET_SECTIONS)
    lines.append(
        f"  Confidence: {confidence(insight.confidence)} | Reinforced: {insight.reinforcements}x"
    )
    lines.append(f"  Tags: {tags_text(insight)}")
    lines += labelled(insight, _GET_OTHERS)
    lines.append(f"  ID: {insight.id}")
    lines.append(f"  File: {path}" + (" (archived)" if insight.archived else ""))
    return lines


def list_entry(insight: Insight) -> str:
    # (reflex only for an insight with a condition: list formats 100,000 rows)
    head = f"  [{insight.type}] {reflex(insight) if insight.condition else insight.claim}"
    if insight.tags:
        head += f" [{', '.join(insight.tags)}]"
    if insight.reinforcements:
        head += f" ({insight.reinforcements}×)"
    if insight.provenance:
        head += f" (provenance: {insight.provenance})"
    return f"{head}\n    confidence: {confidence(insight.confidence)} | id: {insight.id}"


def reflex(insight: Insight) -> str:
    """A trigger with a condition reads as a reflex, "When: X → avoid: Y", as in a
    session's personality (render, retrieve); any other insight is its claim."""
    if insight.type == "trigger" and insight.condition:
        action = "avoid" if insight.avoid else "do"
        return f"When: {insight.condition} → {action}: {insight.claim}"
    return insight.claim


def insight_list(insights: Sequence[Insight], archived: bool) -> str:
    if not insights:
        return "No archived insights." if archived else "No insights found."
    body = "\n".join(list_entry(insight) for insight in insights)
    label = "archived insight(s)" if archived else "insight(s)"
    return f"{body}\n\n{len(insights)} {label}"


def stats(total: int, average: float, by_type: dict[str, int], archived: int) -> list[str]:
    lines = [
        "Chitin Insights",
        f"  Total: {total}",
        f"  Average confidence: {fixed(average, 2)}",
        "  By type:",
    ]
    lines += [f"    {kind}: {count}" for kind, count in by_type.items() if count]
    if archived:
        lines.append(f"  Archived: {archived}")
    return lines


def confidence(value: float, digits: int = 2) -> str:
    """A confidence for people, to two decimals as 1.4.5 writes its average confidence
    (toFixed(2)), printed as a JavaScript number: 0.91, 0.8, 1. The files and the JSON
    keep the exact value (up to six decimals)."""
    # Remembered: `list` shows 10,000 confidences of a few dozen values, and each
    # rounding goes through Decimal (~3 µs; 25 ms of `list` at 10,000 without this).
    key = (value, digits)
    shown = _shown_confidences.get(key)
    if shown is None:
        if len(_shown_confidences) >= _SHOWN_CONFIDENCES_KEPT:
            _shown_confidences.clear()  # a long-lived process never grows it without end
        whole, point, decimals = repr(value).partition(".")
        if point and whole.isdigit() and len(decimals) <= digits:
            # Already that short (0.9, 0.85): rounding would give it back, and a `get`
            # need not import decimal for it.
            shown = js_number(value)
        else:
            shown = js_number(float(fixed(value, digits)))
        _shown_confidences[key] = shown
    return shown


_SHOWN_CONFIDENCES_KEPT = 4096
_shown_confidences: dict[tuple[float, int], str] = {}


def confidence_change(old: float, new: float) -> str:
    """``old → new``, both rounded alike: three decimals (a reinforcement moves a
    confidence by 5% of what is left to 1, often less than 0.01), more if it takes more
    to show the move, or to keep a value short of a bound off it (0.9995 was shown as
    1, the cap, beside 0.999)."""
    for digits in range(3, 7):
        before, after = confidence(old, digits), confidence(new, digits)
        if (before != after or old == new) and _kept_off_bounds(old, before, new, after):
            return f"{before} → {after}"
    return f"{js_number(old)} → {js_number(new)}"


def _kept_off_bounds(old: float, before: str, new: float, after: str) -> bool:
    """Whether neither value is shown as 1 or 0 without being it."""
    return all((shown != "1" or value >= 1) and (shown != "0" or value <= 0)
               for value, shown in ((old, before), (new, after)))  # fmt: skip


def similar(results: Sequence[tuple[Candidate, float]]) -> list[str]:
    if not results:
        return ["No similar insights found."]
    lines = [f"Found {len(results)} similar insight(s):", ""]
    for candidate, score in results:
        lines += [
            f"  [{percent(score)}] [{candidate.type}] {candidate.claim}",
            f"    id: {candidate.id}",
        ]
    return lines


# How much of a text people are shown on one line, ellipsis included (`shortened`): a
# claim on a line of its own (`history`'s and `changelog`'s, the header and a create
# entry: a sentence stays whole), and each side of a change of a value (`claim: "…" →
# "…"`, as `chitin diff` and `update` say it). JSON keeps every text whole.
SHORT_CLAIM_LINE = 200
SHORT_TEXT = 80
_LEAD = 24  # characters of common text kept before the point where two texts part


def shortened(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis if longer."""
    folded = " ".join(text.split())
    return folded if len(folded) <= width else folded[: width - 1].rstrip() + "…"


def quoted_change(old: str, new: str) -> tuple[str, str]:
    """Two values quoted and shortened to SHORT_TEXT; two texts that part only past that
    width (an appended reasoning, a word fixed at the end) are each shown from a few
    words before they part."""
    a, b = " ".join(old.split()), " ".join(new.split())
    if shortened(a, SHORT_TEXT) != shortened(b, SHORT_TEXT) or a == b:
        return f'"{shortened(a, SHORT_TEXT)}"', f'"{shortened(b, SHORT_TEXT)}"'
    same = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(a))
    start = a.rfind(" ", 0, max(0, same - _LEAD)) + 1
    return _quoted_from(a, start), _quoted_from(b, start)


def _quoted_from(text: str, start: int) -> str:
    return f'"{"…" if start else ""}{shortened(text[start:], SHORT_TEXT)}"'


def history_line(entry: Entry) -> str:
    """One change as ``history`` shows it. Every part may be text chitin did not check
    (a 1.x history row carried by a migration, a hand commit), so control characters
    are shown as escapes, not sent to the terminal; the JSON keeps them as they are."""
    return visible(_history_line(entry))


def _history_line(entry: Entry) -> str:
    stamp = entry.changed_at.replace("T", " ").rstrip("Z")
    head = f"  {stamp}  [{entry.change_type}]"
    if entry.field == "*":
        text = entry.new if entry.new is not None else entry.old
        body = f' "{shortened(text, SHORT_CLAIM_LINE)}"' if text is not None else ""
    elif entry.change_type == "reinforce":  # as 1.4.5: numbers bare, values quoted
        old, new = _values(entry)
        body = f" {entry.field}: {old} → {new}"
    else:
        body = f" {_field_change(entry)}"
    suffix = _suffix(entry)
    if entry.uncommitted:  # as `git status` says of it
        return f"{head}{body}{suffix}  [not committed: edited in the working tree]"
    return f"{head}{body}{suffix}  [{entry.commit[:8]} {entry.author}]"


def _field_change(entry: Entry) -> str:
    if entry.field == "id":  # renamed by hand (git mv)
        return f"renamed from {entry.old} to {entry.new}"
    old, new = quoted_change(*_values(entry))
    return f"{entry.field}: {old} → {new}"


def _suffix(entry: Entry) -> str:
    """What the change says of itself: a reinforcement's source (up to 1,000 characters
    of evidence, shortened here as a claim is), a revert's subject."""
    said = [shortened(entry.source, SHORT_CLAIM_LINE)] if entry.source else []
    said += [entry.reverts.said()] if entry.reverts else []
    return "".join(f" ({text})" for text in said)


def changelog_line(entry: Entry) -> str:
    """One change as ``changelog`` shows it, escaped as ``history_line`` is."""
    return visible(_changelog_line(entry))


def _changelog_line(entry: Entry) -> str:
    stamp = entry.changed_at.replace("T", " ").rstrip("Z")
    if entry.field == "*":
        text = entry.new if entry.new is not None else entry.old
        body = f'"{shortened(text, SHORT_CLAIM_LINE)}"' if text is not None else ""
    elif entry.change_type == "reinforce":
        old, new = _values(entry)
        body = f"{old} → {new}"
    else:
        body = _field_change(entry)
    suffix = _suffix(entry)
    return f"  {stamp}  [{entry.change_type}] {entry.insight_id} {body}{suffix}"


def _values(entry: Entry) -> tuple[str, str]:
    """An entry's old and new value as text: a confidence rounded as reinforce's
    ``old → new`` rounds it (the JSON keeps the stored value)."""
    old, new = entry.old or "", entry.new or ""
    if entry.field == "confidence":
        try:
            shown = confidence_change(float(old), float(new))
        except ValueError:  # a hand edit's value that is not a number: as it is
            return old, new
        old, _, new = shown.partition(" → ")
    return old, new


# Unreadable files named after a command; the rest are counted, not to flood the
# agent's session start (chitin check lists them all).
MAX_PROBLEM_LINES = 3


def problem_lines(
    problems: Sequence[tuple[str, str]], limit: int | None = MAX_PROBLEM_LINES
) -> list[str]:
    """``warning:`` lines for the insight files (path, error) a command had to skip:
    the first ``limit`` of them (``None``: each), then how many more."""
    shown = problems if limit is None else problems[:limit]
    lines = [f"warning: skipped {path}: {error}" for path, error in shown]
    if len(problems) > len(shown):
        more = len(problems) - len(shown)
        lines.append(f"warning: … and {more} more unreadable file(s); run `chitin check`")
    return lines
