"""A general English synonym lexicon: groups of words that say the same thing in an
agent's notes ("fix", "repair", "mend"; "prod", "production"; "colour", "color"), read
from chitin/assets/synonyms.txt. Every word of a group, and each inflected form of it
("repaired", "quicker", "quickly", found by ``stance.inflections``), reads as the group's
head, its first word, so that two claims worded apart can be compared word by word."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from chitin.resources import asset_path
from chitin.retrieval.stance import inflections

SYNONYMS = "synonyms.txt"
Groups = tuple[tuple[str, ...], ...]
_ENTRY = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")
LONGEST_PHRASE = 4  # words; tests/test_synonyms.py holds the asset to it

# Forms the suffix rule makes of a group's word that are other words: "stat" is not
# "stated", "ref" not "refer", "real" not "really" (an intensifier).
_DRIFTED_WORDS = """stated states refer apply temper staging feed cared cares carer wines pales
    paler palest summer idly odds goods news longing longed waiter namely meaner
    meanest meanly stunning earnest fitter fittest fitting suites boots bugger ruler
    firmly firmer firmest kidding gps dishes fasting fasted linker cones really
    actually kindly presently finely rings ringer spotty marker shipper tipper"""
DRIFTED = frozenset(_DRIFTED_WORDS.split())

# Past forms no suffix rule reaches, to the group word they belong to.
IRREGULAR = {
    "began": "begin",
    "begun": "begin",
    "chose": "choose",
    "chosen": "choose",
    "bought": "buy",
    "sold": "sell",
    "paid": "pay",
    "spent": "spend",
    "lent": "lend",
    "sent": "send",
    "found": "find",
    "thought": "think",
    "understood": "understand",
    "wrote": "write",
    "written": "write",
    "built": "build",
    "hid": "hide",
    "shown": "show",
    "fell": "fall",
    "fallen": "fall",
    "risen": "rise",
    "grew": "grow",
    "grown": "grow",
    "sought": "seek",
    "taught": "teach",
    "froze": "freeze",
    "frozen": "freeze",
    "burnt": "burn",
    "won": "win",
    "beaten": "beat",
    "slept": "sleep",
    "woke": "wake",
    "woken": "wake",
    "ate": "eat",
    "eaten": "eat",
    "meant": "mean",
    "foresaw": "foresee",
    "foreseen": "foresee",
    "undid": "undo",
    "undone": "undo",
    "outdid": "outdo",
    "outdone": "outdo",
    "forbade": "forbid",
    "forbidden": "forbid",
    "forgave": "forgive",
    "forgiven": "forgive",
    "told": "tell",
    "said": "say",
    "spoke": "speak",
    "spoken": "speak",
    "wore": "wear",
    "worn": "wear",
    "fled": "flee",
    "fought": "fight",
    "overcame": "overcome",
}


def parse(text: str) -> Groups:
    """The groups of the asset's text: one a line, comma-separated; "#" starts a
    comment. An entry that is not lower-case words is an error, named with its line."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        body = line.partition("#")[0].strip()
        if not body:
            continue
        group = tuple(" ".join(entry.split()) for entry in body.split(","))
        bad = [entry for entry in group if not _ENTRY.fullmatch(entry)]
        if bad or len(group) < 2:
            raise ValueError(f"line {number} of {SYNONYMS}: not a group of words: {body[:60]!r}")
        found.append(group)
    return tuple(found)


@functools.cache
def groups() -> Groups:
    return parse(asset_path(SYNONYMS).read_text(encoding="utf-8"))


@functools.cache
def canonical() -> Mapping[str, str]:
    """Every single word of the lexicon, and its inflected and irregular forms, to its
    group's head."""
    return MappingProxyType(make_table(groups()))


@functools.cache
def phrases() -> Mapping[str, str]:
    """Every multi-word entry ("set up"), also with its first word inflected ("setting
    up"), to its group's head."""
    table: dict[str, str] = {}
    for group in groups():
        for entry in group:
            first, _, rest = entry.partition(" ")
            if rest:
                for form in _forms(first):
                    table.setdefault(f"{form} {rest}", group[0])
    return MappingProxyType(table)


def make_table(found: Groups) -> dict[str, str]:
    """A word the lexicon lists is its own group's, even where it is also a form of
    another group's word ("manager" of "manage", "later" of "late"). A form two groups
    make ("planes" of "plan" and "plane") stays with the first group; the asset is kept
    free of such collisions (tests/test_synonyms.py)."""
    table = {word: group[0] for group in found for word in group if " " not in word}
    for group in found:
        for word in group:
            if " " not in word:
                for form in _forms(word):
                    table.setdefault(form, group[0])
    for form, word in IRREGULAR.items():
        head = table.get(word)
        if head is not None:
            table.setdefault(form, head)
    return table


def _forms(word: str) -> list[str]:
    return [form for form in inflections(word) if form == word or form not in DRIFTED]


def heads(words: Sequence[str]) -> list[str]:
    """``words`` (lower case) with each phrase of the lexicon, longest first, and each
    single word replaced by its group's head; other words as they are."""
    single, multi = canonical(), phrases()
    result: list[str] = []
    at = 0
    while at < len(words):
        for size in range(min(LONGEST_PHRASE, len(words) - at), 1, -1):
            head = multi.get(" ".join(words[at : at + size]))
            if head is not None:
                result.append(head)
                at += size
                break
        else:
            result.append(single.get(words[at], words[at]))
            at += 1
    return result
