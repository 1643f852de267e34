"""Check a labelled set of insight pairs for duplicate and conflict judgement
(bench/dedup/heldout-pairs.yaml by default) and print its counts per label and kind.

    python bench/dedup/pairs_check.py                 # the held-out set
    python bench/dedup/pairs_check.py other-pairs.yaml

Each pair is a stored insight ``a`` and a new one ``b``, labelled with what `chitin
contribute` should report about ``b``: duplicate, conflict, compatible or unrelated, and a
kind from the label's small vocabulary (``KINDS``). The check refuses, with one line per
problem and exit status 1, a pair with a missing or unknown key, label or kind, a side
that is not a valid insight sketch (type, claim, and for triggers a condition; optional
``reasoning`` and ``context`` text, as real insights carry), or a
kind whose own rule it breaks (``_kind_problems``). It only reads the set: no chitin code
judges the pairs here, so the set stays blind.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from chitin.model.insight import TYPES

HERE = Path(__file__).resolve().parent
PAIRS = HERE / "heldout-pairs.yaml"
KINDS: dict[str, tuple[str, ...]] = {
    "duplicate": ("exact-normalised", "paraphrase", "reworded-trigger"),
    "conflict": ("negation", "antonym", "do-vs-avoid", "preference"),
    "compatible": ("same-topic", "look-alike"),
    "unrelated": ("different-topic", "shared-word"),
}
PAIR_KEYS = ("a", "b", "label", "kind")
SIDE_KEYS = ("type", "claim", "condition", "avoid", "tags", "reasoning", "context")
TRIGGER_ONLY = ("condition", "avoid")


class Pair(NamedTuple):
    a: Mapping[str, Any]
    b: Mapping[str, Any]
    label: str
    kind: str


class PairsError(ValueError):
    """The set is malformed: every problem found, one per line."""


def load(path: Path = PAIRS) -> list[Pair]:
    """The set's pairs, checked: a PairsError naming every problem if it breaks a rule."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PairsError(f"cannot read it: {error.strerror or error}") from error
    except yaml.YAMLError as error:
        raise PairsError(f"not valid YAML: {' '.join(str(error).split())}") from error
    items = data.get("pairs") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise PairsError("expected a top-level 'pairs:' list of pairs")
    problems = [p for n, item in enumerate(items, 1) for p in _pair_problems(n, item)]
    if problems:
        raise PairsError("the set breaks its rules:\n  " + "\n  ".join(problems))
    return [Pair(i["a"], i["b"], i["label"], i["kind"]) for i in items]


def _pair_problems(n: int, item: Any) -> list[str]:
    where = f"pair {n}"
    if not isinstance(item, dict):
        return [f"{where}: expected a mapping with keys {', '.join(PAIR_KEYS)}"]
    problems = [f"{where}: missing {key!r}" for key in PAIR_KEYS if key not in item]
    problems += [
        f"{where}: unknown key {key!r} (allowed: {', '.join(PAIR_KEYS)})"
        for key in item
        if key not in PAIR_KEYS
    ]
    label, kind = item.get("label"), item.get("kind")
    if "label" in item and label not in KINDS:
        problems.append(f"{where}: unknown label {label!r} (allowed: {', '.join(KINDS)})")
    elif "kind" in item and label in KINDS and kind not in KINDS[label]:
        allowed = ", ".join(KINDS[label])
        problems.append(f"{where}: unknown kind {kind!r} for {label} (allowed: {allowed})")
    for side in ("a", "b"):
        if side in item:
            problems += _side_problems(f"{where}.{side}", item[side])
    if not problems:
        problems += [f"{where}: {p}" for p in _kind_problems(item["a"], item["b"], str(kind))]
    return problems


def _side_problems(where: str, side: Any) -> list[str]:
    if not isinstance(side, dict):
        return [f"{where}: expected a mapping with keys {', '.join(SIDE_KEYS)}"]
    problems = [
        f"{where}: unknown field {key!r} (allowed: {', '.join(SIDE_KEYS)})"
        for key in side
        if key not in SIDE_KEYS
    ]
    kind = side.get("type")
    if kind not in TYPES:
        problems.append(f"{where}: type {kind!r} is not one of {', '.join(TYPES)}")
    if not _text(side.get("claim")):
        problems.append(f"{where}: 'claim' must be non-empty text")
    if kind == "trigger" and not _text(side.get("condition")):
        problems.append(f"{where}: a trigger needs a non-empty 'condition'")
    if kind != "trigger":
        only = [key for key in TRIGGER_ONLY if key in side]
        problems += [f"{where}: {key!r} is for triggers only" for key in only]
    problems += [
        f"{where}: {key!r} must be non-empty text"
        for key in ("reasoning", "context")
        if key in side and not _text(side[key])
    ]
    if "avoid" in side and not isinstance(side["avoid"], bool):
        problems.append(f"{where}: 'avoid' must be true or false")
    tags = side.get("tags", [])
    if not isinstance(tags, list) or not all(_text(t) for t in tags):
        problems.append(f"{where}: 'tags' must be a list of words")
    return problems


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _kind_problems(a: Mapping[str, Any], b: Mapping[str, Any], kind: str) -> list[str]:
    """A kind's own rule: a trigger kind pairs two triggers; do-vs-avoid differs only in
    ``avoid`` (the condition and response are the same words); a preference conflict
    is between two relational insights; exact-normalised sides differ in their text."""
    both = {a["type"], b["type"]}
    if kind in ("reworded-trigger", "do-vs-avoid") and both != {"trigger"}:
        return [f"{kind} pairs two triggers, not {a['type']} and {b['type']}"]
    if kind == "do-vs-avoid":
        same = all(a.get(k) == b.get(k) for k in ("condition", "claim"))
        if not same or bool(a.get("avoid")) == bool(b.get("avoid")):
            return ["do-vs-avoid needs the same condition and claim, and one side avoid: true"]
    if kind == "preference" and both != {"relational"}:
        return [f"a preference conflict pairs two relational insights, not {', '.join(both)}"]
    if kind == "exact-normalised" and a == b:
        return ["exact-normalised sides are identical; they should differ in case or punctuation"]
    return []


def counts(pairs: Sequence[Pair]) -> str:
    """A table of pairs per label and kind, with totals."""
    per_kind = Counter((p.label, p.kind) for p in pairs)
    lines = [f"{len(pairs)} pairs"]
    for label, kinds in KINDS.items():
        total = sum(per_kind[label, k] for k in kinds)
        lines.append(f"  {label:12}{total:4}")
        lines += [f"    {kind:18}{per_kind[label, kind]:4}" for kind in kinds]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=PAIRS, help="the set (YAML)")
    args = parser.parse_args(argv)
    try:
        pairs = load(args.path)
    except PairsError as error:
        print(f"Error: {args.path}: {error}", file=sys.stderr)
        return 1
    print(counts(pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
