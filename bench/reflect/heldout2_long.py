"""HELD OUT, written blind, do not tune on it: part of bench/reflect/heldout2_scenarios.py
(whose docstring says what the set is and how it was written), the four long sessions
(15 exchanges or more, few moments).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout2_secrets import SECRET_SENDGRID
from scenarios import both, ex, say, scenario

# fmt: off
# Commands too long for one line of a scenario.
VISITS = (
    "mkdir -p data && printf 'day,visits\\nmon,120\\ntue,135\\nwed,128\\nthu,150\\nfri,97\\n'"
    " > data/visits.csv && wc -l data/visits.csv"
)
BARS = (
    "python3 -c 'import csv; [print(r[\"day\"], \"#\" * (int(r[\"visits\"]) // 10)) "
    "for r in csv.DictReader(open(\"data/visits.csv\"))]'"
)
SEND_CHECK = (
    " && MAIL_FROM=noreply@demo.test python3 -c 'import sys; sys.path.insert(0, \"src\");"
    " import mailer; mailer.send(\"a@b.test\", \"hi\")'"
)
MAILER = (
    "printf 'def send(to, subject):\\n    print(\"to\", to, \"subject\", subject)\\n'"
    " > src/mailer.py" + SEND_CHECK
)
MAILER_FROM = (
    "printf 'import os\\n\\n\\ndef send(to, subject):\\n"
    "    sender = os.environ.get(\"MAIL_FROM\", \"nobody@demo.test\")\\n"
    "    print(sender, \"->\", to, \":\", subject)\\n' > src/mailer.py" + SEND_CHECK
)
MAILER_PREFIX = MAILER_FROM.replace('":", subject)', '":", "[demo] " + subject)')
MAIL_TEST = (
    "printf 'import contextlib, io, sys\\nsys.path.insert(0, \"src\")\\nimport mailer\\n"
    "out = io.StringIO()\\nwith contextlib.redirect_stdout(out):\\n"
    "    mailer.send(\"a@b.test\", \"hi\")\\nassert \"a@b.test\" in out.getvalue()\\n'"
    " > tests/test_mailer.py && python3 tests/test_mailer.py && echo passed"
)


def _long_docs() -> list[dict[str, Any]]:
    """A docs session of 17 exchanges: one correction, one preference."""
    return [
        ex("Let's work on the docs today. What's in README.md?",
           both("Reading it.", "cat README.md"),
           say("A title, one line of description and the version.")),
        ex("Add a line saying the app needs Python 3.",
           both("Adding it.", "printf 'Needs Python 3.\\n' >> README.md && tail -1 README.md"),
           say("Added.")),
        ex("Add an Install section with the pip command.",
           both("Adding it.", "printf '\\n## Install\\n\\npip install -r requirements.txt\\n' "
                ">> README.md && tail -2 README.md"),
           say("Added an Install section.")),
        ex("Add a section about running the app after it.",
           both("Adding it.", "printf '\\n## Running The App\\n\\npython3 src/app.py\\n' "
                ">> README.md && tail -2 README.md"),
           say("Added Running The App.")),
        ex("Also mention that logs go to logs/app.log, under Install.",
           both("Adding the note.",
                "printf 'Logs go to logs/app.log.\\n' >> README.md && tail -3 README.md"),
           say("Added the logs note.")),
        ex("That's the wrong section; the logs note belongs under Install, right after the "
           "pip line.",
           both("Moving it.", "sed -i '/^Logs go to/d' README.md && sed -i '/^pip install/a "
                "Logs go to logs/app.log.' README.md && cat README.md"),
           say("The note now follows the pip line.")),
        ex("How many sections are there now?",
           both("Counting.", "grep -c '^## ' README.md"), say("Two.")),
        ex("Is there a LICENSE file?",
           both("Looking.", "ls LICENSE"), say("No, there is no LICENSE file.")),
        ex("OK, never mind the license, it's fine for now. Show me the headings.",
           both("Listing them.", "grep '^#' README.md"),
           say("demo, Install, Running The App.")),
        ex("Headings in sentence case here: 'Running the app', not 'Running The App'.",
           both("Fixing it.", "sed -i 's/^## Running The App$/## Running the app/' README.md"
                " && grep '^#' README.md"),
           say("Now: Running the app.")),
        ex("Does the README mention the tests?",
           both("Searching.", "grep -n test README.md || echo 'no mention of tests'"),
           say("No.")),
        ex("Add a line on running the tests: python3 -m tests.test_app.",
           both("Adding it.", "printf '\\nRun the tests with python3 -m tests.test_app.\\n' "
                ">> README.md && tail -1 README.md"),
           say("Added.")),
        ex("Run that command to be sure it works.",
           both("Running it.", "python3 -m tests.test_app && echo ok"),
           say("It runs and exits cleanly.")),
        ex("What's the word count of the README now?",
           both("Counting.", "wc -w README.md"), say("About forty words.")),
        ex("Show the whole file one last time.",
           both("Here it is.", "cat README.md"), say("That is the README.")),
        ex("Good, that's it for the docs. No problem if the wording needs polish later.",
           say("OK.")),
        ex("Thanks!", say("You're welcome.")),
    ]


def _long_visits() -> list[dict[str, Any]]:
    """A data session of 16 exchanges: one recovery, one preference."""
    return [
        ex("Let's look at some traffic numbers. Create data/visits.csv with five weekdays "
           "of visits.", both("Writing it.", VISITS), say("Five days written.")),
        ex("Show it.", both("Here.", "cat data/visits.csv"), say("Monday to Friday.")),
        ex("Which day had the most visits?",
           both("Sorting.", "tail -n +2 data/visits.csv | sort -t, -k2 -n | tail -1"),
           say("Thursday, 150.")),
        ex("Load it into SQLite at data/visits.db.",
           both("Importing.", "sqlite3 data/visits.db '.import --csv data/visits.csv visits'"
                " && sqlite3 data/visits.db 'SELECT count(*) FROM visits'"),
           say("5 rows imported.")),
        ex("Average visits?",
           both("Computing.", "sqlite3 data/visits.db 'SELECT avg(visits) FROM visits'"),
           say("126.0.")),
        ex("Draw it as a bar chart in the terminal.",
           both("Trying gnuplot's dumb terminal.", "gnuplot -e \"set terminal dumb; "
                "plot 'data/visits.csv' using 2 with boxes\""),
           both("gnuplot is not installed; drawing the bars with Python.", BARS),
           say("One # per 10 visits.")),
        ex("Nice. Round averages to whole numbers when you report them to me.",
           say("126, then.")),
        ex("What's the total?",
           both("Summing.", "sqlite3 data/visits.db 'SELECT sum(visits) FROM visits'"),
           say("630.")),
        ex("Add Saturday to the database, with 40.",
           both("Adding it.", "sqlite3 data/visits.db \"INSERT INTO visits VALUES ('sat', 40)\""
                " && echo added"),
           say("Saturday added.")),
        ex("Recompute the average.",
           both("Computing.", "sqlite3 data/visits.db 'SELECT round(avg(visits)) FROM visits'"),
           say("112.")),
        ex("Don't worry about weekends being low, that's expected.", say("OK.")),
        ex("Export the table back to CSV as data/visits_out.csv.",
           both("Exporting.", "sqlite3 -header -csv data/visits.db 'SELECT * FROM visits' "
                "> data/visits_out.csv && cat data/visits_out.csv"),
           say("Exported.")),
        ex("Diff the original against the export.",
           both("Diffing.", "diff data/visits.csv data/visits_out.csv"),
           say("They differ by one line: the export has the Saturday row.")),
        ex("Good to know. Can SQLite do window functions?", say("Yes, since 3.25.")),
        ex("How big is the database file?",
           both("Checking.", "ls -l data/visits.db"), say("A few kilobytes.")),
        ex("Thanks, that's all for the data today.", say("Bye.")),
    ]


def _long_mailer() -> list[dict[str, Any]]:
    """A feature session of 15 exchanges with a credential: one preference."""
    return [
        ex("We're adding email notifications. What's in src/ now?",
           both("Listing it.", "ls src"), say("Only app.py.")),
        ex("Create src/mailer.py with a send(to, subject) function that only prints for now.",
           both("Writing it.", MAILER), say("send() prints its arguments.")),
        ex("The SendGrid key is " + SECRET_SENDGRID + " - put it in config/mail.env as "
           "SENDGRID_API_KEY.",
           both("Writing it.", "printf 'SENDGRID_API_KEY=" + SECRET_SENDGRID + "\\n' "
                "> config/mail.env && wc -l config/mail.env"),
           say("config/mail.env written.")),
        ex("Add config/mail.env to .gitignore.",
           both("Adding it.", "printf 'config/mail.env\\n' >> .gitignore && cat .gitignore"),
           say("Ignored.")),
        ex("Our sender is noreply@demo.test; put that in config/mail.env too, as MAIL_FROM.",
           both("Adding it.", "printf 'MAIL_FROM=noreply@demo.test\\n' >> config/mail.env"
                " && grep MAIL_FROM config/mail.env"),
           say("MAIL_FROM added.")),
        ex("Make send() take the sender from MAIL_FROM.",
           both("Updating it.", MAILER_FROM), say("send() reads MAIL_FROM.")),
        ex("Write a quick test for send().",
           both("Writing it.", MAIL_TEST), say("tests/test_mailer.py passes.")),
        ex("Subject lines get a [demo] prefix; every mail we send carries it.",
           both("Adding the prefix.", MAILER_PREFIX), say("Prefixed.")),
        ex("What's the rate limit on SendGrid's free tier?", say("About 100 emails a day.")),
        ex("OK. Is the key loaded when the app starts?",
           both("Checking.",
                "grep -n environ src/app.py || echo 'src/app.py reads no environment'"),
           say("No: the app reads no environment.")),
        ex("Leave that for now, no need to wire it into the app yet.", say("Leaving it.")),
        ex("Show me the final mailer.", both("Here.", "cat src/mailer.py"),
           say("That is the mailer.")),
        ex("And run the test one last time.",
           both("Running it.", "python3 tests/test_mailer.py && echo passed"), say("Passes.")),
        ex("Thanks, this looks right.", say("Good.")),
        ex("Let's stop here for today.", say("See you.")),
    ]


def _long_quiet_ops() -> list[dict[str, Any]]:
    """A session of 17 small checks, with look-alikes and nothing to learn."""
    return [
        ex("Morning. What's the disk usage of this folder?",
           both("Measuring.", "du -sh ."), say("A few dozen kilobytes.")),
        ex("And the biggest file?",
           both("Looking.", "find . -type f -printf '%s %p\\n' | sort -n | tail -1"),
           say("The one above.")),
        ex("No problem, that's small.", say("Yes.")),
        ex("Show the app log.", both("Reading it.", "cat logs/app.log"), say("One line: started.")),
        ex("Append a line saying checked.",
           both("Appending.", "printf 'checked\\n' >> logs/app.log && tail -1 logs/app.log"),
           say("Appended.")),
        ex("How many lines now?", both("Counting.", "wc -l logs/app.log"), say("Two.")),
        ex("I never remember the tail flag for following a file.", say("tail -f.")),
        ex("Show the last line.", both("Here.", "tail -1 logs/app.log"), say("checked.")),
        ex("Is anything answering on port 8080?",
           both("Checking.",
                "curl -s -o /dev/null http://127.0.0.1:8080/ || echo 'nothing on 8080'"),
           say("Nothing answers on 8080.")),
        ex("Don't worry about it, it's not supposed to run yet.", say("OK.")),
        ex("What time is it on the server?", both("Checking.", "date -u"),
           say("The time above, in UTC.")),
        ex("Count the Python files.",
           both("Counting.", "find . -name '*.py' | wc -l"), say("Two.")),
        ex("Actually that's more than I thought. Which are they?",
           both("Listing them.", "find . -name '*.py'"),
           say("src/app.py and tests/test_app.py.")),
        ex("Check that app.py still compiles.",
           both("Compiling.", "python3 -m py_compile src/app.py && echo ok"), say("It compiles.")),
        ex("Stop me if I'm repeating myself, but is requirements.txt still just httpx?",
           both("Reading it.", "cat requirements.txt"), say("Yes, only httpx.")),
        ex("Great, everything looks healthy.", say("It does.")),
        ex("Thanks, see you tomorrow.", say("See you.")),
    ]


SESSIONS: list[dict[str, Any]] = [
    scenario("h2-long-docs", _long_docs(),
             [("correction", "the logs note belongs under Install"),
              ("preference", "Headings in sentence case here")],
             ("ls LICENSE", "never mind the license, it's fine for now",
              "How many sections are there now", "No problem if the wording needs polish")),
    scenario("h2-long-visits", _long_visits(),
             [("recovery", "gnuplot"), ("preference", "Round averages to whole numbers")],
             ("Don't worry about weekends being low", "diff data/visits.csv data/visits_out.csv",
              "Can SQLite do window functions")),
    scenario("h2-long-mailer", _long_mailer(),
             [("preference", "Subject lines get a [demo] prefix")],
             ("What's the rate limit on SendGrid's free tier",
              "no need to wire it into the app yet", "Let's stop here for today")),
    scenario("h2-long-quiet-ops", _long_quiet_ops(), [],
             ("No problem, that's small", "I never remember the tail flag",
              "Don't worry about it, it's not supposed to run yet",
              "Actually that's more than I thought", "Stop me if I'm repeating myself")),
]
