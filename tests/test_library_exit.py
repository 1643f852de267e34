"""A program that exits while one of its threads embeds with the local model must end
cleanly: onnxruntime's threads torn down under a run in progress aborted the process
("terminate called without an active exception", issue 27 item 11)."""

from __future__ import annotations

import subprocess
import sys
import threading

from chitin.providers.local import LocalProvider

PROGRAM = """
import sys, threading, time
from chitin.providers.local import LocalProvider

started = threading.Event()
texts = [f"text number {n} about a thing that matters somewhat" * 3 for n in range(64)]

def work():
    provider = LocalProvider()
    provider.embed(texts)
    started.set()
    while True:
        provider.embed(texts)

threading.Thread(target=work, daemon=True).start()
started.wait()
time.sleep(float(sys.argv[1]))
print("leaving")
"""


def test_exiting_while_a_daemon_thread_embeds_ends_cleanly() -> None:
    # On the code before the fix, 7 runs in 10 of these aborted.
    for delay in ("0.01", "0.03", "0.05", "0.07", "0.09", "0.2"):
        result = subprocess.run(
            [sys.executable, "-c", PROGRAM, delay], capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0, (delay, result.returncode, result.stderr[-500:])
        assert result.stdout == "leaving\n" and result.stderr == "", result.stderr[-500:]


def test_close_waits_for_an_embedding_on_another_thread() -> None:
    provider = LocalProvider()
    texts = [f"sentence {n} for the model to embed" for n in range(48)]
    provider.embed(texts)
    done: list[int] = []
    inside = threading.Event()
    original = provider._batch

    embedded: list[int] = []

    def batch(chunk: list[str]) -> object:
        inside.set()
        found = original(chunk)
        embedded.append(len(chunk))
        return found

    provider._batch = batch  # type: ignore[method-assign]
    worker = threading.Thread(target=lambda: done.append(len(provider.embed(texts))))
    worker.start()
    inside.wait()
    provider.close()  # returns once the embedding on the other thread has ended
    assert sum(embedded) == 48  # every batch ran to its end before close returned
    worker.join(timeout=60)
    assert done == [48]
    worker.join()
