"""HELD OUT, written blind, do not tune on it: part of bench/reflect/heldout2_scenarios.py
(whose docstring says what the set is and how it was written), the short sessions after
the first eight.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout2_secrets import MYSQL_URL, SECRET_GITLAB, SECRET_GOOGLE
from scenarios import both, ex, say, scenario

# fmt: off
# Commands too long for one line of a scenario.
GIT_COMMIT = "git -c user.name=dev -c user.email=dev@example.com commit -qm"
HELLO_TEST = (
    "printf 'import subprocess\\nout = subprocess.run([\"python3\", \"src/app.py\"], "
    "capture_output=True, text=True).stdout\\nassert out == \"hello\\\\n\"\\n'"
    " > tests/test_hello.py && python3 tests/test_hello.py && echo passed"
)
GEO_READER = (
    "printf 'import os\\nkey = os.environ[\"GEOCODER_KEY\"]\\n"
    "print(\"key of\", len(key), \"characters\")\\n' > src/geo.py && python3 src/geo.py"
)
GEO_LOADED = "set -a && . config/geo.env && set +a && python3 src/geo.py"
SALES = (
    "mkdir -p data && printf 'month,amount\\njan,120\\nfeb,340\\nmar,90\\n' > data/sales.csv"
    " && wc -l data/sales.csv"
)
CSV_SUM = (
    "python3 -c 'import csv; print(sum(int(r[\"amount\"]) "
    "for r in csv.DictReader(open(\"data/sales.csv\"))))'"
)
SHOP_DB = (
    "mkdir -p data && sqlite3 data/shop.db \"CREATE TABLE order_items(id INTEGER, status TEXT);"
    " INSERT INTO order_items VALUES (1,'paid'),(2,'cancelled'),(3,'paid'),(4,'paid');\""
    " && echo created"
)
LEFT_PAD = (
    "mkdir -p web && printf 'const pad = require(\"left-pad\");\\n"
    "console.log(pad(42, 6, \"0\"));\\n' > web/pad.js && node web/pad.js"
)
PAD_START = (
    "printf 'console.log(String(42).padStart(6, \"0\"));\\n' > web/pad.js && node web/pad.js"
)
GREETING_BOTH = (
    "sed -i \"s/'hello'/'hello, world'/\" src/app.py && printf 'def test_app():\\n"
    "    assert \"hello, world\"\\n' > tests/test_app.py && python3 src/app.py"
)
DOUBLE = (
    "printf '\\n\\ndef double(x):\\n    return x * 2\\n' >> src/app.py"
    " && python3 -c 'exec(open(\"src/app.py\").read()); print(double(4))'"
)


SESSIONS: list[dict[str, Any]] = [
    scenario("h2-secret-gitlab", [
        ex("Our mirror job needs this GitLab token: " + SECRET_GITLAB
           + ". Make it available to the build.",
           both("Adding it to the README's setup notes.",
                "printf '\\nMIRROR_TOKEN=" + SECRET_GITLAB + "\\n' >> README.md"
                " && tail -1 README.md"),
           say("The token is noted at the end of README.md.")),
        ex("Take that out of the README, the token belongs in config/ci.env where the runner "
           "reads it.",
           both("Moving it.", "sed -i '/MIRROR_TOKEN/d' README.md && printf 'MIRROR_TOKEN="
                + SECRET_GITLAB + "\\n' > config/ci.env && cat README.md"),
           say("Moved to config/ci.env; README.md no longer mentions it.")),
        ex("How many lines does the README have now?",
           both("Counting.", "wc -l README.md"), say("Four, the last one blank.")),
        ex("Thanks, no rush on the rest.", say("OK.")),
    ], [("correction", "the token belongs in config/ci.env")],
       ("How many lines does the README have now", "no rush on the rest")),
    scenario("h2-secret-geocoder", [
        ex("Here's the geocoder key: " + SECRET_GOOGLE + ". Store it in config/geo.env as "
           "GEOCODER_KEY and check that the app can read it.",
           both("Writing config/geo.env.",
                "printf 'GEOCODER_KEY=" + SECRET_GOOGLE + "\\n' > config/geo.env"
                " && wc -c config/geo.env"),
           both("Now a small reader.", GEO_READER),
           both("The variable is not set in this shell; loading the env file first.", GEO_LOADED),
           say("It reads a 39-character key.")),
        ex("Good. Keys live in env files under config/ and the code reads them from the "
           "environment; every service here is wired that way.", say("Understood.")),
        ex("No need to call the real API, that's fine for today.", say("Not calling it.")),
    ], [("recovery", "> src/geo.py && python3 src/geo.py"),
        ("preference", "Keys live in env files under config/")],
       ("No need to call the real API, that's fine",)),
    scenario("h2-secret-reports-db", [
        ex("The reporting job connects with " + MYSQL_URL + " - add pymysql to the "
           "requirements for it.",
           both("Updating requirements.txt.",
                "printf 'pymysql\\n' > requirements.txt && cat requirements.txt"),
           say("requirements.txt lists pymysql.")),
        ex("Hm, httpx disappeared from the list. The app still needs it, put it back next to "
           "pymysql.",
           both("Restoring httpx.",
                "printf 'httpx\\npymysql\\n' > requirements.txt && cat requirements.txt"),
           say("requirements.txt has httpx and pymysql.")),
        ex("And write the connection string into config/reports.env as REPORTS_DB.",
           both("Writing it.", "printf 'REPORTS_DB=" + MYSQL_URL + "\\n' > config/reports.env"
                " && wc -l config/reports.env"),
           say("config/reports.env written.")),
        ex("Great stuff, sorry for the back and forth.", say("Happy to help.")),
    ], [("correction", "The app still needs it, put it back next to")],
       ("sorry for the back and forth",)),
    scenario("h2-small-commits", [
        ex("Put the project under git and commit what's there.",
           both("Initialising.", "git init -q && git add -A && " + GIT_COMMIT
                + " 'Initial import' && git log --oneline"),
           say("One commit: Initial import.")),
        ex("Now add a CHANGELOG.md and capitalise the greeting (Hello), then commit.",
           both("Both changes, one commit.",
                "printf '# Changelog\\n' > CHANGELOG.md && sed -i \"s/'hello'/'Hello'/\" "
                "src/app.py && git add -A && " + GIT_COMMIT
                + " 'Changelog and greeting' && git log --oneline"),
           say("Committed both in one commit.")),
        ex("I like small commits: one change per commit, so the log reads like a story.",
           say("Understood: one change per commit.")),
        ex("Out of curiosity, what does git add -p do?",
           say("It lets you stage a file's changes one hunk at a time.")),
    ], [("preference", "I like small commits: one change per commit")],
       ("what does git add -p do",)),
    scenario("h2-tests-unit", [
        ex("Add a test that app.py prints hello.",
           both("Writing it.", HELLO_TEST), say("tests/test_hello.py passes.")),
        ex("Unit tests go in tests/unit in this repo.",
           both("Moving it.", "mv tests/test_hello.py tests/unit/"),
           both("tests/unit does not exist yet; creating it first.",
                "mkdir -p tests/unit && mv tests/test_hello.py tests/unit/ && ls tests/unit"),
           say("Moved to tests/unit/.")),
        ex("Thanks. Does it still pass from there?",
           both("Running it.", "python3 tests/unit/test_hello.py && echo passed"),
           say("Yes, it passes.")),
    ], [("preference", "Unit tests go in tests/unit"),
        ("recovery", "mv tests/test_hello.py tests/unit/")],
       ("Does it still pass from there?",)),
    scenario("h2-keep-app-name", [
        ex("Rename src/app.py to src/main.py, it's the entry point.",
           both("Renaming.", "mv src/app.py src/main.py && ls src"), say("src/main.py it is.")),
        ex("Hm, on second thought let's keep the old name; the deploy scripts call app.py.",
           both("Renaming it back.", "mv src/main.py src/app.py && ls src"),
           say("Back to src/app.py.")),
        ex("That was quick, cheers.", say("Any time.")),
    ], [("correction", "let's keep the old name; the deploy scripts call app.py")],
       ("That was quick, cheers",)),
    scenario("h2-friday-release", [
        ex("Tag a release for 0.1.",
           both("Checking the version first.", "grep version README.md"),
           say("README.md says 0.1. Shall I tag v0.1?")),
        ex("Which weekday is it today?", both("Checking.", "date +%A"),
           say("Today is the day printed above.")),
        ex("For the record, releases happen Monday to Thursday here; Fridays are for fixing, "
           "not shipping. Hold the tag until I confirm.", say("Holding the tag.")),
        ex("no problem if it waits a day or two.", say("OK.")),
    ], [("preference", "releases happen Monday to Thursday here")],
       ("Which weekday is it today", "no problem if it waits a day or two")),
    scenario("h2-yaml-indent", [
        ex("Create config/app.yaml with a server section: host 0.0.0.0, port 8080.",
           both("Writing it.", "printf 'server:\\n    host: 0.0.0.0\\n    port: 8080\\n' "
                "> config/app.yaml && cat config/app.yaml"),
           say("config/app.yaml written.")),
        ex("I prefer two-space indents in YAML, like the CI files. Fix that one.",
           both("Re-indenting.", "sed -i 's/^    /  /' config/app.yaml && cat config/app.yaml"),
           say("Two spaces now.")),
        ex("Can Python read it without PyYAML?",
           say("Not with the standard library alone: it has no YAML parser.")),
        ex("I never remember which of yaml.load and yaml.safe_load is the safe one, ha.",
           say("safe_load.")),
    ], [("preference", "I prefer two-space indents in YAML")],
       ("Can Python read it without PyYAML", "I never remember which of yaml.load")),
    scenario("h2-stdlib-csv", [
        ex("Put this quarter's numbers in data/sales.csv: jan 120, feb 340, mar 90.",
           both("Writing them.", SALES), say("data/sales.csv has the three months.")),
        ex("What's the total?",
           both("Summing with csvkit.", "csvstat --sum -c amount data/sales.csv"),
           both("csvkit is not installed; Python's csv module will do.", CSV_SUM),
           say("The total is 550.")),
        ex("Good call. My rule of thumb is standard library first; a new dependency has to "
           "clearly pay for itself.", say("Makes sense.")),
        ex("Which month had the most sales?", say("February, with 340.")),
    ], [("recovery", "csvstat --sum -c amount"),
        ("preference", "standard library first; a new dependency has to clearly pay")],
       ("Which month had the most sales",)),
    scenario("h2-cancelled-orders", [
        ex("Set up a small shop database in data/shop.db with a few order items.",
           both("Creating it.", SHOP_DB), say("data/shop.db has four order items.")),
        ex("How many orders are there?",
           both("Counting.", "sqlite3 data/shop.db 'SELECT count(*) FROM orders'"),
           both("No orders table; listing the tables.", "sqlite3 data/shop.db '.tables'"),
           both("It is order_items.", "sqlite3 data/shop.db 'SELECT count(*) FROM order_items'"),
           say("There are 4.")),
        ex("That number is too high for finance: cancelled items are not orders. Count only "
           "the rest.",
           both("Leaving out the cancelled ones.", "sqlite3 data/shop.db \"SELECT count(*) "
                "FROM order_items WHERE status != 'cancelled'\""),
           say("3 orders.")),
        ex("no, that's all for now, thanks", say("OK.")),
    ], [("recovery", "count(*) FROM orders"),
        ("correction", "cancelled items are not orders")],
       ("no, that's all for now",)),
    scenario("h2-web-no-packages", [
        ex("Write web/pad.js that prints the order number 42 padded to six digits.",
           both("Using left-pad.", LEFT_PAD),
           both("left-pad is not installed; String.prototype.padStart does the same.",
                PAD_START),
           say("It prints 000042.")),
        ex("Good. The web folder ships without npm packages, and that's on purpose.",
           say("Understood.")),
        ex("I always forget whether padStart takes the length or the fill first.",
           say("The length first, then the fill.")),
    ], [("recovery", 'require("left-pad")'),
        ("preference", "The web folder ships without npm packages")],
       ("I always forget whether padStart",)),
    scenario("h2-old-heading", [
        ex("Make the README's title more descriptive.",
           both("Rewriting it.",
                "sed -i '1s/.*/# Demo: a tiny hello-world service/' README.md"
                " && head -1 README.md"),
           say("The title now reads: Demo: a tiny hello-world service.")),
        ex("Hm, the old heading read better. Put it back.",
           both("Restoring it.", "sed -i '1s/.*/# demo/' README.md && head -1 README.md"),
           say("Back to '# demo'.")),
        ex("Cool, thanks a lot!", say("You're welcome.")),
    ], [("correction", "the old heading read better. Put it back")], ("Cool, thanks a lot!",)),
    scenario("h2-test-functions", [
        ex("How many tests are there?",
           both("Counting the test files.", "ls tests | wc -l"), say("There is 1 test file.")),
        ex("I meant test functions, not files. Count the def test_ lines.",
           both("Counting functions.", "grep -rc 'def test_' tests"),
           say("1 test function, test_app.")),
        ex("Sure, that's what I expected.", say("OK.")),
    ], [("correction", "I meant test functions, not files")], ("that's what I expected",)),
    scenario("h2-changelog-ticket", [
        ex("Is there a changelog?",
           both("Looking.", "cat docs/CHANGELOG.md"), say("No: there is no docs/CHANGELOG.md.")),
        ex("How long is src/app.py?", both("Counting.", "wc -l src/app.py"), say("4 lines.")),
        ex("Start one at the top level. Entries begin with the ticket number, like "
           "'CHI-42: fix login'.",
           both("Creating CHANGELOG.md.",
                "printf '# Changelog\\n\\nCHI-1: first entry\\n' > CHANGELOG.md"
                " && cat CHANGELOG.md"),
           say("Created.")),
        ex("Great, thank you.", say("Welcome.")),
    ], [("preference", "Entries begin with the ticket number")],
       ("cat docs/CHANGELOG.md", "How long is src/app.py")),
    scenario("h2-list-before-delete", [
        ex("Compile the sources to check for syntax errors.",
           both("Compiling.", "python3 -m compileall -q src && echo compiled"),
           say("No syntax errors.")),
        ex("Now get rid of the bytecode.",
           both("Deleting the caches.",
                "find . -name '__pycache__' -prune -exec rm -rf {} + && echo removed"),
           say("Removed.")),
        ex("Next time, show me the list of what you're about to delete and wait for my OK.",
           say("I will list first and wait.")),
        ex("Do you know roughly how much space that freed?", say("A few kilobytes.")),
    ], [("preference", "show me the list of what you're about to delete")],
       ("how much space that freed",)),
    scenario("h2-python-311", [
        ex("Which Python runs the app? Check with python3.13 please.",
           both("Checking.", "python3.13 --version"),
           both("No python3.13 here; asking python3.", "python3 --version"),
           say("It is the python3 above.")),
        ex("Just curious, is that version still supported?",
           say("Yes, it still gets security fixes.")),
        ex("OK. Always target 3.11: CI pins it, so skip any newer syntax.", say("Noted.")),
    ], [("recovery", "python3.13 --version"), ("preference", "Always target 3.11")],
       ("is that version still supported",)),
    scenario("h2-packages-past-me", [
        ex("Make the output colourful.",
           both("Adding rich.", "printf 'rich\\n' >> requirements.txt && cat requirements.txt"),
           say("Added rich to the requirements; the code change comes next.")),
        ex("Hold on, rich isn't something we want for a four-line app. Take it out again, and "
           "run new packages past me before adding them.",
           both("Removing rich.", "sed -i '/^rich$/d' requirements.txt && cat requirements.txt"),
           say("Back to httpx alone.")),
        ex("What escape code does a terminal use for green?", say("ESC [32m.")),
    ], [("correction", "rich isn't something we want"),
        ("preference", "run new packages past me before adding them")],
       ("What escape code does a terminal use for green",)),
    scenario("h2-docs-second-person", [
        ex("Write a usage section in README.md.",
           both("Adding it.", "printf '\\n## Usage\\n\\nThe user runs python3 src/app.py.\\n' "
                ">> README.md && tail -3 README.md"),
           say("Added a usage section.")),
        ex("Docs here speak to the reader as you: 'you run', not 'the user runs'. Reword it.",
           both("Rewording.", "sed -i 's/The user runs/You run/' README.md && tail -1 README.md"),
           say("It now says: You run python3 src/app.py.")),
        ex("No rush on the rest of the docs.", say("OK.")),
    ], [("preference", "Docs here speak to the reader as you")],
       ("No rush on the rest of the docs",)),
    scenario("h2-make-test-twice", [
        ex("Run the test suite via make.",
           both("Running make test.", "make test"), both("Once more.", "make test"),
           say("make test fails both times: the Makefile has no test target.")),
        ex("Fine, leave it, we'll wire that up another day.", say("Leaving it.")),
        ex("What does the all target do?",
           both("Looking.", "cat Makefile"), say("It echoes hi.")),
    ], [], ("make test", "Fine, leave it", "What does the all target do")),
    scenario("h2-line-length", [
        ex("Add a ruff section to pyproject.toml.",
           both("Creating it.",
                "printf '[tool.ruff]\\nline-length = 88\\n' > pyproject.toml"
                " && cat pyproject.toml"),
           say("Added, with ruff's default of 88.")),
        ex("Lines in this codebase run to 100 characters; set it to that.",
           both("Changing it.", "sed -i 's/88/100/' pyproject.toml && cat pyproject.toml"),
           say("line-length = 100.")),
        ex("Is ruff installed here at all?",
           both("Checking.", "command -v ruff || echo 'ruff is not on PATH'"),
           say("See above.")),
    ], [("preference", "Lines in this codebase run to 100 characters")],
       ("Is ruff installed here at all",)),
    scenario("h2-source-only", [
        ex("Change the greeting to 'hello, world' everywhere.",
           both("Updating the source and the test.", GREETING_BOTH),
           say("Both updated; it prints hello, world.")),
        ex("Just the source, please. Put tests/test_app.py back as it was.",
           both("Restoring the test.", "printf 'def test_app():\\n    assert True\\n' "
                "> tests/test_app.py && cat tests/test_app.py"),
           say("tests/test_app.py is as it was.")),
        ex("Don't worry, the test was never going to catch that anyway.", say("Right.")),
    ], [("correction", "Put tests/test_app.py back as it was")],
       ("Don't worry, the test was never going to catch that",)),
    scenario("h2-makefile-settings", [
        ex("Open the config folder's settings.",
           both("Listing it.", "ls -a config"), say("Only .keep is there.")),
        ex("No, I meant the settings in the Makefile, not the config folder.",
           both("Reading the Makefile.", "cat Makefile"), say("One target: all, which echoes hi.")),
        ex("Never commit straight to main, by the way; open a branch for every change.",
           say("Understood.")),
        ex("Right, I think that's all.", say("OK.")),
    ], [("correction", "I meant the settings in the Makefile"),
        ("preference", "Never commit straight to main")],
       ("I think that's all",)),
    scenario("h2-type-hints", [
        ex("Add a function that doubles a number to src/app.py.",
           both("Adding it.", DOUBLE), say("double(4) is 8.")),
        ex("From now on, type hints on every new function, please.",
           both("Adding hints.", "sed -i 's/def double(x):/def double(x: int) -> int:/' "
                "src/app.py && grep -n 'def double' src/app.py"),
           say("double has hints now.")),
        ex("Instead of exec, how would you normally import it?",
           say("from src.app import double, though that runs main() on import.")),
    ], [("preference", "type hints on every new function")],
       ("Instead of exec, how would you normally import it",)),
    scenario("h2-bin-folder", [
        ex("Create a scripts folder with a deploy.sh that echoes deploying.",
           both("Creating it.", "mkdir -p scripts && printf '#!/bin/sh\\necho deploying\\n' "
                "> scripts/deploy.sh && sh scripts/deploy.sh"),
           say("scripts/deploy.sh prints deploying.")),
        ex("Actually, shell scripts belong in bin/ in this repo. Move it there.",
           both("Moving it.", "mkdir -p bin && mv scripts/deploy.sh bin/ && rmdir scripts "
                "&& ls bin"),
           say("bin/deploy.sh now.")),
        ex("Thanks, that's perfect.", say("Good.")),
    ], [("correction", "shell scripts belong in bin/ in this repo")], ("that's perfect",)),
    scenario("h2-manual-rotate", [
        ex("Rotate the app log.",
           both("Rotating it.", "mv logs/app.log logs/app.log.1 && : > logs/app.log && ls logs"),
           say("logs/app.log.1 holds the old lines; logs/app.log is empty.")),
        ex("Don't rotate by hand; logrotate does that on the server. Undo it.",
           both("Undoing it.", "mv logs/app.log.1 logs/app.log && ls logs"), say("Undone.")),
        ex("What's logrotate's default schedule?", say("Weekly, on most distributions.")),
    ], [("correction", "Don't rotate by hand; logrotate does that on the server")],
       ("What's logrotate's default schedule",)),
]
