"""What more opposites would do to the judgement: the seven tuning sets judged with
the lexicon as it is, then with each file of extra pairs added ("a/b" pairs, any
number to a line, as scripts/antonyms_from_wordnet.py prints them or as
lexicon.OPPOSITES holds them). Fast: the vectors are made once and cached (as
bench/dedup/synonyms.py makes them), then ``judge()`` is called as the door calls it
(synonyms.py's ``verdicts``, which gives ``contribute``'s verdicts pair for pair).

    python scripts/antonyms_from_wordnet.py WN/data.adj WN/data.verb WN/data.adv \\
        WN/data.noun --counts WN/cntlist.rev | cut -f1 > /tmp/wordnet.txt
    python bench/dedup/opposites.py /tmp/wordnet.txt [more.txt …] [--changes]
    python bench/dedup/opposites.py --phrases --changes   # opposite-phrases.txt's effect

Printed, for each file: each set and the pooled figures against the lexicon as it is,
a paired bootstrap of the pooled difference, and with ``--changes`` the pairs whose
verdict changed. Final figures go through the real ``contribute`` (``run.py``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from leads import line, whole  # noqa: E402
from run import TUNING_SETS, bootstrap, load  # noqa: E402
from synonyms import changed, encoded, verdicts  # noqa: E402

SETS = TUNING_SETS


def read_pairs(path: Path) -> list[tuple[str, str]]:
    words = path.read_text(encoding="utf-8").split()
    return [(first, second) for first, _, second in (w.partition("/") for w in words) if second]


def use(extra: Sequence[tuple[str, str]], phrases: bool = True) -> None:
    """The stance rules read the lexicon's pairs and ``extra`` from now on, and the
    opposite phrases (chitin/assets/opposite-phrases.txt) unless ``phrases`` is False."""
    from chitin.retrieval import lexicon, stance

    stance.ANTONYMS = (*lexicon.ANTONYMS, *extra)
    read = stance.parse_phrases
    if not phrases:
        stance.parse_phrases = lambda text: []  # type: ignore[assignment]
    table = stance.build_lexicon()
    stance.parse_phrases = read  # type: ignore[assignment]
    stance._lexicon = lambda: table  # type: ignore[assignment]
    stance.stance.cache_clear()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("extra", nargs="*", type=Path, help="files of a/b pairs to add")
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/opposites/encoded.pkl"))
    parser.add_argument("--changes", action="store_true", help="list the pairs that changed")
    parser.add_argument(
        "--phrases", action="store_true", help="the lexicon without its phrases, then with them"
    )
    args = parser.parse_args(argv)
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    loaded = {name: load(HERE / name) for name in args.sets}
    sides = [s for pairs in loaded.values() for p in pairs for s in (p["a"], p["b"])]
    known = encoded([whole(s) for s in sides] + [s["claim"] for s in sides], args.cache)
    from chitin.retrieval import synonyms

    heads = synonyms.canonical()
    use((), phrases=not args.phrases)
    base = {name: verdicts(pairs, known, heads) for name, pairs in loaded.items()}
    everything = [p for pairs in loaded.values() for p in pairs]
    before = [v for name in loaded for v in base[name]]
    print(line("lexicon" + (" without phrases" if args.phrases else ""), everything, before))
    added: list[Path | None] = [None] if args.phrases else []
    for path in [*added, *args.extra]:
        extra = read_pairs(path) if path else []
        use(extra)
        print(f"== {path.name}: {len(extra)} pairs added" if path else "== with phrases")
        after = []
        for name, pairs in loaded.items():
            said = verdicts(pairs, known, heads)
            after += said
            print(f"{name}\n{line('now', pairs, said)}")
            if args.changes:
                changed(pairs, base[name], said)
        print(line("pooled", everything, after))
        what = path.name if path else "phrases"
        bootstrap(everything, before, after, f"{what} − lexicon, pooled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
