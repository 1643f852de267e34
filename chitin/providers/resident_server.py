"""The resident embedder: one process per user and installation that keeps the local
model loaded and answers over a Unix socket (resident.py is its client, and says why).

    python -m chitin.providers.resident_server --socket PATH --key KEY [--idle S]
        [--prepared FOLDER]

Started detached by the first client that found none. One instance: it holds an
``flock`` on the socket's path with ``.lock`` for ``.sock`` for its whole life, from before its
model loads; a second one exits at once. It exits by itself after ``--idle`` seconds
without a request, removing its socket; killed, it leaves the socket file, which
refuses connections (clients fall back) until the next resident replaces it.

Each connection is served on a thread of its own (a slow client holds nobody up);
the model runs one batch at a time. Vectors of texts asked before are kept (at most
CACHED of them): a store's candidates come back at every ``contribute``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
import threading
import time
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeGuard

from chitin.lockfile import private_folder
from chitin.providers.local import LocalProvider
from chitin.providers.minilm import DIMENSIONS, LIGHT_LOAD_TEXTS
from chitin.providers.resident import (
    MAX_TEXTS,
    PROTOCOL,
    receive_frame,
    send_frame,
)
from chitin.residency import at_socket, peer_uid, release_lock, take_lock

CACHED = 20_000  # texts whose vectors are kept (1.5 KB each)
CLIENT_SECONDS = 5.0  # a client that sends nothing for this long is let go


class Embedder:
    """The loaded model and the vectors it made lately."""

    def __init__(self, prepared_root: Path | None) -> None:
        self.provider = LocalProvider(prepared_root=prepared_root)
        self.provider.warm()
        # More than a few texts take the tokenizer library (its 700 KB vocabulary is
        # parsed at the first use, ~0.1-0.2 s): parsed now, not in a client's wait.
        self.provider.embed(["warm"] * (LIGHT_LOAD_TEXTS + 1), "document")
        self.running = threading.Lock()
        self.kept: OrderedDict[str, bytes] = OrderedDict()

    def vectors(self, texts: Sequence[str]) -> bytes:
        """The texts' vectors as little-endian float32 rows, one after another."""
        with self.running:
            missing = list(dict.fromkeys(t for t in texts if t not in self.kept))
            if missing:
                made = self.provider.embed(missing, "document").astype("<f4")
                for text, row in zip(missing, made, strict=True):
                    self.kept[text] = row.tobytes()
            for text in texts:
                self.kept.move_to_end(text)
            rows = b"".join(self.kept[text] for text in texts)
            while len(self.kept) > CACHED:
                self.kept.popitem(last=False)
        return rows

    def tokens(self, texts: Sequence[str]) -> tuple[list[list[str]], bytes]:
        """The texts' word pieces, and their token vectors as little-endian float32
        rows, text after text (not kept: the door asks for them rarely)."""
        with self.running:
            made = self.provider.tokens(texts)
        rows = b"".join(_little_endian(row) for _, found in made for row in found)
        return [list(pieces) for pieces, _ in made], rows


class Server:
    def __init__(self, path: Path, key: str, idle: float, embedder: Embedder) -> None:
        self.path = path
        self.key = key
        self.idle = idle
        self.embedder = embedder
        self.last = time.monotonic()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

    def bind(self) -> None:
        """Take the socket's path (a file left by a killed resident is stale: we hold
        the lock), readable and writable by the user alone."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        previous = os.umask(0o177)
        try:
            at_socket(str(self.path), self.listener.bind)
        finally:
            os.umask(previous)
        self.listener.listen(16)
        self.bound = os.stat(self.path).st_ino

    def serve(self) -> None:
        """Answer until ``idle`` seconds pass without a request."""
        while True:
            left = self.idle - (time.monotonic() - self.last)
            if left <= 0:
                return
            self.listener.settimeout(left)
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.last = time.monotonic()
            threading.Thread(target=self.answer, args=(connection,), daemon=True).start()

    def answer(self, connection: socket.socket) -> None:
        with connection, contextlib.suppress(OSError, ValueError, UnicodeDecodeError):
            if peer_uid(connection) not in (None, os.getuid()):
                return
            request = receive_frame(connection, time.monotonic() + CLIENT_SECONDS)
            texts = request.get("texts")
            if request.get("protocol") != PROTOCOL or request.get("key") != self.key:
                send_frame(connection, {"key": self.key, "error": "another installation"})
                return
            if not _texts(texts):
                send_frame(connection, {"key": self.key, "error": "texts: a list of strings"})
                return
            header: dict[str, object] = {
                "key": self.key,
                "rows": len(texts),
                "dimensions": DIMENSIONS,
            }
            if request.get("tokens") is True:
                header["pieces"], rows = self.embedder.tokens(texts)
            else:
                rows = self.embedder.vectors(texts)
            self.last = time.monotonic()
            send_frame(connection, header, rows)

    def close(self) -> None:
        """Remove the socket if it is still ours (not a successor's)."""
        with contextlib.suppress(OSError):
            if os.stat(self.path).st_ino == self.bound:
                self.path.unlink()
        self.listener.close()


def _little_endian(row: Any) -> bytes:
    values = array("f", row)
    if sys.byteorder == "big":
        values.byteswap()
    return values.tobytes()


def _texts(texts: Any) -> TypeGuard[list[str]]:
    return (
        isinstance(texts, list)
        and 0 < len(texts) <= MAX_TEXTS
        and all(isinstance(text, str) for text in texts)
    )


def run(path: Path, key: str, idle: float, prepared_root: Path | None) -> int:
    if not private_folder(path.parent, True):
        return 1
    held = take_lock(path.with_suffix(".lock"))
    if held is None:
        return 0  # another one runs, or is starting
    try:
        return _serve(path, key, idle, prepared_root)
    finally:
        release_lock(path.with_suffix(".lock"), held)


def _serve(path: Path, key: str, idle: float, prepared_root: Path | None) -> int:
    try:
        embedder = Embedder(prepared_root)
    except Exception:  # no model to load: say so to the clients, who stop starting us
        path.with_suffix(".failed").touch()
        return 1
    server = Server(path, key, idle, embedder)
    try:
        server.bind()
    except OSError:  # an unusable folder: the clients stop starting us for a while
        path.with_suffix(".failed").touch()
        return 1
    try:
        server.serve()
    finally:
        server.close()
        embedder.provider.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="chitin-resident-embedder")
    parser.add_argument("--socket", type=Path, required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--idle", type=float, default=300.0)
    parser.add_argument("--prepared", type=Path, default=None)
    args = parser.parse_args(argv)
    return run(args.socket, args.key, args.idle, args.prepared)


if __name__ == "__main__":
    sys.exit(main())
