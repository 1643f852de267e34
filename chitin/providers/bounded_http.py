"""Reading an HTTP answer from a server that is not trusted: within a deadline for the
whole exchange, and never more than a cap of bytes, before or after decompression.

httpx alone bounds each read (a server sending a byte every few seconds is never
timed out), reads the whole body before anyone can look at its size, and inflates a
compressed body without limit (a gzip bomb). So the body is streamed raw, counted and
inflated here, chunk by chunk, and the deadline is looked at after every chunk.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable
from typing import NamedTuple

import httpx

# What an answer may be encoded in: chitin inflates these itself, within the cap.
ACCEPTED_ENCODINGS = "gzip, deflate"


class Answer(NamedTuple):
    """A whole answer, read within the limits."""

    status: int
    reason: str
    content_type: str
    retry_after: str | None
    body: bytes


class TooLarge(Exception):
    """The body (inflated) is larger than the cap."""


class TooSlow(Exception):
    """The deadline passed before the body was whole."""


class UnknownEncoding(Exception):
    """The body is compressed in a way chitin does not read."""


class Deadline:
    """The moment a whole exchange (a command's requests, retries and waits) must be
    done by. ``clock`` is injected by tests."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._end = clock() + seconds

    def left(self) -> float:
        return max(0.0, self._end - self._clock())

    def passed(self) -> bool:
        return self.left() <= 0.0


def read_answer(response: httpx.Response, limit: int, deadline: Deadline) -> Answer:
    """The answer of an open streamed ``response``, or TooLarge, TooSlow or
    UnknownEncoding, having read at most about ``limit`` bytes of it."""
    encoding = response.headers.get("content-encoding", "").strip().lower()
    body = _inflated(response.iter_raw(), encoding, limit, deadline)
    return Answer(
        response.status_code,
        response.reason_phrase,
        response.headers.get("content-type", ""),
        response.headers.get("retry-after"),
        body,
    )


def _inflated(chunks: Iterable[bytes], encoding: str, limit: int, deadline: Deadline) -> bytes:
    inflate = _inflater(encoding)
    parts: list[bytes] = []
    size = raw = 0
    for chunk in chunks:
        raw += len(chunk)  # what inflates to nothing (data after the end) counts too
        if raw > limit:
            raise TooLarge
        for piece in inflate(chunk, limit - size + 1):
            size += len(piece)
            if size > limit:
                raise TooLarge
            parts.append(piece)
        if deadline.passed():
            raise TooSlow
    return b"".join(parts)


Inflate = Callable[[bytes, int], Iterable[bytes]]


def _inflater(encoding: str) -> Inflate:
    if encoding in ("", "identity"):
        return lambda chunk, room: (chunk[:room],)
    if encoding in ("gzip", "x-gzip"):
        return _zlib(zlib.decompressobj(16 + zlib.MAX_WBITS))
    if encoding == "deflate":  # with the zlib header, as the standard says
        return _zlib(zlib.decompressobj())
    raise UnknownEncoding(encoding)


def _zlib(inflater: zlib._Decompress) -> Inflate:
    def inflate(chunk: bytes, room: int) -> Iterable[bytes]:
        # max_length: never more than one byte past the cap is inflated at once; what
        # is left of the chunk waits in unconsumed_tail.
        pending = chunk
        while pending:
            try:
                piece = inflater.decompress(pending, max(room, 1))
            except zlib.error:
                raise UnknownEncoding("a damaged compressed body") from None
            yield piece
            room -= len(piece)
            pending = inflater.unconsumed_tail

    return inflate
