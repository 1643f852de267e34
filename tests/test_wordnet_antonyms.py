"""The ninth round's opposites, from WordNet (docs/design.md §9e): read as conflicts
by the judgement, and the script that finds them, run on a small database in
WordNet's own format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from chitin.retrieval.judgement import CONFLICT, Side, judge
from chitin.retrieval.lexicon import ANTONYMS

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "antonyms_from_wordnet.py"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Describe the change in the past tense", "Describe the change in the present tense"),
        ("The deadline for the migration is realistic", "The migration's deadline is unrealistic"),
        ("Treat the flaky build as an acute problem", "Treat the flaky build as a chronic problem"),
        ("Come to the incident review prepared", "Come to the incident review unprepared"),
    ],
)
def test_wordnet_opposites_are_conflicts(first: str, second: str) -> None:
    # Near in meaning (the model embeds the poles close): a duplicate without the pair.
    assert judge(Side("skill", first), Side("skill", second), 0.9).kind == CONFLICT
    assert judge(Side("skill", second), Side("skill", first), 0.9).kind == CONFLICT


def test_the_ninth_round_left_out_what_the_header_leaves_out() -> None:
    words = {word for pair in ANTONYMS for word in pair}
    assert ("past", "present") in ANTONYMS
    assert not words & {"up", "down", "good", "bad", "new", "old", "husband", "wife"}


# A head adjective "swift" with a satellite "rapid" against "sluggish"; "warm"/"chilly"
# whose "warm" sense is not its first; "fine"/"poor", left out as "good"/"bad" are not
# but "fine" is too rare here; "kind"/"unkind"; nouns of feeling and of persons.
ADJECTIVES = """  1 This is WordNet's licence header, as the real files have it.
00001000 00 a 01 swift 0 002 ! 00001100 a 0101 & 00001200 s 0000 | moving fast
00001100 00 a 01 sluggish 0 001 ! 00001000 a 0101 | moving slowly
00001200 00 s 01 rapid 0 001 & 00001000 a 0000 | done with speed
00001300 00 a 01 warm 0 001 ! 00001400 a 0101 | of some heat
00001400 00 a 01 chilly 0 001 ! 00001300 a 0101 | of little heat
00001500 00 a 01 kind 0 001 ! 00001600 a 0101 | having a friendly nature
00001600 00 a 01 unkind 0 001 ! 00001500 a 0101 | lacking kindness
00001700 00 a 01 good 0 001 ! 00001800 a 0101 | having desirable qualities
00001800 00 a 01 bad 0 001 ! 00001700 a 0101 | having undesirable qualities
"""
NOUNS = """00002000 12 n 01 joy 0 001 ! 00002100 n 0101 | a feeling of happiness
00002100 12 n 01 sorrow 0 001 ! 00002000 n 0101 | a feeling of sadness
00002200 18 n 01 husband 0 001 ! 00002300 n 0101 | a married man
00002300 18 n 01 wife 0 001 ! 00002200 n 0101 | a married woman
"""
COUNTS = """swift%3:00:00:: 1 10
sluggish%3:00:00:: 1 6
rapid%5:00:00:swift:00 1 5
warm%3:00:00:: 2 4
warm%3:00:01:: 1 40
chilly%3:00:00:: 1 3
kind%3:00:00:: 1 9
kind%1:09:00:: 1 60
unkind%3:00:00:: 1 2
good%3:00:00:: 1 90
bad%3:00:00:: 1 50
joy%1:12:00:: 1 8
sorrow%1:12:00:: 1 4
husband%1:18:00:: 1 9
wife%1:18:00:: 1 12
"""


def run(folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    data = [str(folder / "data.adj"), str(folder / "data.noun")]
    vocab = ["--vocab", str(folder / "vocab")]
    return subprocess.run(
        [sys.executable, str(SCRIPT), *data, *vocab, "--all", *options],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def database(tmp_path: Path) -> Path:
    (tmp_path / "data.adj").write_text(ADJECTIVES, encoding="latin-1")
    (tmp_path / "data.noun").write_text(NOUNS, encoding="latin-1")
    (tmp_path / "cntlist.rev").write_text(COUNTS, encoding="latin-1")
    words = "swift sluggish rapid warm chilly kind good bad joy sorrow husband wife"
    (tmp_path / "vocab").write_text("\n".join(words.split()) + "\n", encoding="utf-8")
    return tmp_path


def pairs(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stderr
    return [line.split("\t")[0] for line in done.stdout.splitlines()]


def test_direct_antonyms_in_their_common_sense(database: Path) -> None:
    found = pairs(run(database, "--counts", str(database / "cntlist.rev")))
    # warm/chilly: "warm" is tagged more in another sense; kind/unkind: the noun "kind"
    # ("a kind of") is most of its uses; good/bad: left out; husband/wife: persons.
    assert found == ["swift/sluggish", "joy/sorrow"]


def test_without_counts_every_sense_passes_but_the_rules_about_words_hold(
    database: Path,
) -> None:
    found = pairs(run(database))
    assert found == ["swift/sluggish", "warm/chilly", "kind/unkind", "joy/sorrow"]


def test_satellites_of_a_head_oppose_the_other_head(database: Path) -> None:
    found = pairs(run(database, "--counts", str(database / "cntlist.rev"), "--satellites"))
    assert found == ["swift/sluggish", "rapid/sluggish", "joy/sorrow"]


def test_a_missing_file_is_one_line_and_exit_1(database: Path) -> None:
    done = run(database, "--counts", str(database / "nowhere.rev"))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [f"error: no such file: {database}/nowhere.rev"]
