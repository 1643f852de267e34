"""Score `chitin reflect`'s digests on a labelled set (issue 26): per kind of moment,
how many of the labelled moments the digest quotes as their kind (recall) or under any
kind (quoted: the issue's measure, a moment shown to the reflecting agent), and how many of the
moments it shows are labelled (precision); the share of distractors shown; secrets
shown; the largest digest.

    python bench/reflect/score.py [--scenarios tuning|heldout] [--max-characters 4000]

Each session is digested as `chitin reflect` does (the reader, the rules, the text
layout); a moment counts as found when a shown moment of its kind quotes its text.
The headline is on the sessions the real hosts wrote; sessions converted from Claude
Code's into OpenClaw's format (tuning set only) are scored apart, as an extra.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sets import CONVERTED, REAL, ScenarioSet, add_argument, load  # noqa: E402

from chitin.model.digest import DEFAULT_CHARACTERS, make_digest  # noqa: E402
from chitin.model.moments import KINDS  # noqa: E402
from chitin.model.reflection import Marker  # noqa: E402
from chitin.render.digest import digest_lines  # noqa: E402
from chitin.store.transcripts import read_transcript  # noqa: E402


class Tally:
    def __init__(self) -> None:
        self.wanted: Counter[str] = Counter()
        self.found: Counter[str] = Counter()
        self.quoted: Counter[str] = Counter()  # under any kind: the "quoted"
        self.shown: Counter[str] = Counter()
        self.right: Counter[str] = Counter()
        self.sessions = self.distractors = self.distractors_shown = self.secrets = 0
        self.largest = 0
        self.per_folder: Counter[str] = Counter()


def score_session(tally: Tally, path: Path, item: dict[str, Any], chosen: ScenarioSet,
                  characters: int) -> None:  # fmt: skip
    tally.sessions += 1
    tally.per_folder[path.parent.name] += 1
    read = read_transcript(path)
    digest = make_digest(read.turns, {}, f"session {path.stem}", characters)
    marker = Marker(path.stem, None, "end", None, str(path))
    text = "\n".join(digest_lines(marker, digest, read.warning, characters))
    tally.largest = max(tally.largest, len(text))
    tally.secrets += sum(secret in text for secret in chosen.secrets)
    # A quote is on one line (its runs of white space made one space): so are the pieces.
    labels = [{**label, "text": _flat(label["text"])} for label in item["labels"]]
    for moment in digest.moments:
        tally.shown[moment.kind] += 1
        tally.right[moment.kind] += any(
            label["kind"] == moment.kind and label["text"] in moment.quote for label in labels
        )
    for label in labels:
        tally.wanted[label["kind"]] += 1
        tally.found[label["kind"]] += any(
            m.kind == label["kind"] and label["text"] in m.quote for m in digest.moments
        )
        tally.quoted[label["kind"]] += any(label["text"] in m.quote for m in digest.moments)
    for piece in item["distractors"]:
        tally.distractors += 1
        tally.distractors_shown += any(_flat(piece) in m.quote for m in digest.moments)


def _flat(text: str) -> str:
    return " ".join(text.split())


def score(chosen: ScenarioSet, folders: list[str], characters: int) -> dict[str, Any]:
    """The figures over the sessions of ``folders`` (those that exist)."""
    tally = Tally()
    by_name = {item["name"]: item for item in chosen.scenarios}
    for folder in folders:
        for path in sorted((chosen.folder / folder).glob("*.jsonl")):
            score_session(tally, path, by_name[path.stem], chosen, characters)
    return _figures(tally, characters)


def _figures(tally: Tally, characters: int) -> dict[str, Any]:
    kinds = {
        kind: {
            "labelled": tally.wanted[kind],
            "recall": _ratio(tally.found[kind], tally.wanted[kind]),
            "quoted": _ratio(tally.quoted[kind], tally.wanted[kind]),
            "shown": tally.shown[kind],
            "precision": _ratio(tally.right[kind], tally.shown[kind]),
        }
        for kind in KINDS
    }
    return {
        "sessions": tally.sessions,
        "perFolder": dict(tally.per_folder),
        "kinds": kinds,
        "recall": _ratio(sum(tally.found.values()), sum(tally.wanted.values())),
        "quoted": _ratio(sum(tally.quoted.values()), sum(tally.wanted.values())),
        "precision": _ratio(sum(tally.right.values()), sum(tally.shown.values())),
        "distractors": tally.distractors,
        "distractorsShown": tally.distractors_shown,
        "secretsShown": tally.secrets,
        "largestDigest": tally.largest,
        "maxCharacters": characters,
    }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def report(title: str, result: dict[str, Any], secrets: int) -> None:
    folders = ", ".join(f"{n} {f}" for f, n in sorted(result["perFolder"].items()))
    print(f"{title}: {result['sessions']} sessions ({folders or 'none'})")
    if not result["sessions"]:
        return
    print(f"  {'kind':<12}{'labelled':>9}{'recall':>8}{'quoted':>8}{'shown':>7}{'precision':>10}")
    for kind, row in result["kinds"].items():
        print(f"  {kind:<12}{row['labelled']:>9}{_pct(row['recall']):>8}{_pct(row['quoted']):>8}"
              f"{row['shown']:>7}{_pct(row['precision']):>10}")  # fmt: skip
    print(f"  {'all':<12}{'':>9}{_pct(result['recall']):>8}{_pct(result['quoted']):>8}{'':>7}"
          f"{_pct(result['precision']):>10}")  # fmt: skip
    shown = result["distractorsShown"]
    print(f"  distractors shown: {shown} of {result['distractors']} "
          f"({_pct(_ratio(shown, result['distractors']))})")  # fmt: skip
    print(f"  secrets shown: {result['secretsShown']} (of {secrets} in the set, in any digest)")
    print(f"  largest digest: {result['largestDigest']} characters "
          f"(limit {result['maxCharacters']})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_argument(parser)
    parser.add_argument("--max-characters", type=int, default=DEFAULT_CHARACTERS)
    options = parser.parse_args()
    chosen = load(options.scenarios)
    characters = options.max_characters
    print(f"set: {chosen.name} ({len(chosen.scenarios)} scenarios)")
    for folder in REAL:
        report(f"{folder} ({REAL[folder]})", score(chosen, [folder], characters),
               len(chosen.secrets))  # fmt: skip
    report("real sessions, all (the headline)", score(chosen, list(REAL), characters),
           len(chosen.secrets))  # fmt: skip
    for folder, how in CONVERTED.items():
        result = score(chosen, [folder], characters)
        if result["sessions"]:
            report(f"{folder} ({how}; not written by OpenClaw, an extra)", result,
                   len(chosen.secrets))  # fmt: skip


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


if __name__ == "__main__":
    main()
