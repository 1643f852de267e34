"""Print candidate opposites for chitin/retrieval/lexicon.py from WordNet 3.x's database.

    python scripts/antonyms_from_wordnet.py WN/data.adj WN/data.verb WN/data.adv \\
        WN/data.noun --counts WN/cntlist.rev [--satellites] [--all]

WN is the folder of Debian's `wordnet-base` package (`apt-get download wordnet-base`,
then `dpkg -x`). WordNet is a lexical database of Princeton University under a
permissive licence ("WordNet 3.0 Copyright 2006 by Princeton University. All rights
reserved."; permission to use, copy, modify and distribute for any purpose without
fee, the notice kept). What is taken from it is facts (which words are antonyms, and
how often each sense was tagged in its sense-tagged corpus); this code is chitin's.

What is printed, one "a/b" pair a line, with the part of speech and the tag counts:

- every direct antonym pointer ("!") between two single words, and with
  `--satellites`, for adjectives, each word of a "similar to" satellite of one head
  paired with the other head's word (a satellite of "fast", "rapid", against "slow");
- kept only where both words are everyday words and the opposition is their common
  sense: each word is one piece of the model's vocabulary (a common word: the
  tokenizer's vocabulary holds the ~20,000 most frequent whole words of its corpus) or
  a negative prefix of the other ("un", "in", "im", "il", "ir", "dis", "non"), and its
  sense in the pair is its most frequent in its part of speech and holds at least
  SHARE of the word's tagged uses in every part of speech (`--counts`, WordNet's
  cntlist.rev, the sense-tagged corpus's counts): a sense never or once tagged, or
  not the word's first, is not what the word commonly says;
- and not where a word is a function word (stance.FILLER, NEGATORS: "same/other",
  "some/no"), a word lexicon.py's header leaves out for its common sense in an agent's
  insights (LEFT_OUT: "up/down", "good/bad", "new/old", "push/pull", "leave", …), a
  noun outside the lexicographer files of qualities, states, feelings and acts (kin,
  roles and things, "husband/wife", "employee/employer", "vowel/consonant", are slots
  that compatible claims fill differently), or one of KINDS, adjectives that name two
  kinds of a thing rather than two sides of a quality ("black/white", "male/female"),
  or whose words an agent's insights use in another sense ("net/gross", "well/ill");
- pairs the lexicon has already, in either order, are not printed (`--all` prints them).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from chitin.retrieval.lexicon import ANTONYMS, DRIFTED
from chitin.retrieval.stance import FILLER, NEGATORS

HERE = Path(__file__).resolve().parent.parent
VOCAB = HERE / "chitin" / "providers" / "data" / "all-MiniLM-L6-v2.vocab.txt"
PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")
# Of a word's tagged uses, in the pair's sense: 0.5 leaves out "present" (past/present:
# the verb "present" is tagged more); 0.25, 0.1 and 0 judge the tuning sets alike (0:
# 16 pairs more; docs/design.md §9e, ninth round).
SHARE = 0.25
MIN_TAGS = 2  # tagged uses of that sense: fewer is too rare to tell its common sense
# lexicon.py's header: words whose common sense in an agent's insights is not the
# opposition ("fix", "new/old", "good/bad", "up/down", "keep/remove", "day/night", …),
# and the forms it marks DRIFTED (they mean something else: "strongly", "lately").
_LEFT_OUT = """fix fixed new old good bad left up down remove day night max min prompt release
    variable credit support require default custom paper push pull send receive import
    export load unload leave cover help"""
LEFT_OUT = frozenset(_LEFT_OUT.split()) | DRIFTED
# Nouns of these lexicographer files (lexnames(5)) name qualities, states, feelings and
# acts, which a claim takes a side on: act, attribute, cognition, event, feeling,
# phenomenon, process, state.
NOUN_FILES = frozenset({"04", "07", "09", "11", "12", "19", "22", "26"})
# Adjectives that name two kinds of a thing (colours, sexes, places, parts of the body
# or of language, substances), values that compatible claims put in one slot.
_KINDS = """black/white male/female northern/southern foreign/domestic physical/mental
    organic/inorganic metallic/nonmetallic linguistic/nonlinguistic anterior/posterior
    spoken/written"""
KINDS = frozenset(tuple(pair.split("/")) for pair in _KINDS.split())
# Pairs whose words an agent's insights use in another sense, read one by one: "net"
# (a network, a safety net) and "gross"; "due" ("the due date"); "spread" (spread
# out, not the opposite of gather); "well" ("as well"); "parallel" (serial/parallel).
_OTHER_SENSE = "net/gross due/undue spread/gather well/ill parallel/oblique"
KINDS |= frozenset(tuple(pair.split("/")) for pair in _OTHER_SENSE.split())
# Sense-key numbers of the synset types (wndb(5)): n, v, a, r, s.
SS_NUMBER = {"n": "1", "v": "2", "a": "3", "r": "4", "s": "5"}


class Word(NamedTuple):
    lemma: str
    lex_id: str


class Synset(NamedTuple):
    pos: str  # n, v, a, s, r
    lex_file: str
    words: tuple[Word, ...]
    antonyms: tuple[tuple[int, str, int], ...]  # (source word, target synset key, word)
    similar: tuple[str, ...]  # "&" targets: a satellite's head, or a head's satellites


def parse(path: Path) -> Iterator[tuple[str, Synset]]:
    """The synsets of one data file, keyed "pos:offset" ("a" for both a and s)."""
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line or line.startswith(" "):
            continue  # the licence's lines
        fields = line.split(" | ")[0].split()
        offset, lex_file, pos = fields[0], fields[1], fields[2]
        count = int(fields[3], 16)
        words = tuple(Word(_lemma(fields[4 + 2 * i]), fields[5 + 2 * i]) for i in range(count))
        at = 4 + 2 * count
        pointers = [fields[at + 1 + 4 * i : at + 5 + 4 * i] for i in range(int(fields[at]))]
        antonyms = tuple(
            (int(st[:2], 16), f"{_kind(p)}:{target}", int(st[2:], 16))
            for symbol, target, p, st in pointers
            if symbol == "!"
        )
        similar = tuple(f"{_kind(p)}:{t}" for symbol, t, p, _ in pointers if symbol == "&")
        yield f"{_kind(pos)}:{offset}", Synset(pos, lex_file, words, antonyms, similar)


def _lemma(word: str) -> str:
    """An adjective's syntactic marker off ("(p)", "(a)", "(ip)"), lower case."""
    return word.split("(")[0].lower()


def _kind(pos: str) -> str:
    return "a" if pos == "s" else pos


def sense_key(synsets: dict[str, Synset], synset: Synset, word: Word) -> str:
    """The word's sense key (wndb(5), senseidx(5)): a satellite's names its head."""
    head = ""
    if synset.pos == "s":
        first = synsets[synset.similar[0]].words[0]
        head = f"{first.lemma}:{int(first.lex_id, 16):02d}"
    lex_id = int(word.lex_id, 16)
    return f"{word.lemma}%{SS_NUMBER[synset.pos]}:{synset.lex_file}:{lex_id:02d}:{head or ':'}"


class Counts(NamedTuple):
    sense: dict[str, tuple[int, int]]  # sense key: (sense number, tagged uses)
    total: dict[str, int]  # lemma: tagged uses in every sense and part of speech


def read_counts(path: Path | None) -> Counts | None:
    if path is None:
        return None
    sense: dict[str, tuple[int, int]] = {}
    total: dict[str, int] = defaultdict(int)
    for line in path.read_text(encoding="latin-1").splitlines():
        key, number, tags = line.split()
        sense[key] = (int(number), int(tags))
        total[key.split("%")[0]] += int(tags)
    return Counts(sense, dict(total))


def common(counts: Counts | None, key: str, share: float = SHARE) -> bool:
    """Whether the sense is the word's first in its part of speech and at least SHARE
    of its tagged uses (without counts: every sense passes)."""
    if counts is None:
        return True
    number, tags = counts.sense.get(key, (0, 0))
    lemma = key.split("%")[0]
    return number == 1 and tags >= MIN_TAGS and tags >= share * counts.total.get(lemma, 0)


def sound(pair: Candidate) -> bool:
    """Not a function word, a word left out, a noun of a thing, or two kinds."""
    if {pair.first, pair.second} & (FILLER | NEGATORS | LEFT_OUT):
        return False
    lex_files = {key.split("%")[1].split(":")[1] for key in pair.keys}
    if pair.pos == "n" and not lex_files <= NOUN_FILES:
        return False
    return (pair.first, pair.second) not in KINDS and (pair.second, pair.first) not in KINDS


def everyday(first: str, second: str, vocab: frozenset[str]) -> bool:
    """Both single words of the vocabulary, or one a negative prefix of the other."""
    if not (first.isalpha() and second.isalpha()):
        return False
    if first in vocab and second in vocab:
        return True
    return any(
        (base in vocab and other == prefix + base)
        for base, other in ((first, second), (second, first))
        for prefix in PREFIXES
    )


class Candidate(NamedTuple):
    first: str
    second: str
    pos: str
    keys: tuple[str, str]


def candidates(synsets: dict[str, Synset], satellites: bool) -> Iterator[Candidate]:
    for synset in synsets.values():
        for source, target, word in synset.antonyms:
            other = synsets.get(target)
            if other is None or source == 0:
                continue
            mine, theirs = synset.words[source - 1], other.words[word - 1]
            yield Candidate(
                mine.lemma,
                theirs.lemma,
                synset.pos,
                (sense_key(synsets, synset, mine), sense_key(synsets, other, theirs)),
            )
            if satellites and synset.pos == "a":
                yield from _satellites(synsets, synset, theirs, other)


def _satellites(
    synsets: dict[str, Synset], head: Synset, opposite: Word, other: Synset
) -> Iterator[Candidate]:
    """Each word of a satellite of ``head`` against the other head's word."""
    for key in head.similar:
        satellite = synsets.get(key)
        if satellite is None or satellite.pos != "s":
            continue
        for word in satellite.words:
            yield Candidate(
                word.lemma,
                opposite.lemma,
                "s",
                (sense_key(synsets, satellite, word), sense_key(synsets, other, opposite)),
            )


def known_pairs() -> frozenset[tuple[str, str]]:
    return frozenset(ANTONYMS) | frozenset((b, a) for a, b in ANTONYMS)


def kept(
    found: Iterable[Candidate],
    vocab: frozenset[str],
    counts: Counts | None,
    skip: frozenset[tuple[str, str]],
    share: float = SHARE,
) -> list[Candidate]:
    seen: set[tuple[str, str]] = set()
    result = []
    for pair in found:
        ordered = (min(pair.first, pair.second), max(pair.first, pair.second))
        if ordered in seen or (pair.first, pair.second) in skip or pair.first == pair.second:
            continue
        if not sound(pair):
            continue
        if everyday(pair.first, pair.second, vocab) and all(
            common(counts, k, share) for k in pair.keys
        ):
            seen.add(ordered)
            result.append(pair)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("data", nargs="+", type=Path, help="WordNet data.adj, data.verb, …")
    parser.add_argument("--counts", type=Path, help="WordNet's cntlist.rev (tag counts)")
    parser.add_argument("--vocab", type=Path, default=VOCAB)
    parser.add_argument("--satellites", action="store_true", help="adjective satellites too")
    parser.add_argument("--all", action="store_true", help="pairs the lexicon has too")
    parser.add_argument("--share", type=float, default=SHARE, help="of a word's tagged uses")
    args = parser.parse_args(argv)
    for path in [*args.data, *([args.counts] if args.counts else []), args.vocab]:
        if not path.is_file():
            print(f"error: no such file: {path}", file=sys.stderr)
            return 1
    synsets = {key: s for path in args.data for key, s in parse(path)}
    vocab = frozenset(args.vocab.read_text(encoding="utf-8").split())
    counts = read_counts(args.counts)
    skip = frozenset() if args.all else known_pairs()
    for pair in kept(candidates(synsets, args.satellites), vocab, counts, skip, args.share):
        tags = [counts.sense.get(k, (0, 0))[1] for k in pair.keys] if counts else []
        print(f"{pair.first}/{pair.second}\t{pair.pos}\t{' '.join(map(str, tags))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
