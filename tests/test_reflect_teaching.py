"""Every user message is a candidate moment, weighed by the evidence that it teaches
(issue 26, model/teaching.py): phrasings without the cue words are found, look-alikes
are not, the opening task is not a lesson, and the digest fills its size by weight."""

from __future__ import annotations

from typing import Any

import pytest

from chitin.model.digest import make_digest
from chitin.model.moments import CORRECTION, PREFERENCE, RECOVERY, find_moments, said_kind
from chitin.model.transcript import AGENT, CALL, RESULT, USER, Turn


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # Rules and corrections in words no cue list holds.
        ("Whenever you touch the schema, bump the migration number.", PREFERENCE),
        ("Every time you open a PR, add a changelog entry.", PREFERENCE),
        ("I'd like the log lines to carry a timestamp.", PREFERENCE),
        ("Tests should live next to the code they test.", PREFERENCE),
        ("Commit messages need to be in the imperative mood.", PREFERENCE),
        ("We use four spaces for indentation here.", PREFERENCE),
        ("My preference is small pull requests.", PREFERENCE),
        ("Please keep commit subjects under fifty characters.", PREFERENCE),
        ("I was hoping for the failing tests only, not the whole suite.", CORRECTION),
        ("What I needed was the diff, not the whole file.", CORRECTION),
        ("It should be a constant, not a global variable.", CORRECTION),
        ("Put it in the settings module.", CORRECTION),
        ("Move that into a helper function.", CORRECTION),
        ("You used the old client again.", CORRECTION),
        ("That one is fine, but the second one has a typo.", CORRECTION),
        ("Two spaces, please, not four.", CORRECTION),
        ("Can you revert the formatting changes? I only wanted the bug fix.", CORRECTION),
        ("Not the whole module, just the parse function.", CORRECTION),
        ("Type hints on every public function, please.", PREFERENCE),
        ("Our docs are written in British English.", PREFERENCE),
        ("When a test is flaky, mark it and tell me rather than retrying it.", PREFERENCE),
        # Look-alikes: thanks, go-aheads, questions, deferrals, remarks, next steps.
        ("Thanks a lot, that helps.", None),
        ("Perfect, ship it.", None),
        ("Yes, do that.", None),
        ("Wait, never mind, it's fine.", None),
        ("Could you also show the version?", None),
        ("What does this function return?", None),
        ("Let's look at it tomorrow.", None),
        ("Let me think about it.", None),
        ("Now run the full test suite.", None),
        ("The build takes ages on this laptop, odd.", None),
        ("The CI is red again today, not your fault.", None),
        ("I was surprised it worked at all.", None),
        ("Right, makes sense.", None),
        ("I'll be back in ten minutes.", None),
        ("Nope, all good here.", None),
        ("Great, and now the release notes.", None),
    ],
)
def test_a_message_without_cue_words_is_weighed_by_its_english(text: str, kind: str | None) -> None:
    assert said_kind(text) == kind


def turn(number: int, role: str, text: str, failed: bool = False) -> Turn:
    return Turn(number, None, role, text, failed, "Bash" if role in (CALL, RESULT) else "")


def test_the_opening_task_is_not_a_lesson_but_the_same_words_after_the_work_are() -> None:
    order = "Put the results in a table."
    opening = [turn(1, USER, order), turn(2, AGENT, "Here are the results: a, b.")]
    assert find_moments(opening) == []
    later = [*opening, turn(3, USER, order), turn(4, AGENT, "Done, as a table.")]
    [moment] = find_moments(later)
    assert (moment.kind, moment.number, moment.then_number) == (CORRECTION, 3, 4)


def test_a_rule_in_the_opening_message_is_kept() -> None:
    said = [turn(1, USER, "From now on, answer in French. List the files."), turn(2, AGENT, "…")]
    assert [(m.kind, m.number) for m in find_moments(said)] == [(PREFERENCE, 1)]


def session(extra: int) -> list[Turn]:
    """A failure and its recovery, a stated rule, and ``extra`` plain orders about the
    work, each long."""
    turns: list[Any] = [
        turn(1, USER, "Build the docs."),
        turn(2, CALL, "make docs"),
        turn(3, RESULT, "Exit code 2\nno rule to make target", failed=True),
        turn(4, CALL, "make -C docs html"),
        turn(5, RESULT, "built"),
        turn(6, AGENT, "Built the docs."),
    ]
    for i in range(extra):
        turns += [turn(7 + 2 * i, USER, f"Put section {i} of the docs " + "in a table " * 20),
                  turn(8 + 2 * i, AGENT, "Done with the docs.")]  # fmt: skip
    turns.append(turn(99, USER, "From now on, always build the docs with -W."))
    return turns


def test_the_digest_fills_its_size_by_weight_and_shows_in_transcript_order() -> None:
    turns = session(12)
    assert len(find_moments(turns)) == 14
    digest = make_digest(turns, {}, "s", characters=1_500)
    kinds = [(m.kind, m.number) for m in digest.moments]
    # The stated rule outweighs the plain orders, which outweigh the recovery (a
    # person's words first: fix137); the short recovery fits in the room they leave.
    assert kinds[0] == (RECOVERY, 2) and kinds[-1] == (PREFERENCE, 99)
    assert [m.number for m in digest.moments] == sorted(m.number for m in digest.moments)
    assert digest.omitted == 14 - len(digest.moments) > 0


def test_a_session_with_nothing_to_learn_has_no_moment() -> None:
    said = [
        turn(1, USER, "What does app.py do?"),
        turn(2, CALL, "cat app.py"),
        turn(3, RESULT, "print('hi')"),
        turn(4, AGENT, "It prints hi."),
        turn(5, USER, "Great, thanks. No rush on the rest."),
        turn(6, AGENT, "You're welcome."),
        turn(7, USER, "Is there a faster way to run it?"),
    ]
    assert find_moments(said) == []


def test_a_long_message_is_quoted_from_the_sentence_that_teaches() -> None:
    chatter = "The logs from yesterday were long and I read them over lunch with care. " * 3
    rule = "Whenever you touch the parser, add a regression test."
    said = [
        turn(1, USER, "Fix the parser."),
        turn(2, AGENT, "Fixed it in parser.py."),
        turn(3, USER, f"Thanks for looking at it. {chatter}{rule}"),
    ]
    [moment] = find_moments(said)
    assert moment.kind == PREFERENCE and moment.quote == f"… {rule}"
    digest = make_digest(said, {}, "s")
    assert rule in digest.moments[0].quote
