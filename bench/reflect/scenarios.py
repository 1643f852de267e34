"""The labelled sessions of issue 26's bench: what the user says, what the (scripted)
agent does, and the moments a careful reader would pick, with look-alike distractors.

Each scenario is played by the real Claude Code against bench/reflect/loopback.py (the
tool calls run for real in a scratch folder, so failures and their outputs are real),
and its transcript is also written as an OpenClaw session file (bench/reflect/make.py).

Labels name a moment by a piece of its text: for ``correction`` and ``preference`` a
piece of the user's message, for ``recovery`` the failing command. Distractors are
pieces of text that must not be shown as a moment (the kind does not matter).
"""

from __future__ import annotations

from typing import Any

SECRET = "ghp_" + "Zq8Lr2Xv5Nw1Ty7Ub4Mc9Kd3Pe6Hf0Ja2Sg"
SECRET_AWS = "AKIA" + "QWERTYUIOPASDFGH"


def ex(user: str, *steps: dict[str, str]) -> dict[str, Any]:
    return {"user": user, "steps": [*steps] or [{"text": "Done."}]}


def sh(command: str) -> dict[str, str]:
    return {"bash": command}


def say(text: str) -> dict[str, str]:
    return {"text": text}


def both(text: str, command: str) -> dict[str, str]:
    """The agent says something, then runs a command, in one message."""
    return {"text": text, "bash": command}


def scenario(
    name: str,
    exchanges: list[dict[str, Any]],
    labels: list[tuple[str, str]],
    distractors: tuple[str, ...] = (),
) -> dict[str, Any]:
    return {
        "name": name,
        "exchanges": exchanges,
        "labels": [{"kind": k, "text": t} for k, t in labels],
        "distractors": list(distractors),
    }


# fmt: off
SCENARIOS: list[dict[str, Any]] = [
    scenario("list-then-correct", [
        ex("List the source files, please.", sh("ls src/missing"), sh("ls src"), say("Here.")),
        ex("No, I meant the tests folder, not src.", sh("ls tests"), say("Listed tests.")),
        ex("no problem, thanks!", say("Glad to help.")),
    ], [("recovery", "ls src/missing"), ("correction", "I meant the tests folder")],
       ("no problem, thanks",)),
    scenario("preference-ruff", [
        ex("Add a docstring to app.py.", sh("grep -n def src/app.py"), say("Added.")),
        ex("From now on, always run the linter before you commit.", say("Will do.")),
        ex("Looks good to me.", say("Thanks.")),
    ], [("preference", "always run the linter")], ("Looks good to me",)),
    scenario("intended-red", [
        ex("Add a failing test for the parser first.",
           both("Writing the test first; I expect it to fail.",
                "python3 -c \"assert 1 == 2, 'parser not written yet'\""),
           both("It fails as expected. Now the parser.", "python3 -c \"assert 2 == 2\""),
           say("Green.")),
        ex("Nice, that actually worked.", say("Great.")),
    ], [], ("parser not written yet", "that actually worked")),
    scenario("use-httpx", [
        ex("Fetch the status page with requests.", sh("python3 -c 'import requests_missing_mod'"),
           sh("python3 -c 'import urllib.request'"), say("Used urllib instead.")),
        ex("Don't use urllib here, use httpx instead.", say("Switching to httpx.")),
    ], [("recovery", "import requests_missing_mod"), ("correction", "use httpx instead")]),
    scenario("flaky-retry", [
        ex("Run the build.", sh("test -f build.lock"), sh("test -f build.lock"), say("Gave up.")),
        ex("It always fails on the first run, odd.", say("Noted.")),
    ], [], ("test -f build.lock", "always fails on the first run")),
    scenario("secret-in-correction", [
        ex("Set up the deploy script.", sh("cat deploy.sh"), say("Nothing there yet.")),
        ex(f"Stop. Use the token from the vault, not {SECRET} pasted here.",
           say("Understood, reading it from the vault.")),
    ], [("correction", "Use the token from the vault")], ("cat deploy.sh",)),
    scenario("prefer-tabs", [
        ex("Format the Makefile.", sh("ls Makefile"), say("Formatted.")),
        ex("I prefer tabs over spaces in Makefiles.", say("Tabs it is.")),
        ex("No worries, take your time.", say("Thanks.")),
    ], [("preference", "I prefer tabs")], ("No worries",)),
    scenario("i-said-second", [
        ex("Open the config.", sh("cat config/app.toml"), sh("cat README.md"), say("Opened.")),
        ex("I said the second config file, the staging one.", say("Opening staging.")),
    ], [("recovery", "cat config/app.toml"), ("correction", "I said the second config")]),
    scenario("never-force-push", [
        ex("Push the branch.", sh("git push --dry-run 2>&1 || false"), say("Push failed.")),
        ex("Never force-push to main, by the way.", say("Understood.")),
    ], [("preference", "Never force-push")], ("git push --dry-run",)),
    scenario("actually-keep-name", [
        ex("Rename the helper to fetch_all.", sh("grep -rn helper src"), say("Renamed.")),
        ex("Actually, let's keep the old name.", say("Reverted the rename.")),
        ex("Wait for the CI to finish before merging.", say("Waiting.")),
    ], [("correction", "keep the old name")], ("Wait for the CI",)),
    scenario("recovery-python-path", [
        ex("Run the app's self-check.", sh("python3 src/selfcheck.py"), sh("python3 src/app.py"),
           say("The self-check is part of app.py; it passed.")),
    ], [("recovery", "python3 src/selfcheck.py")]),
    scenario("please-dont-emoji", [
        ex("Write the commit message.", say("✨ Add parser ✨")),
        ex("Please don't put emojis in commit messages.", say("Plain text then.")),
    ], [("preference", "don't put emojis")]),
    scenario("no-need", [
        ex("Check the tests folder.", sh("ls tests"), say("Two files.")),
        ex("No need to run them now.", say("Okay.")),
        ex("Thanks, that's all.", say("Bye.")),
    ], [], ("No need to run them",)),
    scenario("wrong-branch", [
        ex("Show the current branch.",
           sh("git rev-parse --abbrev-ref HEAD 2>/dev/null || echo none"), say("Shown.")),
        ex("That's not what I asked; show the remote instead.", say("Showing the remote.")),
    ], [("correction", "show the remote instead")]),
    scenario("mixed-secret-aws", [
        ex(f"My key is {SECRET_AWS}, please configure the client with it.",
           sh("ls config"), say("Configured.")),
        ex("You forgot the region setting.", say("Added the region.")),
    ], [("correction", "You forgot the region")]),
    scenario("unrecovered-failure", [
        ex("Deploy to staging.", sh("ls /srv/deploy-target-missing"),
           say("The target is missing.")),
        ex("Okay, we'll do it tomorrow.", say("Sure.")),
    ], [], ("ls /srv/deploy-target-missing", "we'll do it tomorrow")),
    scenario("going-forward", [
        ex("Summarise the README.", sh("head -n 3 README.md"), say("It is a demo project.")),
        ex("Going forward, answer in two sentences at most.", say("Will do.")),
    ], [("preference", "answer in two sentences")]),
    scenario("undo", [
        ex("Delete the old logs.", sh("ls logs"), say("Deleted.")),
        ex("Undo that, I still need them.", say("Restored.")),
    ], [("correction", "Undo that")]),
    scenario("red-then-real-failure", [
        ex("Write a failing test for the date bug, then fix it.",
           both("First the red test; it should fail.",
                "python3 -c \"import sys; sys.exit('date bug reproduced')\""),
           both("Red, as intended. Now the fix.", "python3 src/datefix.py"),
           sh("python3 -c 'print(1)'"), say("Fixed.")),
    ], [("recovery", "python3 src/datefix.py")], ("date bug reproduced",)),
    scenario("remember-to", [
        ex("Bump the version.", sh("grep -n version README.md || true"), say("Bumped.")),
        ex("Remember to update the changelog too when you bump it.", say("Updated it.")),
    ], [("preference", "update the changelog")]),
    scenario("not-like-that", [
        ex("Sort the imports.", sh("ls src"), say("Sorted alphabetically.")),
        ex("Not like that; group the standard library first.", say("Regrouped.")),
        ex("No, that's perfect now.", say("Good.")),
    ], [("correction", "group the standard library first")], ("that's perfect now",)),
    scenario("always-ask", [
        ex("Remove the unused dependency.", sh("cat requirements-dev.txt"),
           sh("cat requirements.txt"), say("Removed.")),
        ex("Always ask before removing a dependency.", say("I will.")),
    ], [("recovery", "cat requirements-dev.txt"),
        ("preference", "Always ask before removing")]),
    scenario("quiet-session", [
        ex("What does app.py do?", sh("cat src/app.py"), say("It prints hello.")),
        ex("Great, thanks.", say("You're welcome.")),
    ], []),
    scenario("redirect-rather", [
        ex("Add caching with a global dict.", sh("grep -n cache src/app.py || true"),
           say("Added a dict.")),
        ex("Use functools.lru_cache rather than a global dict.", say("Switched.")),
    ], [("correction", "lru_cache rather than")]),
    scenario("hold-on", [
        ex("Migrate the database.", sh("ls migrations"), sh("ls src"), say("Migrated.")),
        ex("Hold on, run it against the copy first.", say("Running on the copy.")),
    ], [("recovery", "ls migrations"), ("correction", "run it against the copy")]),
    scenario("it-never-happened", [
        ex("Why is the build slow?", sh("ls"), say("The cache is cold.")),
        ex("Hm, I never saw that before. Stop by the docs later if you like.", say("Okay.")),
    ], [], ("I never saw that before",)),
]
# fmt: on
