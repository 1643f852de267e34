"""A Ctrl-C between the console's loading and the CLI's own handling of it (the entry
of the click group's ``main``, before ``cli/outcome.conclude``) printed Python's
traceback and ended by the signal (stress48: SIGINTs sent 40-120 ms into fresh
contributes, the front off, 1 to 4 in 150). No command has begun there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# The signal as it lands at the group's entry, in a whole process: run_command ends the
# process (process.leave), so it cannot run in the test's own.
AT_THE_ENTRY = """
import sys
from chitin.cli.group import ChitinGroup
def interrupted(*args, **kwargs):
    raise KeyboardInterrupt
ChitinGroup.main = interrupted
from chitin.console import run_command
run_command(sys.argv[1:])
"""


def test_a_ctrl_c_at_the_cli_entry_says_nothing_was_changed(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHITIN_")}
    env.update(HOME=str(tmp_path), CHITIN_FRONT="0", CHITIN_BACKGROUND_EMBED="off")
    env.update(GIT_CONFIG_GLOBAL=str(tmp_path / "gitconfig"), GIT_CONFIG_NOSYSTEM="1")
    (tmp_path / "gitconfig").write_text("[user]\n\tname = t\n\temail = t@example.org\n")
    store = tmp_path / "store"
    chitin = [sys.executable, "-m", "chitin", "--store", str(store)]
    subprocess.run([*chitin, "init"], env=env, check=True, capture_output=True)
    head = subprocess.run(["git", "-C", str(store), "rev-parse", "HEAD"], capture_output=True)
    claim = ["contribute", "--type", "skill", "--claim", "Say so when nothing began"]
    result = subprocess.run(
        [sys.executable, "-c", AT_THE_ENTRY, "--store", str(store), *claim],
        env=env,
        capture_output=True,
        text=True,
    )
    assert (result.returncode, result.stderr) == (130, "Interrupted: nothing was changed.\n")
    after = subprocess.run(["git", "-C", str(store), "rev-parse", "HEAD"], capture_output=True)
    assert after.stdout == head.stdout
    assert subprocess.run(["git", "-C", str(store), "status", "--porcelain"],
                          capture_output=True).stdout == b""  # fmt: skip
