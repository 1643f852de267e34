"""Score `chitin reflect`'s digests on the labelled set (issue 26): per kind of moment,
how many of the labelled moments the digest quotes (recall) and how many of the
moments it shows are labelled (precision); the share of distractors shown; secrets
shown; the largest digest.

    python bench/reflect/score.py [--max-characters 4000]

Each session is digested as `chitin reflect` does (the reader, the rules, the text
layout); a moment counts as found when a shown moment of its kind quotes its text.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from chitin.model.digest import DEFAULT_CHARACTERS, make_digest
from chitin.model.moments import KINDS
from chitin.model.reflection import Marker
from chitin.render.digest import digest_lines
from chitin.store.transcripts import read_transcript

HERE = Path(__file__).resolve().parent
SECRETS = ("ghp_Zq8Lr2Xv5Nw1Ty7Ub4Mc9Kd3Pe6Hf0Ja2Sg", "AKIAQWERTYUIOPASDFGH")
# openclaw: converted from Claude Code's; openclaw-real: played by the real OpenClaw.
HOSTS = ("claude-code", "openclaw", "openclaw-real")


def score(characters: int) -> dict[str, object]:
    labels = json.loads((HERE / "labels.json").read_text())
    found, shown, right = Counter(), Counter(), Counter()
    wanted: Counter[str] = Counter()
    distractors = distractors_shown = secrets = sessions = 0
    largest = 0
    for host in HOSTS:
        for path in sorted((HERE / "sessions" / host).glob("*.jsonl")):
            sessions += 1
            label = labels[path.stem]
            read = read_transcript(path)
            digest = make_digest(read.turns, {}, f"session {path.stem}", characters)
            marker = Marker(path.stem, None, "end", None, str(path))
            text = "\n".join(digest_lines(marker, digest, read.warning, characters))
            largest = max(largest, len(text))
            secrets += sum(secret in text for secret in SECRETS)
            for moment in digest.moments:
                shown[moment.kind] += 1
                match = any(
                    item["kind"] == moment.kind and item["text"] in moment.quote
                    for item in label["labels"]
                )
                right[moment.kind] += match
            for item in label["labels"]:
                wanted[item["kind"]] += 1
                found[item["kind"]] += any(
                    m.kind == item["kind"] and item["text"] in m.quote for m in digest.moments
                )
            for piece in label["distractors"]:
                distractors += 1
                distractors_shown += any(piece in m.quote for m in digest.moments)
    kinds = {
        kind: {
            "labelled": wanted[kind],
            "recall": round(found[kind] / wanted[kind], 3) if wanted[kind] else None,
            "shown": shown[kind],
            "precision": round(right[kind] / shown[kind], 3) if shown[kind] else None,
        }
        for kind in KINDS
    }
    total = sum(wanted.values())
    return {
        "sessions": sessions,
        "kinds": kinds,
        "recall": round(sum(found.values()) / total, 3),
        "precision": round(sum(right.values()) / max(1, sum(shown.values())), 3),
        "distractors": distractors,
        "distractorsShown": round(distractors_shown / max(1, distractors), 3),
        "secretsShown": secrets,
        "largestDigest": largest,
        "maxCharacters": characters,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-characters", type=int, default=DEFAULT_CHARACTERS)
    result = score(parser.parse_args().max_characters)
    print(f"{result['sessions']} sessions ({', '.join(HOSTS)})")
    print(f"{'kind':<12}{'labelled':>9}{'recall':>8}{'shown':>7}{'precision':>10}")
    for kind, row in result["kinds"].items():  # type: ignore[attr-defined]
        print(f"{kind:<12}{row['labelled']:>9}{_pct(row['recall']):>8}{row['shown']:>7}"
              f"{_pct(row['precision']):>10}")  # fmt: skip
    print(f"{'all':<12}{'':>9}{_pct(result['recall']):>8}{'':>7}{_pct(result['precision']):>10}")
    print(f"distractors shown: {_pct(result['distractorsShown'])} of {result['distractors']}")
    print(f"secrets shown: {result['secretsShown']}")
    print(f"largest digest: {result['largestDigest']} characters "
          f"(limit {result['maxCharacters']})")  # fmt: skip


def _pct(value: object) -> str:
    return "-" if value is None else f"{float(value) * 100:.0f}%"  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
