"""Round 6 of issue 24's retrieval quality (docs/design.md §6b): a table of general
English synonyms (chitin/assets/synonyms.txt) on retrieval's text side, measured through
the real retrieval code with its text search substituted (bench/eval/expansion.py).

    python bench/eval/synonyms.py --dataset bench/eval/agent-store.yaml
    python bench/eval/synonyms.py --dataset bench/eval/heldout.yaml --only "or 1.0"
    python bench/eval/synonyms.py --text          # the same by text alone (no model)
    python bench/eval/synonyms.py --load          # what loading the table costs

The store is built and embedded once; the default (no synonyms) and each setting are
then run on it, and each setting is compared with the default by run.py's paired
bootstrap (nDCG@10 per kind, then MRR and recall@10; ``*``: the interval excludes 0).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from chitin.core import Chitin
from chitin.core import Query as Asked
from chitin.providers import local

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as ev  # run.py: this folder's module, not a package
from expansion import OFF, Expansion, substituted

PYCACHE = Path(__file__).resolve().parent.parent / "stores" / "pycache"  # bench/run.py's


def absent(_word: str, holders: int) -> bool:
    """A word no insight of the store holds."""
    return holders == 0


def rare(_word: str, holders: int) -> bool:
    """A word at most two insights of the store hold."""
    return holders <= 2


VOCABULARY = b"\n" + local.VOCABULARY.read_bytes()


def split(word: str, _holders: int) -> bool:
    """A word the model's vocabulary does not hold whole (WordPiece splits it): one the
    model knows less well."""
    return b"\n" + word.encode() + b"\n" not in VOCABULARY


SETTINGS: dict[str, Expansion] = {
    "or 1.0": Expansion("or", 1.0),
    "or 0.5": Expansion("or", 0.5),
    "apart 0.3": Expansion("apart", 0.3),
    "apart 0.5": Expansion("apart", 0.5),
    "apart 0.7": Expansion("apart", 0.7),
    "or 1.0, absent words only": Expansion("or", 1.0, absent),
    "apart 1.0, absent words only": Expansion("apart", 1.0, absent),
    "apart 0.5, absent words only": Expansion("apart", 0.5, absent),
    "or 0.5, rare words only": Expansion("or", 0.5, rare),
    "or 1.0, rare words only": Expansion("or", 1.0, rare),
    "apart 0.5, rare words only": Expansion("apart", 0.5, rare),
    "or 0.5, words held by at most 5": Expansion("or", 0.5, lambda _w, held: held <= 5),
    "or 0.3, rare words only": Expansion("or", 0.3, rare),
    "or 0.5, absent words only": Expansion("or", 0.5, absent),
    "apart 0.5, words the model splits": Expansion("apart", 0.5, split),
    "or 0.5, words the model splits": Expansion("or", 0.5, split),
}


def rankings(root: Path, queries: list[ev.Query], expansion: Expansion) -> list[list[str]]:
    chitin = Chitin(root, now=ev.NOW, shape=ev.DEFAULT_SHAPE, fusion="blend")
    try:
        with substituted(expansion):
            asked = [Asked(q.text, max_results=ev.CUTOFF) for q in queries]
            return [[r.insight.id for r in chitin.retrieve(a, record=False).ranked] for a in asked]
    finally:
        chitin.close()


def measure(dataset: Path, names: list[str], text: bool) -> None:
    insights, queries = ev.load(dataset)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ev.build_store(insights, root)
        provider = "none" if text else "local"
        (root / "chitin.yaml").write_text(yaml.safe_dump({"embedding": {"provider": provider}}))
        if not text:
            ev.rankings(root, queries[:1], ev.DEFAULT_SHAPE)  # embeds the store
        base = rankings(root, queries, OFF)
        figures = ev.summary(queries, base)
        kinds = [g for g in ev.GROUPS if g in figures]
        print(
            f"{dataset.name} ({'text' if text else 'hybrid'}): default nDCG@10 "
            + ", ".join(f"{g} {figures[g].ndcg:.3f}" for g in kinds)
        )
        print("nDCG@10 B - A, A = default, [95% interval], * outside noise; then MRR, R@10 (all)")
        for name in names:
            result = ev.compare(queries, base, rankings(root, queries, SETTINGS[name]))
            cells = [
                f"{g} {i.b:.3f} {i.diff:+.3f} [{i.low:+.3f}, {i.high:+.3f}]{'*' * i.outside_noise}"
                for g, i in ((g, result[g]["ndcg"]) for g in kinds)
            ]
            rr, recall = result["all"]["rr"], result["all"]["recall"]
            extra = (
                f" | MRR {rr.diff:+.3f} [{rr.low:+.3f}, {rr.high:+.3f}], R@10 {recall.diff:+.3f}"
            )
            print(f"{name:30}" + " | ".join(cells) + extra, flush=True)


# What a retrieve imports anyway (chitin.search.engine's other imports) comes first; the
# time is then the synonym modules' import and the table's first load.
LOAD = """
import time
import chitin.index.cache, chitin.index.fulltext, chitin.retrieval.selection
import chitin.retrieval.scoring, chitin.search.semantic
started = time.perf_counter()
from chitin.retrieval import synonym_lookup, synonyms
imported = time.perf_counter()
synonym_lookup.lexicon()
for word in ("invoices", "hurried", "zzqx", "colleague"):
    synonym_lookup.head_of(word)
looked_up = time.perf_counter()
synonyms.canonical(); synonyms.phrases()
tables = time.perf_counter()
synonyms.groups()
done = time.perf_counter()
print(imported - started, looked_up - imported, tables - looked_up, done - tables)
"""
PARTS = (
    "import",
    "what retrieval uses: the files read and 4 words looked up (synonym_lookup)",
    "the whole tables (synonyms.canonical, phrases)",
    "synonyms.groups",
)


def load_cost(runs: int = 21) -> None:
    """The table's import and first load, each in a fresh process (median of ``runs``),
    after what a retrieve imports anyway (chitin.search.engine's other imports)."""
    # From cached bytecode, as an installed chitin runs (bench/run.py's child_env).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    command = [sys.executable, "-c", LOAD]
    subprocess.run(command, capture_output=True, check=True, env=env)  # writes the bytecode
    times = [
        [
            float(t)
            for t in subprocess.run(
                command, capture_output=True, text=True, check=True, env=env
            ).stdout.split()
        ]
        for _ in range(runs)
    ]
    medians = [1000 * statistics.median(t[n] for t in times) for n in range(len(PARTS))]
    print(f"synonym lexicon, median of {runs} fresh processes:")
    for name, ms in zip(PARTS, medians, strict=True):
        print(f"  {ms:6.2f} ms  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=ev.AGENT_STORE)
    parser.add_argument("--only", nargs="+", choices=sorted(SETTINGS), help="these settings")
    parser.add_argument("--text", action="store_true", help="by text alone (no model)")
    parser.add_argument("--load", action="store_true", help="time the table's load instead")
    args = parser.parse_args()
    if args.load:
        load_cost()
    else:
        measure(args.dataset, args.only or list(SETTINGS), args.text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
