"""What a claim says about its topic, read by pure rules: its content words (the
topic), whether it is negated, which poles of a hand-made lexicon of opposites
(lexicon.OPPOSITES, in their inflected forms) it takes, and which way a "X over Y"
preference points.

Meaning (a sentence embedding) tells whether two claims are about the same thing, but
antonyms embed close ("be brief" and "be thorough": cosine 0.46; "prefer small
commits" and "prefer large commits": 0.93), so the stance is read here, from words.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import NamedTuple

from chitin.model.terms import stem
from chitin.resources import asset_path
from chitin.retrieval import comparison
from chitin.retrieval.comparison import Preference
from chitin.retrieval.forms import kept_forms, verb_forms
from chitin.retrieval.lexicon import ANTONYMS, DRIFTED, IRREGULAR, NUMBER_WORDS

# Words that turn a claim's stance around. "avoid" says "do not"; "instead" does not
# ("do X instead of Y" affirms X), nor does "stop" (more often "when it stops working").
NEGATORS = frozenset(
    {"not", "no", "never", "without", "avoid", "nor", "cannot", "neither", "nobody"}
)
# Words that carry no topic: function words, and verbs and modals every advice uses
# ("use", "keep", "should"). A claim's topic is what is left.
_FILLER_WORDS = """a an the and or but of to in on at by for with from into onto as is are be been
    being was were it its this that these those you your yours we our they their them he
    she his her i me my do does did done doing have has had having can could should would
    will shall may might must need needs always also just very so than then there here
    when while if what which who whom whose how why all any each every some such own same
    use using used keep kept make made get got give put let try take way thing things one
    rather instead only even still about up out over"""
FILLER = frozenset(_FILLER_WORDS.split())
MAIN_REACH = 5
_SITUATION = frozenset({"when", "if", "whenever", "once", "while", "before", "after", "unless"})
# "once" opening a clause ("once the work is scoped", "once you have read it") is
# "after", a pole; elsewhere it counts ("once a month") and stays a topic word.
_ONCE_OPENS = frozenset(
    {"you", "the", "it", "we", "i", "they", "he", "she", "this", "that", "these", "those"}
    | {"your", "our", "their", "its", "my", "his", "her"}
)
# "don't", and "dont" typed without its apostrophe: "do not" ("can't" is "ca not").
_BARE = "do|does|did|is|are|was|were|has|have|had|should|would|could|must|need|ca|wo"
_CONTRACTION = re.compile(rf"n['’]t\b|\b({_BARE})nt\b", re.IGNORECASE)
# A name is a word of its own: a "++" or "#" ending a word after a letter, then a version
# ("c++", "c#", "c++11": not "c" and "11"); a dot and letters opening a word, or after
# two characters or more (".net", "asp.net", "node.js"; not "e.g", nor "3.11").
_WORD = re.compile(r"(?:(?<![a-z0-9.])\.(?=[a-z]))?[a-z0-9]++(?:(?<=[a-z])(?:\+\+|#)[0-9]*+"
                   r"(?![a-z0-9])|(?<=[a-z0-9]{2})(?:\.[a-z]++)++(?![a-z0-9]))?")  # fmt: skip


class Stance(NamedTuple):
    """What the rules read of one claim."""

    topic: frozenset[str]  # content roots, without negators, filler or poles
    poles: frozenset[str]  # the antonym poles it uses
    negated: bool  # an odd number of negators
    preference: Preference  # "X over Y": X's roots, Y's
    numbers: frozenset[str] = frozenset()  # the quantities it names, as digits


@functools.lru_cache(maxsize=65536)
def root(word: str) -> str:
    """A word's root: the shared stemmer, then a final "e" and a doubled last
    consonant dropped, so that "rebase" and "rebasing", "commit" and "committing"
    meet."""
    mapped = IRREGULAR.get(word)
    if mapped is not None:
        return mapped
    found = stem(word)
    if len(found) > 4 and found.endswith("e"):
        found = found[:-1]
    if len(found) > 4 and found[-1] == found[-2] and found[-1] not in "aeiouls":
        found = found[:-1]
    return found


def words_of(text: str) -> list[str]:
    words = _WORD.findall(_CONTRACTION.sub(lambda bare: f"{bare[1] or ''} not", text.lower()))
    if "once" in words:
        for at, word in enumerate(words[:-1]):
            if word == "once" and words[at + 1] in _ONCE_OPENS:
                words[at] = "after"
    return words


@functools.lru_cache(maxsize=1 << 18)  # check judges every claim of a store, often
def stance(text: str) -> Stance:
    text = comparison.contrast(text)
    sequence = phrased(words_of(text))
    main = _main_clause(text, sequence)
    negators = sum(1 for word in main if word in NEGATORS or root(word) in NEGATORS)
    kept = [word for word in sequence if word not in NEGATORS]
    poles = frozenset(p for p in (_pole(word) for word in _with_words(kept)) if p)
    numbers = _numbers(sequence)
    preference = _preference(text)
    return Stance(topic_of(kept), poles, negators % 2 == 1, preference, numbers)


@functools.lru_cache(maxsize=1 << 18)
def topic(text: str) -> frozenset[str]:
    """``stance(text).topic`` alone, at about half its cost: the door ranks every word
    candidate of a new insight by it, a hundred or more (search/door.py ``_closest``)."""
    return topic_of(
        word for word in phrased(words_of(comparison.contrast(text))) if word not in NEGATORS
    )


def _with_words(tokens: list[str]) -> Iterable[str]:
    """Each token, and the words of each phrase among them but its negators: a pole a
    phrase's word takes stays read ("stay quiet": quiet, "in parallel": parallel). A
    word after "non" is negated by it, no pole ("non-urgent" is not "urgent")."""
    for at, token in enumerate(tokens):
        if at and tokens[at - 1] == "non":
            continue
        yield token
        if "_" in token:
            yield from (word for word in token.split("_") if word not in NEGATORS)


def topic_of(words: Iterable[str]) -> frozenset[str]:
    """The topic of a claim's words (negators out): the roots of its content words,
    without filler or poles."""
    # Filler by the word as well as by its root: "does" has the root "doe".
    roots = {root(word) for word in words if word not in FILLER and not _pole(word)}
    return frozenset(r for r in roots if r not in FILLER and r not in NEGATORS and len(r) >= 2)


def _numbers(words: list[str]) -> frozenset[str]:
    return frozenset(NUMBER_WORDS.get(w, w) for w in words if w.isdigit() or w in NUMBER_WORDS)


def _main_clause(text: str, sequence: list[str]) -> list[str]:
    """The words that carry a claim's stance: the first MAIN_REACH words of its main
    clause. A negation further on qualifies a detail ("…before confirming that the
    test, not the code, is wrong") and does not turn the advice around; a leading
    "when …," or "if …," clause is a situation, not the advice."""
    head, comma, rest = text.partition(",")
    opening = words_of(head)[:1]
    if comma and opening and opening[0] in _SITUATION:
        return _reach(phrased(words_of(rest)))
    return _reach(sequence)


def _reach(tokens: list[str]) -> list[str]:
    """The tokens that start within the first MAIN_REACH words (a phrase is as many
    words as it has: "in private, never …" reaches no further for the phrase)."""
    kept, count = [], 0
    for token in tokens:
        if count >= MAIN_REACH:
            break
        kept.append(token)
        count += token.count("_") + 1
    return kept


def phrased(words: list[str]) -> list[str]:
    """``words`` with each phrase of the lexicon ("by hand", "turned off", "can't
    stand"), longest first, as one token ("by_hand"): its pole, whose words are then
    neither poles of their own ("right" of "right away"), nor topic words, nor
    negators ("not" of "ca not stand")."""
    forms, _, starts = _lexicon()
    result: list[str] = []
    at = 0
    while at < len(words):
        # A phrase is two words or more: its first two, looked up, say how long it
        # may be, so that a claim's "in" or "at" costs one get, not a try of each size.
        longest = starts.get(f"{words[at]}_{words[at + 1]}", 0) if at + 1 < len(words) else 0
        for size in range(min(longest, len(words) - at), 1, -1):
            joined = "_".join(words[at : at + size])
            if joined in forms:
                result.append(joined)
                at += size
                break
        else:
            result.append(words[at])
            at += 1
    return result


@functools.lru_cache(maxsize=1 << 16)  # a word's pole, asked of each word of each claim
def _pole(word: str) -> str | None:
    """The lexicon's pole a word takes ("larger": "large", "tightening": "tighten"),
    if any: a form made of a pole's word, else its irregular form, stem or root."""
    forms = _lexicon()[0]
    found = forms.get(word)
    if found is not None or word in DRIFTED:
        return found
    for form in (IRREGULAR.get(word), stem(word), root(word)):
        if form is not None and form not in DRIFTED and form in forms:
            return forms[form]
    return None


# Forms to poles; each pole's opposites; the first two words of each phrase form to
# the longest phrase they start (a phrase is written with "_": "by_hand", "turned_off").
Lexicon = tuple[dict[str, str], dict[str, frozenset[str]], dict[str, int]]
LEXICON_FORMS = "lexicon-forms.txt"  # the table, made by scripts/lexicon_forms.py
OPPOSITE_PHRASES = "opposite-phrases.txt"  # "phrase / phrase" opposites, one a line


@functools.cache
def _lexicon() -> Lexicon:
    """The lexicon's table, as ``build_lexicon`` makes it, read from the file that
    ships with chitin: made on a session start's first stance read, it took ~6 ms (the
    roots and ~9,500 forms of ~1,100 words) of a retrieve's ~45 ms beyond start-up;
    read, ~3 ms. Made here if the file is missing or unreadable."""
    try:
        return parse_lexicon(asset_path(LEXICON_FORMS).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, IndexError):
        return build_lexicon()


def parse_lexicon(text: str) -> Lexicon:
    """The table from its file: a "pole form… ~ opposite…" line a pole (its forms read
    as it), and a "^ first_second:words…" line (the longest phrase its first two
    words start); "#"
    starts a comment. One line a pole, and the phrases' starts written out, because a
    session start's first stance read pays for every line (docs/design.md §9e, tenth
    round)."""
    forms: dict[str, str] = {}
    opposite: dict[str, frozenset[str]] = {}
    starts: dict[str, int] = {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        words = line.split()
        if words[0] == "^":
            starts = {word: int(size) for word, _, size in (w.partition(":") for w in words[1:])}
            continue
        cut = words.index("~")  # a ValueError where there is none: not a line of the table
        pole = words[0]
        for form in words[:cut]:  # a plain loop: 1.0 ms for the table, dict.fromkeys 1.8
            forms[form] = pole
        opposite[pole] = frozenset(words[cut + 1 :])
    return forms, opposite, starts


def _starting(phrases: Iterable[str]) -> dict[str, int]:
    starts: dict[str, int] = {}
    for phrase in phrases:
        words = phrase.split("_")
        start = "_".join(words[:2])
        starts[start] = max(starts.get(start, 0), len(words))
    return starts


def build_lexicon() -> Lexicon:
    """Every form of the lexicon's words, to its pole; and each pole's opposites. A
    word that is a form of an earlier pole ("formally" of "formal") is that pole; one
    written as a root ("complicat") keeps its root's forms."""
    forms: dict[str, str] = {}
    opposite: dict[str, set[str]] = {}
    pairs = [tuple(_register(word, forms) for word in pair) for pair in ANTONYMS]
    phrases = parse_phrases(asset_path(OPPOSITE_PHRASES).read_text(encoding="utf-8"))
    pairs += [tuple(_register_side(side, forms) for side in pair) for pair in phrases]
    for first, second in pairs:
        opposite.setdefault(first, set()).add(second)
        opposite.setdefault(second, set()).add(first)
    starts = _starting(form for form in forms if "_" in form)
    return forms, {pole: frozenset(others) for pole, others in opposite.items()}, starts


Side = tuple[tuple[str, ...], int | None]  # a pair's side: its words, the verb's place


def parse_phrases(text: str) -> list[tuple[Side, Side]]:
    """The pairs of opposite-phrases.txt: "left / right" a line, "#" a comment; a side's
    word marked "*" is a verb, read in its forms. Words as a claim's are read
    (``words_of``: "can't" is "ca not")."""
    pairs = []
    for number, line in enumerate(text.splitlines(), 1):
        body = line.partition("#")[0].strip()
        if not body:
            continue
        sides = [_side(part) for part in body.split(" / ")]
        if len(sides) != 2 or not all(words for words, _ in sides):
            raise ValueError(f"line {number} of {OPPOSITE_PHRASES}: not a pair: {body[:60]!r}")
        pairs.append((sides[0], sides[1]))
    return pairs


def _side(text: str) -> Side:
    words: list[str] = []
    verb = None
    for token in text.split():
        if token.endswith("*"):
            verb = len(words)
        words += words_of(token.rstrip("*"))
    return tuple(words), verb


def _register_side(side: Side, forms: dict[str, str]) -> str:
    """The pole a pair's side is: a word's as ``_register`` makes it; a phrase's is
    the phrase, its verb read in its forms ("turned_on" of "turn* on")."""
    words, verb = side
    if len(words) == 1 and verb is None:
        return _register(words[0], forms)
    pole = "_".join(words)
    known = forms.get(pole)
    if known is not None:
        return known
    forms.setdefault(pole, pole)
    if verb is not None:
        for form in verb_forms(words[verb]):
            forms.setdefault("_".join((*words[:verb], form, *words[verb + 1 :])), pole)
    return pole


def _register(word: str, forms: dict[str, str]) -> str:
    """The pole ``word`` is: an earlier pole it is a form of, or itself, its forms
    added (a root that cuts more than a final letter, "formal": "form", is no form)."""
    known = forms.get(word) or forms.get(IRREGULAR.get(word, ""))
    close = root(word)
    near = len(close) >= len(word) - 1  # "complicate": "complicat"
    if known is None and near:
        known = forms.get(close)
    if known is not None:
        return known
    for form in kept_forms(word):
        forms.setdefault(form, word)
    if near:
        forms.setdefault(close, word)
    return word


def _preference(text: str) -> Preference:
    lowered = text.lower()
    found = comparison.preference_marker(lowered)
    return None if found is None else _sides(lowered, *found)


@functools.lru_cache(maxsize=1 << 16)
def order(text: str) -> Preference:
    """What a claim puts first and second by "before", "than" or "after" (turned); not
    in ``stance``: only a pair no other cue opposes asks for it (judgement._opposition)."""
    found = comparison.order_marker(lowered := comparison.contrast(text).lower())
    if found is None:
        return None
    start, end, after = found
    sides = _sides(lowered, start, end)
    return (sides[1], sides[0]) if sides and after else sides


def _sides(lowered: str, start: int, end: int) -> Preference:
    """The content words of the clause on each side of a marker at [start, end)."""
    before = comparison.CLAUSE_END.split(lowered[:start])[-1]
    after = comparison.CLAUSE_END.split(lowered[end:])[0]
    first, second = _content(before), _content(after)
    return (first, second) if first and second else None


def _content(text: str) -> frozenset[str]:
    roots = (root(word) for word in words_of(text) if word not in NEGATORS | FILLER)
    return frozenset(r for r in roots if r not in FILLER and len(r) >= 2)


_NUMBER_ROOTS = frozenset(root(word) for word in NUMBER_WORDS)


def words_only(roots: frozenset[str]) -> frozenset[str]:
    """The roots that are not numbers ("15", "fifteen")."""
    return frozenset(r for r in roots if not r[:1].isdigit() and r not in _NUMBER_ROOTS)


def opposite_poles(pole: str) -> frozenset[str]:
    return _lexicon()[1].get(pole, frozenset())


def opposed_poles(first: frozenset[str], second: frozenset[str]) -> list[tuple[str, str]]:
    """Pole pairs one claim takes and the other opposes: a pole of the first whose
    opposite the second uses, where neither uses both (a claim naming both poles,
    "balance brevity and detail", takes no side)."""
    found = []
    opposite = _lexicon()[1]
    for pole in sorted(first - second):
        for other in sorted(opposite[pole] & second):
            if other not in first:
                found.append((pole, other))
    # Two pairs whose poles on one side oppose each other ("small, frequent releases are
    # safer than big, rare ones" / "little changes … less risk than large batches":
    # small ↔ large and big ↔ little): each claim names both ends, a comparison the
    # poles do not read, so neither pair is a side taken.
    crossed = {
        pair
        for pair in found
        for mine, theirs in found
        if mine in opposite[pair[0]] or theirs in opposite[pair[1]]
    }
    # So is a pair each of whose poles its own claim names with an opposite ("praise in
    # public, criticise in private" / "criticism one on one, recognition in front of
    # the team"): two comparisons, neither a side.
    crossed |= {pair for pair in found if opposite[pair[0]] & first and opposite[pair[1]] & second}
    return [pair for pair in found if pair not in crossed]
