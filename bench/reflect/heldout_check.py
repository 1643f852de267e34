"""Check a list of labelled reflection sessions (bench/reflect/heldout_scenarios.py by
default) without any chitin code, so that checking it keeps it blind.

    python bench/reflect/heldout_check.py              # the format and the labels' texts
    python bench/reflect/heldout_check.py --run        # also run every command for real
    python bench/reflect/heldout_check.py --module scenarios

The format check refuses, one line per problem and exit status 1: a duplicate name (or
one the tuning set already uses), an unknown kind, a correction or preference whose text
is not in a user message, a recovery whose text is not in a command, a distractor not in
the session or overlapping a label, a label or distractor that holds a secret, a secret
that is in no user message, and an exchange whose last step runs a command (the loopback
model ends a turn only on text). ``--run`` plays each session's commands with bash in
bench/reflect/make.py's scratch folder and refuses a recovery whose command does not
fail or is not followed, in the same exchange, by one that succeeds; it lists every
failing command so the unlabelled ones can be read as the distractors they should be.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

KINDS = ("correction", "preference", "recovery")
Session = dict[str, Any]


def users(session: Session) -> list[str]:
    return [exchange["user"] for exchange in session["exchanges"]]


def commands(session: Session) -> list[str]:
    return [s["bash"] for e in session["exchanges"] for s in e["steps"] if "bash" in s]


def texts(session: Session) -> list[str]:
    said = [s["text"] for e in session["exchanges"] for s in e["steps"] if "text" in s]
    return users(session) + said + commands(session)


def problems(sessions: list[Session], secrets: tuple[str, ...], taken: set[str]) -> list[str]:
    """Every rule the sessions break, one line each."""
    found: list[str] = []
    names = Counter(s["name"] for s in sessions)
    found += [f"{name}: the name is used {n} times" for name, n in names.items() if n > 1]
    found += [f"{s['name']}: the tuning set has this name" for s in sessions if s["name"] in taken]
    for session in sessions:
        found += [f"{session['name']}: {p}" for p in _session_problems(session, secrets)]
    every_user = " ".join(u for s in sessions for u in users(s))
    found += [f"secret {n}: in no user message" for n, secret in enumerate(secrets, 1)
              if secret not in every_user]  # fmt: skip
    return found


def _session_problems(session: Session, secrets: tuple[str, ...]) -> list[str]:
    exchanges = enumerate(session["exchanges"], 1)
    found = [f"exchange {n}: its last step runs a command" for n, e in exchanges
             if "bash" in e["steps"][-1]]  # fmt: skip
    labels = [label["text"] for label in session["labels"]]
    for label in session["labels"]:
        kind, text = label["kind"], label["text"]
        where = commands(session) if kind == "recovery" else users(session)
        if kind not in KINDS:
            found.append(f"label {text!r}: unknown kind {kind!r} (allowed: {', '.join(KINDS)})")
        elif not any(text in w for w in where):
            place = "command" if kind == "recovery" else "user message"
            found.append(f"{kind} {text!r}: in no {place}")
    for text in session["distractors"]:
        if not any(text in t for t in texts(session)):
            found.append(f"distractor {text!r}: not in the session")
        if any(text in label or label in text for label in labels):
            found.append(f"distractor {text!r}: overlaps a label")
    pieces = labels + list(session["distractors"])
    found += [f"{p!r}: holds a secret" for p in pieces for s in secrets if s in p]
    return found


def run(session: Session, work: Path) -> list[tuple[int, int, str]]:
    """(exchange number, exit status, command) for each command, run in order."""
    done = []
    for number, exchange in enumerate(session["exchanges"], 1):
        for step in exchange["steps"]:
            if "bash" in step:
                result = subprocess.run(["bash", "-c", step["bash"]], cwd=work,
                                        capture_output=True, text=True, timeout=60)  # fmt: skip
                done.append((number, result.returncode, step["bash"]))
    return done


def run_problems(session: Session, done: list[tuple[int, int, str]]) -> list[str]:
    """A recovery must fail, then be followed in its exchange by a command that succeeds."""
    found = []
    for label in session["labels"]:
        if label["kind"] != "recovery":
            continue
        at = [i for i, (_, _, command) in enumerate(done) if label["text"] in command]
        if not at or done[at[0]][1] == 0:
            found.append(f"recovery {label['text']!r}: its command did not fail")
            continue
        exchange = done[at[0]][0]
        later = [status for n, status, _ in done[at[0] + 1 :] if n == exchange]
        if 0 not in later:
            found.append(f"recovery {label['text']!r}: nothing after it succeeded")
    return found


def run_all(sessions: list[Session]) -> list[str]:
    from make import scratch

    found = []
    with tempfile.TemporaryDirectory() as temporary:
        for session in sessions:
            done = run(session, scratch(Path(temporary) / session["name"]))
            for number, status, command in done:
                if status:
                    print(f"  {session['name']} #{number}: exit {status}: {command[:70]}")
            found += [f"{session['name']}: {p}" for p in run_problems(session, done)]
    return found


def summary(sessions: list[Session]) -> str:
    kinds = Counter(label["kind"] for s in sessions for label in s["labels"])
    long = sum(len(s["exchanges"]) >= 15 for s in sessions)
    distractors = sum(len(s["distractors"]) for s in sessions)
    moments = ", ".join(f"{kinds[k]} {k}" for k in KINDS)
    return (f"{len(sessions)} sessions ({long} of 15+ exchanges): {moments}; "
            f"{distractors} distractors")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--module", default="heldout_scenarios", help="in bench/reflect/")
    parser.add_argument("--run", action="store_true", help="run every command for real")
    args = parser.parse_args(argv)
    module = importlib.import_module(args.module)
    tuning = importlib.import_module("scenarios")
    taken = set() if module is tuning else {s["name"] for s in tuning.SCENARIOS}
    sessions: list[Session] = module.SCENARIOS
    found = problems(sessions, tuple(getattr(module, "SECRETS", ())), taken)
    if args.run:
        found += run_all(sessions)
    for problem in found:
        print(f"Error: {problem}", file=sys.stderr)
    print(summary(sessions))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
