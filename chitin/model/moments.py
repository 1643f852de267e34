"""The moments of a session worth reflecting on, found in its turns (issue 26).

Three kinds, each anchored on the transcript's own words, never paraphrased:

- ``correction``: the user correcting or redirecting the agent ("no, …", "don't …",
  "stop", "I said …", "actually, …", "… instead"), with what the agent did next;
- ``preference``: the user stating a rule or a preference ("I prefer …", "always …",
  "never …", "from now on …", "please don't …");
- ``recovery``: a failing tool call, then a different call that worked: of the same
  tool and, for a shell, another try at the same command (``model/programs.py``).

The rules aim at what a careful reader would pick and leave the look-alikes: "no
problem", "that actually worked", "it always fails here", a test the agent meant to
see fail (red before green), the same command run again. Pure: turns in, moments out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from chitin.model.programs import is_shell, same_attempt, says_another_way
from chitin.model.teaching import CORRECTION as CORRECTION
from chitin.model.teaching import CUE, FLOOR, sentence_starts, weigh
from chitin.model.teaching import PREFERENCE as PREFERENCE
from chitin.model.transcript import AGENT, CALL, REJECTION, RESULT, USER, Turn

RECOVERY = "recovery"
KINDS = (CORRECTION, PREFERENCE, RECOVERY)
# How far after a failure a different approach still counts as its recovery.
RECOVERY_WINDOW = 16
# How far into a message its telling sentence may start and still be quoted from the
# message's start (a quote is cut at 300 characters).
LEAD = 150
# How many turns back a user message's context is read.
CONTEXT_TURNS = 12
# A recovery's weight: below a cue phrase's (a correction's 3, a stated rule's 4), so
# when room is short the person's own words come before what a tool's failure taught;
# above a message that weighs less (weights go by halves, so never a tie).
RECOVERY_WEIGHT = CUE - 0.25
_I = re.IGNORECASE

_VERBS = (
    r"(use|run|write|add|put|commit|push|ask|check|call|keep|make|prefix|include|format|"
    r"test|name|mention|do|touch|modify|edit|delete|remove|rebase|merge|squash|skip|reply|"
    r"respond|answer|start|open|create|leave|send|deploy|change|rename|update|install|"
    r"pin|log|print|wrap|sort|quote|sign|tag|close|read|go|be|say|show|give|bump|force)"
)
PREFERENCE_RULES = re.compile(
    r"\b(?:I|we)(?:'d| would)? (?:really )?prefer\b|\bI(?:'d| would)? rather\b|\bfrom now on\b|"
    r"(?:^|[.!;:]\s+)(?:next time|(?:please )?stick (?:to|with))\b|"
    r"\b(?:do not|don'?t) (?:ever|forget (?:to|that))\b|"
    r"\bgoing forward\b|\bin (?:the )?future,|\bas a rule\b|\bplease (?:do not|don'?t|never)\b|"
    r"\bmake sure (?:you |to )|\bremember (?:to|that)\b|\b(?:our|the) convention\b|"
    r"\bI (?:like|want) (?:it|you) to (?:always|never)\b|\bI (?:always|never) want\b|"
    r"\bI(?:'d| would) like you to (?:always|never)\b|^prefer\b|\bby default,? (?:use|"
    r"run|write|prefer)\b|\bin this (?:repo|project|codebase),? we\b|"
    rf"(?:^|[.!;:,]\s*|\b(?:please|you should|you must|we|you) )(?:always|never) {_VERBS}\b",
    _I,
)
_SAYS_NO = (
    r"^(?:no|nope|nah)\b(?![ -](?:problem|worries|rush|need|thanks?|doubt|idea|way|big deal|"
    r"matter|hurry|pressure|offen[cs]e|biggie)\b)(?!,? (?:that'?s|it'?s|this is|looks) "
    r"(?:fine|great|perfect|good|ok|okay|right|correct|exactly))"
)
CORRECTION_RULES = re.compile(
    _SAYS_NO + r"|^(?:stop|wait|hold on|hang on)\s*[.,!:;—-]|^wait a (?:sec|second|minute|"
    r"moment)\b|^(?:undo|revert)\b|\buse [\w.@/-]+(?: [\w.@/-]+)?,? not [\w.@/-]+|"
    r"\bwhy did you\b|\bthat'?s (?:incorrect|the wrong)\b|\bnot what I want\b|"
    r"\byou should(?:n'?t| not)? have\b|"
    r"^(?:wrong|incorrect|not (?:that|like that|quite|this|there|yet))\b|"
    r"\bI (?:said|told you|asked (?:you )?(?:for|to))\b|\bthat'?s not (?:what|how|right|it)\b|"
    r"\bnot what I (?:asked|meant|wanted|said)\b|\bthat'?s wrong\b|\byou (?:broke|deleted|"
    r"removed|forgot|missed|ignored|skipped|changed)\b|\b(?:do not|don'?t) (?:do|use|touch|"
    r"change|add|remove|delete|run|commit|push|modify|edit|create|install|rename|move|mock)\b|"
    r"^actually\b(?!,? (?:it|that|this) (?:works|worked|is|looks|was))|\bactually,? (?:use|do|"
    r"don'?t|let'?s|we|I want|please|it should|change|make)\b|\binstead\b|\brather than\b|"
    r"\bstop (?:doing|using|changing|adding|editing|touching|that|it)\b|\bswitch (?:to|back)\b|"
    r"\b(?:please )?(?:go back|roll back|put it back|revert (?:that|it|this))\b|"
    # The same said other ways: an imperative "don't" (not "don't worry"), what the user
    # did not ask for or meant, the wrong thing, "let's not", "you were supposed to".
    r"(?:^|[.!?;:]\s+)(?:do not|don'?t) (?!worry|mind|hesitate|know|think|care|panic|rush|"
    r"apologi[sz]e|stress|forget|ever)\w|\bI (?:didn'?t|did not|never) (?:ask|say|tell|want)\b|"
    r"\bI meant\b(?! to\b)|\bI (?:do not|don'?t) want (?:you to|it|that|this|them|any)\b|"
    r"\bwhy (?:would|are) you\b|\b(?:that|this) (?:isn'?t|is not|wasn'?t) (?:what|how|right)\b|"
    r"\bthe wrong \w+|\blet'?s not\b(?! worry)|\b(?:can|could) you not\b|"
    r"\byou were (?:supposed|meant|asked|told) to\b|"
    r"^(?:that'?s |this is |it'?s )?(?:way |far |much )?too (?:long|verbose|wordy|much|many|"
    r"complicated|complex|clever)\b",
    _I,
)
INTENDED_FAILURE = re.compile(
    r"\b(?:expect(?:ed|ing|s)?|should|will|must|want(?:ed)?|meant|supposed|going) (?:for |"
    r"that )?(?:it |this |that |the (?:new )?tests? |them |they )?(?:to )?(?:fail|error|"
    r"break|be red|go red|not pass)|\bas expected\b|\b(?:red|failing) (?:test|phase|first)\b|"
    r"\bconfirm(?:s|ing)? (?:that )?(?:it|the (?:new )?test|this) (?:fails|is red)\b|"
    r"\bfails? for the right reason\b|\bred before green\b|\b(?:see|watch) it fail\b|"
    r"\b(?:verify|check|make sure) (?:that )?(?:it|the (?:new )?test|this) fails\b|"
    r"\bfail(?:s|ing)? first\b|\b(?:deliberately|on purpose|intentionally)\b|"
    r"\bfails? as intended\b",
    _I,
)


class Moment(NamedTuple):
    kind: str
    number: int  # the message it is in
    time: str | None
    quote: str  # the transcript's words
    then: str = ""  # what followed: the agent's next words, or the call that worked
    then_number: int | None = None
    weight: float = RECOVERY_WEIGHT  # the evidence it teaches: the digest fills by it


def find_moments(turns: Sequence[Turn]) -> list[Moment]:
    """Every moment in ``turns``, in transcript order (one per user message at most):
    each user message whose weight reaches the floor, and each recovery. Each text
    block of a message is weighed until one is a moment (Claude Code puts the prompts
    typed while the agent worked into one message, a block each)."""
    found: list[Moment] = []
    seen: set[int] = set()
    worked = False  # whether the agent has said or done anything yet
    for index, turn in enumerate(turns):
        worked = worked or turn.role in (AGENT, CALL)
        if turn.role == USER and turn.number not in seen:
            cue = cue_kind(turn.text)
            weight = weigh(turn.text, cue, opener=not worked, before=_before(turns, index))
            if turn.tool == REJECTION:  # said while turning a call down: a correction
                weight = weight._replace(score=max(weight.score, CUE))
                weight = weight if weight.kind == PREFERENCE else weight._replace(kind=CORRECTION)
            if weight.score >= FLOOR:
                seen.add(turn.number)
                then, then_number = _next_agent(turns, index) or ("", None)
                at = weight.at if cue is None else _cue_at(turn.text)
                said = Moment(weight.kind, turn.number, turn.time, _from(turn.text, at),
                              then, then_number)  # fmt: skip
                found.append(said._replace(weight=weight.score))
        elif turn.role == RESULT and turn.failed:
            recovered = _recovery(turns, index)
            if recovered is not None and all(m.number != recovered.number for m in found):
                found.append(recovered)
    return sorted(found, key=lambda m: m.number)


def said_kind(text: str) -> str | None:
    """PREFERENCE, CORRECTION or None for a user's message said after the agent's work
    (its weight reaches the floor, or not)."""
    weight = weigh(text, cue_kind(text))
    return weight.kind if weight.score >= FLOOR else None


# A word that each of PREFERENCE_RULES' alternatives holds, one or another: a message
# without any of them (most) is told apart without the rules' scan, which tries every
# alternative at every character (0.1 ms for a paragraph).
_PREFERENCE_WORDS = re.compile(
    "prefer|rather|from now on|next time|stick|ever|forget|going forward|future|"
    "as a rule|please|make sure|remember|convention|always|by default|in this"
)
# Likewise for CORRECTION_RULES: each alternative holds one of these words, or is
# anchored at the start on "no", "nope" or "nah".
_CORRECTION_WORDS = re.compile(
    "stop|wait|hold on|hang on|undo|revert|not|why|incorrect|wrong|should|said|told|"
    "asked|broke|deleted|removed|forgot|missed|ignored|skipped|changed|don|actually|"
    "instead|rather|switch|back|didn|never|meant|isn|wasn|supposed|too"
)


def _folded(text: str) -> str:
    """``text`` as IGNORECASE compares it: casefolded, with the two letters it also
    takes for an i ("ı", and "İ", which casefolds to "i" and a combining dot)."""
    return text.casefold().replace("ı", "i").replace("\u0307", "")


def cue_kind(text: str) -> str | None:
    """What the cue phrases say a message is: PREFERENCE, CORRECTION or None; a stated
    rule counts as a preference even when it corrects. The rules run only on a message
    holding one of their words (the same answer, found sooner)."""
    if _PREFERENCE_WORDS.search(_folded(text)) and PREFERENCE_RULES.search(text):
        return PREFERENCE
    head = text.lstrip(" \t\"'*>-").lstrip()
    folded = _folded(head)
    said = folded.startswith(("no", "nah")) or _CORRECTION_WORDS.search(folded)
    if said and CORRECTION_RULES.search(head):
        return CORRECTION
    return None


def _cue_at(text: str) -> int:
    """Where the first sentence holding a cue phrase of its own starts (0 when none
    does alone): a person pastes a log, then says "no, …" or "from now on …", and the
    quote, cut at 300 characters, must reach the words that made it a moment."""
    starts = sentence_starts(text)
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        if cue_kind(text[start:end]) is not None:
            return start
    return 0


def _from(text: str, at: int) -> str:
    """The message from the sentence that carried its weight, when that sentence is far
    enough in for a cut quote to miss it."""
    return text if at < LEAD else "… " + text[at:]


def _before(turns: Sequence[Turn], index: int) -> str:
    """The words the user message at ``index`` follows: the agent's words and calls
    since the previous user message, and that message (the last few turns only)."""
    said: list[str] = []
    for turn in reversed(turns[max(0, index - CONTEXT_TURNS) : index]):
        if turn.role != RESULT:  # a tool's output would share words with anything
            said.append(turn.text)
        if turn.role == USER:
            break
    return " ".join(said)


def _next_agent(turns: Sequence[Turn], index: int) -> tuple[str, int] | None:
    for turn in turns[index + 1 : index + 8]:
        if turn.role == USER:
            return None
        if turn.role in (AGENT, CALL) and turn.text:
            text = turn.text if turn.role == AGENT else f"{turn.tool or 'tool'}: {turn.text}"
            return text, turn.number
    return None


def _recovery(turns: Sequence[Turn], index: int) -> Moment | None:
    """The failure at ``index``, when another try at it then worked and nobody meant it
    to fail."""
    failed = turns[index]
    call = _call_before(turns, index)
    if call is None or _intended(turns, index):
        return None
    said, first = "", True  # the agent's words before its first call since the failure
    for later in range(index + 1, min(len(turns), index + RECOVERY_WINDOW)):
        turn = turns[later]
        if turn.role == USER:
            return None
        said += f" {turn.text}" if turn.role == AGENT and first else ""
        if turn.role != CALL:
            continue
        another_way, first = first and says_another_way(said), False
        if not _another_try(call, turn, another_way):
            continue
        result = _result_after(turns, later)
        if result is not None and not result.failed:
            said = f"{call.tool or 'tool'}: {call.text}\n→ {_first_line(failed.text)}"
            worked = f"{turn.tool or 'tool'}: {turn.text}"
            return Moment(RECOVERY, call.number, call.time, said, worked, turn.number)
    return None


def _another_try(failed: Turn, later: Turn, another_way: bool) -> bool:
    """Whether ``later`` tries again what ``failed`` did: the same tool with another
    input, and for a shell the same program or a main word in common, or the agent
    said right before it that it is another way (an unrelated command that worked
    recovers nothing)."""
    if later.tool != failed.tool or later.text == failed.text:
        return False
    return not is_shell(failed.tool) or another_way or same_attempt(failed.text, later.text)


def _call_before(turns: Sequence[Turn], index: int) -> Turn | None:
    for turn in reversed(turns[max(0, index - 6) : index]):
        if turn.role == CALL:
            return turn
    return None


def _result_after(turns: Sequence[Turn], index: int) -> Turn | None:
    for turn in turns[index + 1 : index + 6]:
        if turn.role == RESULT:
            return turn
        if turn.role == USER:
            return None
    return None


def _intended(turns: Sequence[Turn], index: int) -> bool:
    """Whether the words around the failure say it was meant (a red test first): what
    was said since the previous tool result, and the agent's next words."""
    before = []
    for turn in reversed(turns[:index]):
        if turn.role == RESULT:
            break
        if turn.role in (AGENT, USER):
            before.append(turn.text)
        if turn.role == USER:
            break
    after = next((t.text for t in turns[index + 1 : index + 4] if t.role == AGENT), "")
    return any(INTENDED_FAILURE.search(text) for text in (*before, after))


_EXIT = re.compile(r"^(?:Exit code|exit status|exited with) -?\d+$", _I)
# A banner or a rule ("=== test session starts ===", "___ test_x ___"), or the header
# of a traceback: they open an error's output and say nothing of what failed.
_BANNER = re.compile(
    r"^(?:[=_*#~-]{3,}.*[=_*#~-]{3,}|[=_*#~-]+|Traceback \(most recent call last\):)$"
)
# A line that names the failure: a test runner's FAILED line, an exception's name.
_TELLING = re.compile(r"^(?:FAILED|ERROR)\b|^[\w.]*(?:Error|Exception)\b:?", _I)


def _first_line(text: str) -> str:
    """The error's telling line (a test runner's FAILED line, a traceback's exception,
    else the first line that is not a banner); a bare exit status goes before it."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    status = lines.pop(0) if len(lines) > 1 and _EXIT.match(lines[0]) else ""
    said = [line for line in lines if not _BANNER.match(line)] or lines
    if not said:
        return "(no output)"
    telling = next((line for line in said if _TELLING.match(line)), said[0])
    return f"{status}: {telling}" if status else telling
