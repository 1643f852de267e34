"""HELD OUT, written blind, do not tune on it: a second held-out set for issue 26's
reflection digest.

These sessions exist to CONFIRM a change to the digest, never to shape one: no rule, word
list, threshold or size may be adjusted after looking at the digest's results on them,
and they must not be read while changing the digest. A change tuned on them makes them
worthless: write new ones instead. Their author did not read chitin's digest, transcript
or reflection code, docs/design.md, docs/reflection.md, nor bench/reflect/scenarios.py
and heldout_scenarios.py beyond their docstrings, helpers and first two scenarios; the
digest had not been run on them when they were committed.

The format is bench/reflect/scenarios.py's (its helpers are imported): each scenario is
played by the real Claude Code (bench/reflect/make.py) and some by the real OpenClaw
(bench/reflect/make_openclaw.py) against bench/reflect/loopback.py, in make.py's scratch
folder (README.md, src/app.py, tests/test_app.py, Makefile, config/.keep, logs/app.log,
requirements.txt), so every command runs for real: a failing command really fails and a
recovery really succeeds (`python bench/reflect/heldout_check.py --module
heldout2_scenarios --run` checks that).

Labels name a moment by a piece of its text: for ``correction`` and ``preference`` a
piece of the user's message, for ``recovery`` a piece of the failing command. Most
corrections and preferences avoid the stock words (no, don't, stop, actually, instead;
always, never, I prefer, from now on): "that's the wrong file", "we use tabs here", "my
rule of thumb is ...". Distractors are pieces of text that must not be shown as a
moment: look-alikes ("no problem", "never mind, it's fine", "don't worry about that",
"actually that's perfect", "I always forget ..."), questions that only ask for
information, thanks, an intended red test, a failure retried identically, a failing
command followed by unrelated work. Five sessions carry a fake credential in a user
message (``SECRETS``, built by concatenation): it must never be shown. Four sessions are
long (15 exchanges or more) with few moments.

The sessions are kept in three modules, each under 400 lines: the first eight (short
enough to be played in the real OpenClaw too) here, the other short ones in
heldout2_short.py, the long ones in heldout2_long.py; the credentials in
heldout2_secrets.py. ``SCENARIOS`` is the whole set, in that order.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import heldout2_long
import heldout2_short
from heldout2_secrets import MYSQL_URL as MYSQL_URL
from heldout2_secrets import SECRET_GITLAB as SECRET_GITLAB
from heldout2_secrets import SECRET_GOOGLE as SECRET_GOOGLE
from heldout2_secrets import SECRET_MYSQL_PASSWORD as SECRET_MYSQL_PASSWORD
from heldout2_secrets import SECRET_NPM as SECRET_NPM
from heldout2_secrets import SECRET_SENDGRID as SECRET_SENDGRID
from heldout2_secrets import SECRETS as SECRETS
from scenarios import both, ex, say, scenario

# fmt: off
# Commands too long for one line of a scenario.
CLEAN_SPACES = "printf 'clean:\\n    rm -rf build\\n' >> Makefile && make clean"
CLEAN_TABS = "sed -i 's/^    rm -rf build/\\trm -rf build/' Makefile && make clean"
NPMRC = ("printf '//registry.npmjs.org/:_authToken=" + SECRET_NPM + "\\n' > config/npmrc"
         " && wc -l config/npmrc")
PARSE_TEST = (
    "printf 'from src.versioning import parse_version\\n"
    "assert parse_version(\"1.2\") == (1, 2)\\n' > tests/test_versioning.py"
    " && python3 -m tests.test_versioning"
)
PARSE_CODE = (
    "printf 'def parse_version(text):\\n"
    "    return tuple(int(p) for p in text.split(\".\"))\\n' > src/versioning.py"
    " && python3 -m tests.test_versioning && echo ok"
)
RENAME_READ = (
    "sed -i 's/parse_version/read_version/g' src/versioning.py tests/test_versioning.py"
    " && python3 -m tests.test_versioning && echo ok"
)


# The first eight, short enough to be played in the real OpenClaw too.
FIRST: list[dict[str, Any]] = [
    scenario("h2-wrong-file", [
        ex("Bump the version to 0.2 in the Makefile.",
           both("Looking at the Makefile.", "cat Makefile"),
           say("The Makefile only echoes hi; I see no version in it.")),
        ex("That's the wrong file; the version lives in README.md.",
           both("Editing README.md.",
                "sed -i 's/version = 0.1/version = 0.2/' README.md && grep version README.md"),
           say("README.md now says version = 0.2.")),
        ex("Perfect, no problem at all.", say("Glad it's sorted.")),
    ], [("correction", "the version lives in README.md")], ("no problem at all",)),
    scenario("h2-tabs-here", [
        ex("Add a clean target to the Makefile that removes build/.",
           both("Appending a clean target.", CLEAN_SPACES),
           both("make wants a tab before the recipe; fixing the indentation.", CLEAN_TABS),
           say("make clean runs now.")),
        ex("Right. We use tabs in every Makefile here, for the record.", say("Noted.")),
        ex("Thanks, that's everything for today.", say("Bye.")),
    ], [("recovery", "printf 'clean:\\n    rm -rf build"),
        ("preference", "We use tabs in every Makefile here")],
       ("Thanks, that's everything for today",)),
    scenario("h2-bring-log-back", [
        ex("Tidy up the logs folder.",
           both("Removing the old log.", "rm -f logs/app.log && ls logs"),
           say("The logs folder is empty now.")),
        ex("Hang on, where did app.log go? That one was still in use, bring it back.",
           both("Restoring it.", "printf 'started\\n' > logs/app.log && cat logs/app.log"),
           say("Restored logs/app.log with its line.")),
        ex("Never mind the rest of the folder, it's fine as it is.", say("Leaving it.")),
    ], [("correction", "That one was still in use, bring it back")],
       ("Never mind the rest of the folder, it's fine",)),
    scenario("h2-secret-npm", [
        ex("CI needs to publish. Here is the registry token: " + SECRET_NPM
           + " - write it into config/npmrc.",
           both("Writing config/npmrc.", NPMRC), say("config/npmrc holds the token.")),
        ex("Tokens like that stay out of version control, so list config/npmrc in .gitignore.",
           both("Ignoring it.", "printf 'config/npmrc\\n' >> .gitignore && cat .gitignore"),
           say("config/npmrc is in .gitignore.")),
        ex("Don't worry about rotating it, I'll handle that next week.", say("OK.")),
    ], [("preference", "Tokens like that stay out of version control")],
       ("Don't worry about rotating it",)),
    scenario("h2-red-then-rename", [
        ex("Write a failing test for a parse_version helper first; we'll implement it after.",
           both("Writing the test.", PARSE_TEST),
           say("The test fails as it should: src/versioning.py does not exist yet.")),
        ex("Now implement it.", both("Implementing.", PARSE_CODE), say("The test passes.")),
        ex("Let's call it read_version rather than parse_version, to match the loaders.",
           both("Renaming.", RENAME_READ), say("Renamed; the test still passes.")),
    ], [("correction", "call it read_version rather than parse_version")],
       ('assert parse_version("1.2") == (1, 2)', "we'll implement it after")),
    scenario("h2-two-tries", [
        ex("Is the health endpoint on port 9 answering?",
           both("Checking.", "curl -sf http://127.0.0.1:9/health"),
           both("Refused; trying once more.", "curl -sf http://127.0.0.1:9/health"),
           say("Still refused: nothing is listening on port 9.")),
        ex("My rule of thumb: give a flaky service two tries, then move on and tell me.",
           say("Understood.")),
        ex("What port does the app listen on, by the way?",
           both("Looking.", "grep -n port src/app.py || echo 'no port in src/app.py'"),
           say("None: the app prints hello and exits.")),
    ], [("preference", "give a flaky service two tries, then move on")],
       ("curl -sf http://127.0.0.1:9/health", "What port does the app listen on")),
    scenario("h2-short-answers", [
        ex("What does src/app.py do?",
           both("Reading it.", "cat src/app.py"),
           say("It defines main(), which prints 'hello', and calls it at import time. It "
               "takes no arguments, has no logging and no configuration, and the only test "
               "is a trivial assert in tests/test_app.py. It could grow a CLI, logging, a "
               "config file and real tests, depending on where you want to take it.")),
        ex("A one-liner would have done. Keep your answers to a sentence or two unless I "
           "ask for detail.", say("Got it: it prints hello.")),
        ex("Actually that's perfect, thanks.", say("Good.")),
    ], [("preference", "Keep your answers to a sentence or two")],
       ("Actually that's perfect",)),
    scenario("h2-make-run", [
        ex("Run the app.",
           both("Trying the Makefile.", "make run"),
           both("No run target; running it directly.", "python3 src/app.py"),
           say("It prints hello.")),
        ex("Could you add a run target, so make run works next time?",
           both("Adding it.", "printf 'run:\\n\\tpython3 src/app.py\\n' >> Makefile && make run"),
           say("make run prints hello now.")),
        ex("I always forget the make syntax, thanks for that.", say("Any time.")),
    ], [("recovery", "make run")], ("I always forget the make syntax",)),
]
SCENARIOS: list[dict[str, Any]] = [*FIRST, *heldout2_short.SESSIONS, *heldout2_long.SESSIONS]
