"""A general English synonym lexicon: groups of words that say the same thing in an
agent's notes ("fix", "repair", "mend"; "prod", "production"; "colour", "color"), read
from chitin/assets/synonyms.txt. Every word of a group, and each inflected form of it
("repaired", "quicker", "quickly", found by ``forms.inflections``), reads as the group's
head, its first word, so that two claims worded apart can be compared word by word."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from chitin.resources import asset_path
from chitin.retrieval.forms import inflections

SYNONYMS = "synonyms.txt"
SYNONYM_FORMS = "synonym-forms.txt"  # the tables, made by scripts/synonym_forms.py
Groups = tuple[tuple[str, ...], ...]
_ENTRY = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")
LONGEST_PHRASE = 4  # words; tests/test_synonyms.py holds the asset to it

# Forms the suffix rule makes of a group's word that are other words: "stat" is not
# "stated", "ref" not "refer", "real" not "really" (an intensifier).
_DRIFTED_WORDS = """apply appropriated assembly banner boots breaker bugger cared carer cares carly
    commons complexes cones conner controller conversely counter currents defected
    disadvantaged dishes dresser earnest fairs fasted fasting feed finely firmer firmest
    firmly fitter fittest fitting franks frequented generals goods gps graves grossed
    grossing handler harding idly incoming individually issued issuing kidding kindly
    linker longed longing marker mated mater mating meaner meanest meanly means minors
    namely news odds officer paler pales palest peered peering photographer presently
    principals programmer projected projecting rainer rapids readily really reasoned
    reasoning refer reserved ringer rings ruler scraped scraping severed shipper shorts
    singer skipper speaker spotty stables staging stated states stating stranger
    stunning subjected suites summer teller temper tipper tripped tripping uncovered
    uniformed uniforms waiter warner webber weber wines"""
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
    "spoke": "speak",
    "spoken": "speak",
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
    return MappingProxyType(_tables()[0])


@functools.cache
def phrases() -> Mapping[str, str]:
    """Every multi-word entry ("set up"), also with its first word inflected ("setting
    up"), to its group's head."""
    return MappingProxyType(_tables()[1])


Tables = tuple[dict[str, str], dict[str, str]]  # words to heads; phrases to heads


@functools.cache
def _tables() -> Tables:
    """The tables as ``make_tables`` makes them, read from the file made of them
    (scripts/synonym_forms.py): made, the ~17,000 forms of ~3,000 entries took ~14 ms
    of a process's first lookup; read, about a fifth of that (~3 ms). Made here if the
    file is missing or unreadable."""
    try:
        return parse_tables(asset_path(SYNONYM_FORMS).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, IndexError):
        return make_tables(groups())


def make_tables(found: Groups) -> Tables:
    return make_table(found), make_phrases(found)


def make_phrases(found: Groups) -> dict[str, str]:
    table: dict[str, str] = {}
    for group in found:
        for entry in group:
            first, _, rest = entry.partition(" ")
            if rest:  # a phrase is a verb's ("set up", "sets up", "setting up")
                for form in _forms(first):
                    if form == first or form.endswith(_VERB_SUFFIXES):
                        table.setdefault(f"{form} {rest}", group[0])
    return table


def parse_tables(text: str) -> Tables:
    """The tables from their file: "= head|word word..." lines (the single words that
    read as the head) and "+ head|phrase|phrase..." lines; "#" starts a comment. A head
    may itself be a phrase ("switch off"), hence the "|"."""
    words: dict[str, str] = {}
    multi: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("= "):
            head, _, found = line[2:].partition("|")
            words.update(dict.fromkeys(found.split(), head))
        elif line.startswith("+ "):
            head, _, found = line[2:].partition("|")
            multi.update(dict.fromkeys(found.split("|"), head))
        elif line and not line.startswith("#"):
            raise ValueError(f"not a line of {SYNONYM_FORMS}: {line[:40]!r}")
    return words, multi


def format_tables(tables: Tables) -> str:
    """``parse_tables``'s text of ``tables``, in a stable order."""
    lines = []
    for prefix, table, glue in (("= ", tables[0], " "), ("+ ", tables[1], "|")):
        grouped: dict[str, list[str]] = {}
        for entry, head in table.items():
            grouped.setdefault(head, []).append(entry)
        lines += [f"{prefix}{head}|{glue.join(sorted(grouped[head]))}" for head in sorted(grouped)]
    return "\n".join(lines) + "\n"


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
    return [
        form
        for form in inflections(word)
        if form == word or (form not in DRIFTED and _plausible(word, _suffix(word, form)))
    ]


_SIBILANT = ("s", "x", "z", "ch", "sh")
_VERB_SUFFIXES = ("s", "ed", "ing")
_COMPARED = 6  # letters: the longest word "-er" and "-est" are made for
_COMPARATIVE = ("er", "est", "r", "st", "ier", "iest")  # "simpler", "busier"
# Words already inflected or derived ("planning", "detailed", "omission", "careful")
# take few more suffixes: "plannings", "carefully", not "planninged" or "carefuller".
_INFLECTED = ("ing", "ed")
_DERIVED = (
    *("ion", "ment", "ness", "ity", "ance", "ence", "ism"),
    *("ous", "ful", "ive", "able", "ible", "less"),
)


def _suffix(word: str, form: str) -> str:
    """What ``form`` adds to ``word``: "es" of "fixes", "ies" of "copies" (a final "y"
    or "e" the rule drops is not counted: "ing" of "making")."""
    return form[len(word) :] if form.startswith(word) else form[len(word) - 1 :]


def _plausible(word: str, suffix: str) -> bool:
    """Whether a suffix the shared rule adds can make an English word of ``word``
    ("fixes", "tools", "commenced"; not "fixs", "tooles", "planninged"): the forms that
    cannot are left out of the table (a sixth of what the rule makes), keeping its read fast."""
    if suffix == "es":
        return word.endswith((*_SIBILANT, "o"))
    if suffix == "s":
        return not word.endswith(_SIBILANT)
    if len(word) > 5 and word.endswith(_INFLECTED) and not word.endswith("eed"):
        return suffix == "ly"
    # "-er"/"-est" compare short adjectives ("quicker", "simplest"); on a longer word
    # they make no word, or a doer who is not the deed ("investigater", "reviewer").
    return suffix not in _COMPARATIVE or (len(word) <= _COMPARED and not word.endswith(_DERIVED))


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
