"""How much a user's message teaches the agent: every message is a candidate, weighed
by the evidence in its words and its place (issue 26, docs/design.md §8e).

The cue phrases of ``moments`` (a correction's "no, …", "I said", "… instead"; a rule's
"from now on", "always <verb>") are the strongest evidence, not a gate. Beside them,
general features of English, none taken from a labelled set's sentences:

- an imperative ("Put it in the settings module"), a negation aimed at the agent, a
  contrast ("…, not …", "only", "but"), a modal rule ("tests should …", "must"), a wish
  ("I'd like …", "I want …"), a want that was not met ("I was after …", "what I need
  is …"), a rule's reach ("whenever", "every time", "by default");
- its place: the opening message is the task, not a lesson; a message after the
  agent's work that reuses that work's words is about it;
- its specificity: code-like tokens, length.

Look-alikes are demoted: thanks and praise, "no problem", "never mind", a deferral
("later", "tomorrow", "if you like"), a remark about the world ("odd"), a question
that only asks, a next step ("now …", "also …"). A message is shown when its weight
reaches ``FLOOR``, so a session with nothing to learn stays short. Pure: text in,
weight out.
"""

from __future__ import annotations

import re
from typing import NamedTuple

CORRECTION, PREFERENCE = "correction", "preference"
FLOOR = 2.0  # the weight a message needs to be shown
CUE = 3.0  # a cue phrase alone is enough
_I = re.IGNORECASE


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Closed-class words (pronouns, determiners, auxiliaries, question words, conjunctions,
# prepositions, interjections, sentence adverbs): a sentence starting with one is not
# an imperative.
_CLOSED = _words(
    """i you he she it we they me us them my your our their its this that these those
    a an the some any all each every no not none nothing there here what which who whom
    whose when where why how is are was were am be been being do does did have has had
    will would shall should can could may might must ought let let's lets if then so and or
    but because since though although while as of in on at by for with from to into
    about over under after before until yes yeah yep yup ok okay sure thanks thank cheers
    great nice cool perfect awesome excellent brilliant lovely good fine hm hmm oh ah
    well wow hey hi hello sorry maybe perhaps probably also just now next still again
    really actually honestly anyway btw fyi lgtm one two"""
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_CLAUSES = re.compile(r"[,:—–]\s*|\s+-\s+")
_POINTS = re.compile(r"\b(?:it|that|this|them|those|these|here|there)\b", _I)
# Formulae that close or acknowledge rather than teach.
_ACK = re.compile(
    r"^(?:ok(?:ay)?|k|sure|yes|yeah|yep|yup|great|nice|cool|perfect|awesome|excellent|"
    r"brilliant|lovely|good|fine|thanks?|thank you|thx|ty|cheers|got it|understood|"
    r"sounds (?:good|great|fine)|looks (?:good|great|fine)|lgtm|well done|good job|"
    r"nice work|that works|it works|works now|all good|no (?:problem|worries)|"
    r"never ?mind|that'?s (?:all|it|fine|great|perfect|good|ok|okay|enough)|see you|bye|"
    r"it'?s (?:fine|ok|okay|all right|alright)|all right|alright|no need|go ahead|"
    r"carry on|keep going|continue|proceed|"
    r"(?:don'?t|do not) (?:worry|mind|bother|hesitate|rush|panic|stress|apologi[sz]e|know|"
    r"think|care))\b",
    _I,
)
_DEFER = re.compile(
    r"\b(?:later|tomorrow|some ?time|some other time|next week|for now|if you (?:like|want|wish|"
    r"can|have time)|when(?:ever)? you (?:get a chance|have time|can)|no rush|no hurry)\b",
    _I,
)
_REMARK = re.compile(r"\b(?:odd|weird|strange|interesting|curious|funny)\b|^hm+\b", _I)
_NEXT_STEP = re.compile(r"^(?:now|next|also|then|and now|ok(?:ay)?,? now)\b", _I)
_QUESTION = re.compile(
    r"^(?:what|which|where|when|who|how|is|are|was|were|does|do|did|can|could|will|"
    r"would|has|have|any)\b.*\?\s*$",
    _I | re.DOTALL,
)
_NEGATION = re.compile(r"\b(?:not|no|never|nothing|none|without)\b|n'?t\b", _I)
_CONTRAST = re.compile(r"\b(?:instead|rather|only|except|but|not|actually|different|another)\b", _I)
# Verbs that direct how the work is done, not which work: an order with one is a way
# of working, not a next task.
_MANNER = re.compile(
    r"^\s*(?:please |just )?(?:use|keep|avoid|prefer|make|put|name|call|write|format|stick|"
    r"switch|move|rename|follow|leave|place|store|return|split|merge|limit|wrap)\b",
    _I,
)
_PARTIAL = re.compile(
    r"(?:^(?:ok(?:ay)?|thanks?|thank you|good|great|nice|fine|sure|yes)\b|\b(?:is|are|was|"
    r"looks?|seems?) (?:fine|good|great|ok|okay|right|correct|nice)\b)[^.!?]*?,? "
    r"(?:but|though|however|except)\b",
    _I,
)
# "…, not Y", "… instead of Y", "… rather than Y": one choice put in place of another.
_NOT_THAT = re.compile(
    r",\s*(?:please,?\s*)?not (?!(?:your|my|our|a|an|bad|sure|yet|now|really|quite|at all|"
    r"much|exactly|necessarily|always)\b)\w|\binstead of\b|\brather than\b|"
    r"^not (?:the |a |an |this |that )?[\w .-]+, (?:just|only|but)\b",
    _I,
)
_BUT = re.compile(r"\b(?:but|instead|rather|except|however|though)\b", _I)
# A reply that opens by saying no to what came before.
_REFUSAL = re.compile(r"^(?:no|nope|nah|not|wrong|never|don'?t|do not)\b", _I)
# What the agent did, said back to it: "you" and a verb's past form.
_YOU_DID = re.compile(
    r"\byou(?: just| also| then)? (?:\w+ed|forgot|broke|left|made|wrote|put|ran|took|"
    r"got|went|gave|lost|overwrote|undid|threw|chose|kept|hid|built|sent|set|cut|"
    r"dropped|missed)\b",
    _I,
)
_YOU = re.compile(r"\byou(?:'re|'ve|r)?\b", _I)
_WISH = re.compile(
    r"\bI(?:'d| would) (?:like|love|prefer|want|rather)\b|\bI (?:want|need)(?! to\b)\b|"
    r"\bI (?:like|love|hate|dislike|expect|prefer)\b|\bmy preference\b|"
    r"\bwe (?:want|need|like|prefer|use|keep|write|do not|don'?t)\b|"
    r"\blet'?s (?:use|keep|stick|go with|do)\b",
    _I,
)
_UNMET = re.compile(
    r"\bI (?:was|am|'m) (?:after|looking for|hoping for|expecting|asking for|asking about|"
    r"thinking of|trying to get)\b|"
    r"\bI (?:only |just |really )?(?:wanted|needed|expected|intended|had in mind)\b|"
    r"\bwhat I (?:want|need|meant|asked|wanted|needed|expected) (?:is|was)\b|"
    r"\bI (?:asked|said|told you|meant)\b(?! to\b)|\bthat'?s not (?:the|my|our)\b",
    _I,
)
_MODAL = re.compile(
    r"\b(\w+) (?:should|must|needs? to|has to|have to|ought to)(?! have\b)\b|"
    r"^(?:should|must)\b",
    _I,
)
# A rule reaches past this once: its reach, or a stated liking.
_REACH = re.compile(
    r"\b(?:always|never(?! mind)|whenever|every|each time|any ?time|in general|generally|"
    r"usually|by default|from now on|in (?:the )?future|going forward|as a rule|"
    r"convention|in this (?:repo|repository|project|codebase|code base|team)|"
    r"prefer(?:red|ably|ence)?|I(?:'d| would) (?:like|love|rather)|I (?:like|love|"
    r"hate|dislike)|we (?:use|keep|write|do not|don'?t))\b|"
    # A condition, then what to do: "when a test is flaky, mark it".
    r"^(?:when|whenever|if|once|before|after) [^,.;]+, (?:please |just )?[a-z]+",
    _I,
)
# How things are done here: "our docs are written in …", "our tests use …".
_CONVENTION = re.compile(r"\bour \w+(?: \w+)? (?:are|is|use|go|live|follow)\b", _I)
_PLEASE = re.compile(r"\bplease\b", _I)
_CODE = re.compile(r"`[^`]+`|\S+/\S+|\b\w+\.\w{1,5}\b|--?\w[\w-]*|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*")
_CONTENT = re.compile(r"[a-z][a-z0-9_]{3,}")


class Weight(NamedTuple):
    score: float
    kind: str  # CORRECTION or PREFERENCE: what the message would teach
    at: int = 0  # where in the message its weightiest sentence starts


def weigh(text: str, cue: str | None, *, opener: bool = False, before: str = "") -> Weight:
    """The evidence that ``text`` teaches something; ``cue`` is the kind its cue phrases
    say (or None), ``opener`` whether no agent's work came before it, ``before`` the
    agent's work (and the request) it follows."""
    if cue == PREFERENCE:  # a stated rule holds wherever it is said
        return Weight(CUE + 1, PREFERENCE)
    if opener and cue is None:  # the task itself, unless its words say otherwise
        return Weight(0.0, CORRECTION)
    sentences = [s.strip(" \t\"'*>-") for s in _SENTENCES.split(text) if s.strip()]
    told = [s for s in sentences if not _acknowledges(s)]
    # Each sentence weighed once (the first weightiest wins, as max() picks it).
    weighed, best = max(((_sentence(s), s) for s in told), key=_first, default=(0.0, ""))
    score = CUE if cue == CORRECTION else weighed if best else 0.0
    if told and _REFUSAL.match(told[0]):
        score += 1.0
    if told and _overlaps(text, before):
        score += 0.5
    # A cue phrase keeps its weight unless nothing but acknowledgement was said.
    score -= _demotions(text, told) if cue is None or not told else 0.0
    at = 0 if cue is not None else max(text.find(best), 0)
    return Weight(score, _kind(text, cue), at)


def sentence_starts(text: str) -> list[int]:
    """Where each sentence of ``text`` starts, as ``weigh`` splits it."""
    return [0, *(match.end() for match in _SENTENCES.finditer(text))]


def _first(pair: tuple[float, str]) -> float:
    return pair[0]


def _acknowledges(sentence: str) -> bool:
    """Whether ``sentence`` only acknowledges: an acknowledging formula, or clauses that
    are each one (or a lone word: "No, that's fine", "Wait, never mind"), with no "but"."""
    if _BUT.search(sentence):
        return False
    if _ACK.match(sentence):
        return True
    clauses = [c.strip() for c in _CLAUSES.split(sentence) if c.strip()]
    return all(_ACK.match(c) or len(_WORD.findall(c)) < 2 for c in clauses)


def _sentence(sentence: str) -> float:
    """The weight of one sentence that is not an acknowledgement (a message weighs what
    its weightiest sentence does: a remark beside an order does not add to it)."""
    clauses = [c.strip() for c in _CLAUSES.split(sentence)]
    orders = [c for c in clauses if not _ACK.match(c) and _imperative(c)]
    # "Type hints on every function, please": a request without its verb.
    asked = bool(orders) or (_PLEASE.search(sentence) is not None and "?" not in sentence)
    score = 1.5 if asked else 0.0
    # An order that points at the work ("put it …", a file, a flag) or says how to work.
    pointed = _POINTS.search(sentence) or _CODE.search(sentence)
    score += 0.5 if orders and (pointed or any(_MANNER.match(c) for c in orders)) else 0.0
    # "Fine, but …", "The first one is good, but …": a partial no.
    score += 2.0 if _PARTIAL.search(sentence) or _NOT_THAT.search(sentence) else 0.0
    score += 2.0 if _UNMET.search(sentence) or _YOU_DID.search(sentence) else 0.0
    score += 2.0 if _WISH.search(sentence) or _CONVENTION.search(sentence) else 0.0
    score += 1.5 if _MODAL.search(sentence) else 0.0
    score += 1.0 if _REACH.search(sentence) and score else 0.0
    aimed = asked or bool(_YOU.search(sentence))
    score += 1.0 if aimed and _NEGATION.search(sentence) else 0.0
    score += 0.5 if score and _CONTRAST.search(sentence) else 0.0
    score += 0.5 if score and len(_WORD.findall(sentence)) >= 12 else 0.0
    return score


def _demotions(text: str, told: list[str]) -> float:
    if not told:
        return 5.0  # thanks, praise, "no problem": nothing but acknowledgement
    minus = 1.5 if _DEFER.search(text) else 0.0
    minus += 1.0 if _REMARK.search(text) else 0.0
    minus += 1.0 if _NEXT_STEP.match(told[0]) else 0.0
    if all(_QUESTION.match(s) and not _imperative(s) for s in told):
        minus += 1.5  # it asks for information
    return minus


def _imperative(sentence: str) -> bool:
    """Whether ``sentence`` opens with a verb's bare form: its first word is no closed-
    class word, does not look inflected, and is not followed by a verb of its own."""
    words = [w.lower().replace("’", "'") for w in _WORD.findall(sentence)[:5]]
    if words[:2] in (["can", "you"], ["could", "you"], ["would", "you"], ["will", "you"]):
        words = words[2:]  # a polite order: "could you move it …?"
    while words and words[0] in ("please", "just", "and", "so", "then"):
        words.pop(0)
    if len(words) < 2 or words[0] in _CLOSED or words[0].endswith(("ly", "ing", "'s", "ed")):
        return words[:2] == ["do", "not"] or (bool(words) and words[0] in ("don't", "dont"))
    second = words[1] if len(words) > 1 else ""
    return second not in ("is", "are", "was", "were", "has", "have", "looks", "seems", "works")


def _overlaps(text: str, before: str) -> bool:
    """Whether ``text`` reuses a word of the work it follows (it is about that work)."""
    said = set(_CONTENT.findall(text.lower()))
    return bool(said & set(_CONTENT.findall(before.lower())) - _COMMON)


def _kind(text: str, cue: str | None) -> str:
    """A cue's kind; else a preference when the words reach past this once (a rule's
    reach, a modal rule about things in general, an order about no thing in particular),
    a correction when they point at this session's work ("the", "it", "that")."""
    if _REACH.search(text) or _CONVENTION.search(text):
        return PREFERENCE  # a correction that states a rule teaches the rule
    if cue is not None:
        return cue
    modal = _MODAL.search(text)
    if modal is not None and (modal.group(1) or "").lower() not in _PARTICULAR:
        return PREFERENCE
    sentences = [s for s in _SENTENCES.split(text) if s.strip()]
    ordered = any(_imperative(c) for s in sentences for c in _CLAUSES.split(s))
    pointed = _DEFINITE.search(text)
    return PREFERENCE if ordered and not pointed else CORRECTION


_PARTICULAR = _words("you it this that i he she they")
_DEFINITE = re.compile(r"\b(?:the|this|that|it|these|those|them|here|there)\b", _I)
_COMMON = _words(
    """that this with from have what when where which there then than them they your
    just also into only some more here will would should could about after before again
    please thanks done need want like make sure okay good great file files"""
)
