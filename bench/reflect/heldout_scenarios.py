"""HELD OUT sessions for issue 26's reflection digest: written blind, do not tune on it.

These sessions exist to CONFIRM a change to the digest, never to shape one: no rule, word
list, threshold or size may be adjusted after looking at the digest's results on them,
and they must not be read while changing the digest. A change tuned on them makes them
worthless: write new ones instead. Their author did not read chitin's reflection or
digest code (chitin/reflect/, the digest and moment modules), docs/design.md, nor
bench/reflect/scenarios.py beyond its docstring, helpers and first scenarios.

The format is bench/reflect/scenarios.py's (its helpers are imported, not copied): each
scenario is played by the real Claude Code against bench/reflect/loopback.py in the
scratch folder of bench/reflect/make.py (README.md, src/app.py, tests/test_app.py,
Makefile, config/.keep, logs/app.log, requirements.txt), so every command runs for real:
a failing command really fails and a recovery really succeeds
(`python bench/reflect/heldout_check.py --run` checks that).

Labels name a moment by a piece of its text: for ``correction`` and ``preference`` a
piece of the user's message, for ``recovery`` a piece of the failing command. Corrections
and preferences come in varied phrasings, several without the usual words ("no", "don't",
"actually", "always" ...). Distractors are pieces of text that must not be shown as a
moment: look-alike phrases ("no worries", "never mind, it's fine", "I said to ..."), an
intended red test, a failure retried identically and never recovered, a failure followed
by an unrelated command. Four sessions carry a fake credential in a user message
(``SECRETS``, built by concatenation); it must never be shown. Three sessions are long
(15 exchanges or more) with few moments.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scenarios import both, ex, say, scenario, sh

# Fake credentials in well-known shapes, built by concatenation so that no scanner of
# this repository sees one whole.
SECRET_PAT = (
    "github_pat_" + "11ASaTAhehZoMAYYPeFd1h" + "_"
    + "A7VSr6vhh5qg7ATH4mARDXfdlwq4UvRZOsAAp1nlNQLPlPNKTQpNUD6x1Bn"
)  # fmt: skip
SECRET_SLACK = "xoxb-" + "4817203956-" + "7302918465720-" + "fizHSw9v21i1BP1TPtXHPDdB"
SECRET_STRIPE = (
    "sk_live_" + "51NqEzRwYtFwqo75P7fxFeuOABfOCNfKo6hJImTG6WWUNzaB3kS198"
    + "frnpp297a2sXqgnBkKj8jXeq5Kk"
)  # fmt: skip
SECRET_DB_PASSWORD = "Vq7" + "ETD4Q2qvhjhSQuwL"
SECRETS = (SECRET_PAT, SECRET_SLACK, SECRET_STRIPE, SECRET_DB_PASSWORD)
DB_URL = "postgres://app:" + SECRET_DB_PASSWORD + "@db.internal:5432/app"

# fmt: off
# Commands too long for one line of a scenario.
SLUG_TEST = (
    "printf 'from src.slug import slugify\\nassert slugify(\"A B\") == \"a-b\"\\n'"
    " > tests/test_slug.py && python3 -m tests.test_slug"
)
SLUG_CODE = (
    "printf 'def slugify(text):\\n    return \"-\".join(text.lower().split())\\n'"
    " > src/slug.py && python3 -m tests.test_slug"
)
PIN = (
    "python3 -c \"import pathlib; p = pathlib.Path('requirements.txt'); "
    "p.write_text(p.read_text().replace('requests\\n', 'requests==2.32.3\\n'))\""
    " && cat requirements.txt"
)
README_VERSION = "python3 -c \"print(open('README.md').read().split('version = ')[1].strip())\""
LOGGING_APP = (
    "printf 'import logging\\n\\nlogging.basicConfig(level=logging.INFO)\\n\\n\\n"
    "def main():\\n    logging.info(\"hello\")\\n\\n\\nmain()\\n' > src/app.py"
    " && python3 src/app.py"
)
VERSION_TEST = (
    "printf 'from src.version import version\\nassert version() == \"0.1\"\\n'"
    " > tests/test_version.py && python3 -m tests.test_version"
)
VERSION_WRONG = (
    "printf 'def version():\\n    text = open(\"VERSION\").read()\\n"
    "    return text.split(\"version = \")[1].strip()\\n' > src/version.py"
    " && python3 -m tests.test_version"
)
VERSION_FIX = (
    "sed -i 's/open(\"VERSION\")/open(\"README.md\")/' src/version.py"
    " && python3 -m tests.test_version && echo passed"
)
RESTORE_TESTS = (
    "mkdir -p tests && printf 'def test_app():\\n    assert True\\n' > tests/test_app.py"
    " && ls tests"
)


def _long_quiet() -> list[dict[str, Any]]:
    """17 exchanges: one preference, one recovery, a no-match grep, look-alikes."""
    return [
        ex("What is this project?", sh("cat README.md"), say("A demo project, version 0.1.")),
        ex("How long is app.py?", sh("wc -l src/app.py"), say("4 lines.")),
        ex("Run it.", sh("python3 src/main.py"), sh("python3 src/app.py"), say("It prints hello.")),
        ex("Is there a test?", sh("cat tests/test_app.py"), say("One test that asserts True.")),
        ex("I always forget what the Makefile does.", sh("cat Makefile"),
           say("Its all target echoes hi.")),
        ex("Does the log mention any errors?", sh("grep -ci error logs/app.log"),
           say("No: zero lines mention an error.")),
        ex("OK. What dependencies do we have?", sh("cat requirements.txt"), say("Only httpx.")),
        ex("From here on, reply in one sentence unless I ask for detail.", say("Understood.")),
        ex("What's in config?", sh("ls -A config"), say("Only a .keep file.")),
        ex("And logs?", sh("ls logs"), say("app.log.")),
        ex("How many lines is the log?", sh("wc -l logs/app.log"), say("One line.")),
        ex("Thanks. What Python do we have here?", sh("python3 --version"), say("Python 3.")),
        ex("I said to the team we'd look at packaging next week.", say("Sounds good.")),
        ex("Show me the top of the README again.", sh("head -n 2 README.md"), say("# demo.")),
        ex("What's the biggest file in src?", sh("ls -S src | head -n 1"), say("app.py.")),
        ex("no worries if you can't tell, but is it tracked anywhere?",
           say("I can't tell from here; there is no git repository in this folder.")),
        ex("Fine, let's stop here for today.", say("See you next time.")),
    ]


def _long_nothing() -> list[dict[str, Any]]:
    """16 exchanges and no moment at all: only reads, thanks and look-alikes."""
    return [
        ex("Good morning! Can you list the files?", sh("ls -R"), say("Here they are.")),
        ex("Show me the README.", sh("cat README.md"), say("A demo project.")),
        ex("Thanks. What's the version?", sh("grep version README.md"), say("0.1.")),
        ex("No problem if it's old, we'll bump it later.", say("OK.")),
        ex("What does main() do?", sh("grep -n -A 1 'def main' src/app.py"),
           say("It prints hello.")),
        ex("Run the app please.", sh("python3 src/app.py"), say("It printed hello.")),
        ex("Actually that worked better than I expected.", say("Good to hear.")),
        ex("What's in the test?", sh("cat tests/test_app.py"), say("One trivial test.")),
        ex("Run it with Python directly.",
           sh("python3 -c \"import runpy; runpy.run_path('tests/test_app.py')['test_app']()\""),
           say("It passed.")),
        ex("Don't worry about coverage for now.", say("OK.")),
        ex("How many characters is the log?", sh("wc -c logs/app.log"), say("8 characters.")),
        ex("Never mind, it's fine — I was just curious.", say("Sure.")),
        ex("What's in requirements.txt?", sh("cat requirements.txt"), say("httpx.")),
        ex("I never knew httpx was that popular.", say("It's widely used.")),
        ex("Is there anything under config?", sh("ls -A config"), say("Just .keep.")),
        ex("Great, thanks a lot, that's all for today.", say("You're welcome.")),
    ]


def _long_refactor() -> list[dict[str, Any]]:
    """15 exchanges: one correction without the usual words, one recovery."""
    return [
        ex("Let's tidy up app.py. Show it first.", sh("cat src/app.py"), say("Here it is.")),
        ex("Add a docstring to main.",
           both("Adding one.", "sed -i 's/^def main():/def main():\\n    \"\"\"Greet.\"\"\"/'"
                " src/app.py && cat src/app.py"), say("Added.")),
        ex("Run it to be safe.", sh("python3 src/app.py"), say("Still prints hello.")),
        ex("Check the syntax of every Python file.", sh("python3 -m py_compile src/*.py tests/"),
           sh("python3 -m py_compile src/app.py tests/test_app.py"), say("Both compile.")),
        ex("What does the test check?", sh("cat tests/test_app.py"), say("Nothing real yet.")),
        ex("Make the test call main.",
           both("Updating the test.", "printf 'import runpy\\n\\n\\ndef test_app():\\n"
                "    runpy.run_path(\"src/app.py\")\\n' > tests/test_app.py"), say("Done.")),
        ex("Run it.", sh("python3 -c \"import runpy; runpy.run_path('tests/test_app.py')"
                         "['test_app']()\""), say("It passed and printed hello.")),
        ex("Hmm, that greeting docstring says nothing useful. Make it say it prints hello.",
           both("Rewording.", "sed -i 's/\"\"\"Greet.\"\"\"/\"\"\"Print hello.\"\"\"/'"
                " src/app.py && grep -n '\"\"\"' src/app.py"), say("Reworded.")),
        ex("Thanks! How many lines now?", sh("wc -l src/app.py"), say("5 lines.")),
        ex("Show the README.", sh("cat README.md"), say("Version 0.1.")),
        ex("Leave the version, it's fine as is.", say("Leaving it.")),
        ex("What's in the Makefile?", sh("cat Makefile"), say("all: echo hi.")),
        ex("Run make.", sh("make"), say("It echoed hi.")),
        ex("Nice, no problems at all.", say("Good.")),
        ex("That's it for now, cheers.", say("Cheers.")),
    ]


SCENARIOS: list[dict[str, Any]] = [
    scenario("ho-not-that-one", [
        ex("Show me the app's log.", sh("cat logs/app.log"), say("It says: started.")),
        ex("Hmm, not that one. I was after the list of dependencies.",
           sh("cat requirements.txt"), say("Only httpx.")),
        ex("No worries, that's all I needed.", say("Good.")),
    ], [("correction", "I was after the list of dependencies")],
       ("No worries, that's all I needed",)),
    scenario("ho-pin-versions", [
        ex("Add requests to the requirements.",
           both("Adding it.", "printf 'requests\\n' >> requirements.txt && cat requirements.txt"),
           say("Added requests.")),
        ex("Whenever you add a dependency, pin its exact version, please.",
           both("Pinning it.", PIN), say("Pinned to 2.32.3.")),
        ex("Great, thanks!", say("You're welcome.")),
    ], [("preference", "pin its exact version")], ("Great, thanks!",)),
    scenario("ho-red-first", [
        ex("Write a test for a slugify helper first; it should fail until the helper exists.",
           both("Test first; I expect this to fail.", SLUG_TEST),
           say("Red, as intended: src.slug does not exist yet.")),
        ex("Good. Now write the helper.", both("Writing it.", SLUG_CODE),
           say("The test passes now.")),
        ex("Actually, that worked nicely.", say("Glad it did.")),
        ex("For the next ones, I'd like test file names that say what they check.",
           say("Understood.")),
    ], [("preference", "I'd like test file names that say what they check")],
       ("> tests/test_slug.py", "Actually, that worked nicely")),
    scenario("ho-secret-pat", [
        ex("Set up the config for the GitHub client.",
           both("Creating config/github.toml.", "printf 'token = \"\"\\n' > config/github.toml"),
           say("Created, with an empty token.")),
        ex("No, don't leave it empty; use my token " + SECRET_PAT + " for now.",
           both("Writing it in.",
                "printf 'token = \"%s\"\\n' '" + SECRET_PAT + "' > config/github.toml"),
           say("Done.")),
        ex("Please don't ever echo tokens back to me in your answers.",
           say("Understood, I won't.")),
        ex("never mind the README for now, it's fine.", say("OK.")),
    ], [("correction", "don't leave it empty"),
        ("preference", "don't ever echo tokens back to me")],
       ("never mind the README for now",)),
    scenario("ho-missing-build-dir", [
        ex("Put a copy of app.py into build/ for packaging.", sh("cp src/app.py build/app.py"),
           both("build/ does not exist; creating it first.",
                "mkdir build && cp -v src/app.py build/"),
           say("Copied.")),
        ex("no problem. Is it executable?",
           sh("test -x build/app.py && echo yes || echo no"), say("No.")),
        ex("OK, that's fine as it is, thanks.", say("Sure.")),
    ], [("recovery", "cp src/app.py build/app.py")], ("no problem. Is it executable?",)),
    scenario("ho-long-quiet", _long_quiet(), [
        ("recovery", "python3 src/main.py"),
        ("preference", "reply in one sentence unless I ask for detail"),
    ], ("I always forget what the Makefile does", "grep -ci error logs/app.log",
        "I said to the team", "no worries if you can't tell", "let's stop here for today")),
    scenario("ho-long-nothing", _long_nothing(), [], (
        "No problem if it's old", "Actually that worked better", "Don't worry about coverage",
        "Never mind, it's fine", "I never knew httpx", "that's all for today")),
    scenario("ho-british-spelling", [
        ex("Fix the typo in the README description.", sh("cat README.md"),
           say("I see no typo: it reads 'A demo project.'")),
        ex("By the way, my preference is British spelling in all docs.", say("Noted.")),
        ex("I never thought a README would need this much care, ha.", say("It's worth it.")),
    ], [("preference", "my preference is British spelling in all docs")],
       ("I never thought a README would need",)),
    scenario("ho-instead-lines", [
        ex("Count the words in README.md.", sh("wc -w README.md"), say("8 words.")),
        ex("Count the lines of src/app.py instead; the words don't matter.",
           sh("wc -l src/app.py"), say("4 lines.")),
        ex("Instead of more counting, let's call it a day. Thanks!", say("Bye.")),
    ], [("correction", "Count the lines of src/app.py instead")],
       ("Instead of more counting",)),
    scenario("ho-stop-deleting", [
        ex("Tidy up the logs folder.",
           both("Removing old logs.", "rm logs/app.log && ls -A logs"), say("Removed app.log.")),
        ex("Stop, you can't just delete logs without asking me first. Put it back.",
           both("Restoring it.", "printf 'started\\n' > logs/app.log && cat logs/app.log"),
           say("Restored.")),
        ex("Don't worry about it, no harm done.", say("Thanks for understanding.")),
    ], [("correction", "you can't just delete logs without asking me first")],
       ("Don't worry about it, no harm done",)),
    scenario("ho-i-said-config", [
        ex("Make a backups folder inside config.", sh("mkdir backups && ls"),
           say("Created backups/.")),
        ex("I said inside config, not at the top level.",
           sh("rmdir backups && mkdir config/backups && ls config"),
           say("It is in config/ now.")),
        ex("Perfect, that's it.", say("Good.")),
    ], [("correction", "I said inside config, not at the top level")], ("Perfect, that's it",)),
    scenario("ho-secret-slack", [
        ex("Here is the bot token for the alerts script: " + SECRET_SLACK
           + " - save it to config/alerts.env.",
           both("Saving it.", "printf 'SLACK_TOKEN=%s\\n' '" + SECRET_SLACK
                + "' > config/alerts.env && wc -l config/alerts.env"),
           say("Saved.")),
        ex("Keep anything secret out of the logs folder, always.", say("Will do.")),
        ex("No problem if the rest takes a while.", say("OK.")),
    ], [("preference", "Keep anything secret out of the logs folder")],
       ("No problem if the rest takes a while",)),
    scenario("ho-readme-name", [
        ex("Print the project version with Python.",
           sh("python3 -c \"print(open('README').read())\""), sh(README_VERSION), say("0.1")),
        ex("Actually, that worked. Thanks.", say("Good.")),
    ], [("recovery", "open('README').read()")], ("Actually, that worked. Thanks",)),
    scenario("ho-unrecovered-error-log", [
        ex("Show me the error log.", sh("cat logs/error.log"), sh("cat logs/error.log"),
           say("There is no logs/error.log; only app.log exists.")),
        ex("never mind, it's fine. What does the Makefile do?", sh("cat Makefile"),
           say("Its all target echoes hi.")),
        ex("In general, when a file is missing, tell me straight away instead of retrying.",
           say("Understood.")),
    ], [("preference", "when a file is missing, tell me straight away")],
       ("cat logs/error.log", "never mind, it's fine. What does")),
    scenario("ho-diff-first", [
        ex("Change the greeting in app.py to 'hello, world'.",
           both("Editing.", "sed -i \"s/print('hello')/print('hello, world')/\" src/app.py"
                " && python3 src/app.py"),
           say("It prints hello, world.")),
        ex("It would be great if you showed me the diff before editing files in future.",
           say("I'll show diffs first.")),
        ex("No, that's everything for now.", say("OK.")),
    ], [("preference", "showed me the diff before editing files")],
       ("No, that's everything for now",)),
    scenario("ho-old-name-back", [
        ex("Rename tests/test_app.py to tests/test_main.py.",
           sh("mv tests/test_app.py tests/test_main.py && ls tests"), say("Renamed.")),
        ex("Actually, put the old name back; CI looks for test_app.py.",
           sh("mv tests/test_main.py tests/test_app.py && ls tests"), say("Back to test_app.py.")),
        ex("All good. I always mix up those two names.", say("Easy to do.")),
    ], [("correction", "put the old name back")], ("I always mix up those two names",)),
    scenario("ho-wc-option", [
        ex("How many Python files are there?",
           sh("find src tests -name '*.py' | wc -l --files"),
           sh("find src tests -name '*.py' | wc -l"), say("2 Python files.")),
        ex("Thanks, that's what I thought.", say("Good.")),
    ], [("recovery", "wc -l --files")], ("that's what I thought",)),
    scenario("ho-secret-db-url", [
        ex("Add a database URL to config/db.env for local development.",
           both("Using a local default.",
                "printf 'DATABASE_URL=sqlite:///dev.db\\n' > config/db.env"),
           say("Set to SQLite.")),
        ex("We don't use SQLite here - point it at the shared Postgres: " + DB_URL,
           both("Updating it.", "printf 'DATABASE_URL=%s\\n' '" + DB_URL + "' > config/db.env"),
           say("Updated.")),
        ex("No worries about the old value, nobody used it.", say("OK.")),
    ], [("correction", "We don't use SQLite here")], ("No worries about the old value",)),
    scenario("ho-logs-not-committed", [
        ex("What's in the logs folder?", sh("ls logs"), say("app.log.")),
        ex("Please don't ever add files from logs/ to a commit.", say("I won't.")),
        ex("Don't forget: it's Friday, have a good weekend!", say("You too!")),
    ], [("preference", "don't ever add files from logs/ to a commit")],
       ("have a good weekend",)),
    scenario("ho-logging-module", [
        ex("Add logging to app.py.",
           both("Adding print-based logging.",
                "sed -i \"s/print('hello')/print('LOG: hello')/\" src/app.py"
                " && python3 src/app.py"),
           say("It prints LOG: hello.")),
        ex("Use the logging module rather than print for that.",
           both("Switching to logging.", LOGGING_APP), say("It uses logging now.")),
        ex("Thanks, and no, nothing else.", say("OK.")),
    ], [("correction", "Use the logging module rather than print")],
       ("and no, nothing else",)),
    scenario("ho-wrong-version", [
        ex("Bump the version to 0.2.",
           both("Bumping.", "sed -i 's/version = 0.1/version = 1.0/' README.md"
                " && grep version README.md"), say("The version is now 1.0.")),
        ex("That's not 0.2, you set it to 1.0.",
           both("Fixing it.", "sed -i 's/version = 1.0/version = 0.2/' README.md"
                " && grep version README.md"), say("Now 0.2.")),
        ex("I said to Dana we'd tag it today, so that's perfect.", say("Great.")),
    ], [("correction", "That's not 0.2, you set it to 1.0")],
       ("I said to Dana we'd tag it today",)),
    scenario("ho-long-refactor", _long_refactor(), [
        ("recovery", "py_compile src/*.py tests/"),
        ("correction", "that greeting docstring says nothing useful"),
    ], ("Leave the version, it's fine as is", "Nice, no problems at all")),
    scenario("ho-iso-dates", [
        ex("Add today's date to the log.",
           both("Appending it.", "printf 'date: 03/12/2026\\n' >> logs/app.log"
                " && tail -n 1 logs/app.log"), say("Added 03/12/2026.")),
        ex("Going forward, write dates as YYYY-MM-DD.",
           both("Rewriting that line.", "sed -i 's#date: 03/12/2026#date: 2026-12-03#'"
                " logs/app.log && tail -n 1 logs/app.log"), say("Now 2026-12-03.")),
        ex("No problem, and thanks for fixing that line.", say("Sure.")),
    ], [("preference", "write dates as YYYY-MM-DD")], ("thanks for fixing that line",)),
    scenario("ho-not-executable", [
        ex("Run the app.", sh("./src/app.py"), sh("python3 src/app.py"),
           say("It prints hello.")),
        ex("Right, that's exactly what I expected.", say("Good.")),
        ex("Run scripts with python3 in this project; we don't mark them executable.",
           say("Noted.")),
    ], [("recovery", "./src/app.py"),
        ("preference", "Run scripts with python3 in this project")],
       ("that's exactly what I expected",)),
    scenario("ho-secret-stripe", [
        ex("Which payment keys do we use?", sh("ls -A config"),
           say("There are no key files in config/.")),
        ex("Only ever use the test key, never a live key like " + SECRET_STRIPE
           + " in code or tests.", say("I'll only use test keys.")),
        ex("never mind the rest, it's fine.", say("OK.")),
    ], [("preference", "Only ever use the test key")], ("never mind the rest, it's fine",)),
    scenario("ho-only-the-cache", [
        ex("Clean up the tests folder.",
           both("Removing everything in tests/.", "rm -r tests && ls"), say("Removed tests/.")),
        ex("Whoa, I only wanted the cache files gone, not the tests themselves. "
           "Bring test_app.py back.", both("Restoring it.", RESTORE_TESTS), say("Restored.")),
        ex("don't worry about it, it's back now.", say("Sorry about that.")),
    ], [("correction", "I only wanted the cache files gone, not the tests themselves")],
       ("don't worry about it, it's back now",)),
    scenario("ho-red-then-wrong-file", [
        ex("Write a failing test for a version() function first, then implement it.",
           both("Test first; this should fail.", VERSION_TEST),
           say("It fails as expected: there is no src.version yet."),),
        ex("Now implement it.", both("Reading the version from a VERSION file.", VERSION_WRONG),
           both("There is no VERSION file; the version lives in README.md.", VERSION_FIX),
           say("The test passes now.")),
        ex("Sweet. No, nothing more today.", say("Bye.")),
    ], [("recovery", "open(\"VERSION\").read()")],
       ("> tests/test_version.py", "No, nothing more today")),
]
# fmt: on
