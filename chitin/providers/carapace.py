"""The Carapace HTTP client: four endpoints, one request loop, one error type.

Every failure becomes a ``CarapaceError`` whose text is one line: the server's message
and code, plus what its ``details`` say (the existing id of a duplicate, the scanner's
reasons, the rejected fields, the wait of a rate limit). A refused connection, a
timeout and a body that is not JSON (a proxy's HTML page) read the same way. The API
key travels only in the Authorization header; it is never part of a message, and
where a server echoes it (in an error, in a result) it is redacted before anyone sees
the answer.

The server is not trusted: the whole command has a deadline (retries and waits
included), and an answer is read streamed, capped before it is read in full and
while it is inflated (see bounded_http.py).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

import httpx

from chitin.errors import ChitinError
from chitin.model.carapace import shown
from chitin.providers.bounded_http import (
    ACCEPTED_ENCODINGS,
    Answer,
    Deadline,
    TooLarge,
    TooSlow,
    UnknownEncoding,
    read_answer,
)

CONNECT_SECONDS = 10.0
READ_SECONDS = 30.0
RETRIES = 3  # attempts after the first, for a 429 or a 5xx
BACKOFF_SECONDS = 0.5  # doubled after each retry
MAX_WAIT_SECONDS = 10.0  # a longer Retry-After is reported, not slept through
MAX_ANSWER_BYTES = 4 * 1024 * 1024
DEADLINE_SECONDS = 60.0  # for a whole command: $CARAPACE_TIMEOUT or carapace.timeout
REDACTED_KEY = "[redacted API key]"
SAID_TEXT = 300  # characters of each of the server's texts in an error line


class CarapaceError(ChitinError):
    """Carapace refused or could not be reached. ``code`` is the server's (or ours:
    NETWORK_ERROR, TIMEOUT, BAD_RESPONSE); ``status`` is the HTTP status, if any."""

    prefix = "Carapace error"

    def __init__(
        self,
        message: str,
        code: str,
        status: int | None = None,
        details: Mapping[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.message = message
        self.code = code
        self.status = status
        self.details = dict(details or {})
        self.retry_after = retry_after
        super().__init__(_line(message, code, self.details, retry_after))


def _line(message: str, code: str, details: Mapping[str, Any], wait: float | None) -> str:
    said = [f"{_said(message)} ({_said(code)})"]
    existing = details.get("existingId")
    if isinstance(existing, str):
        said.append(f"the existing contribution is {_said(existing)}")
    reasons = details.get("reasons")
    if isinstance(reasons, list) and reasons:
        said.append(_said("; ".join(str(r) for r in reasons)))
    fields = details.get("fields")
    if isinstance(fields, list) and fields and "; ".join(map(str, fields)) != message:
        said.append(_said("; ".join(str(f) for f in fields)))
    if wait is not None:
        said.append(f"try again in {_duration(wait)}")
    return ": ".join(said)


def _said(text: str) -> str:
    """The server's text as the error line holds it: on one line, its control characters
    made visible (never obeyed by the terminal), and cut short (a refusal is a sentence,
    not a page)."""
    text = shown(" ".join(text.split()))
    return text if len(text) <= SAID_TEXT else text[:SAID_TEXT] + "…"


def _duration(seconds: float) -> str:
    whole = max(1, round(seconds))
    if whole >= 2 * 86_400:
        return f"{whole // 86_400} days"
    minutes, rest = divmod(whole, 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


class CarapaceClient:
    """``base_url`` ends in ``/api/v1``; ``api_key`` is needed by ``contribute`` and
    ``query`` only. ``client`` and ``sleep`` are injected by tests."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
        deadline: float = DEADLINE_SECONDS,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._key = api_key
        self._deadline = Deadline(deadline)
        self._client = client or httpx.Client(
            timeout=httpx.Timeout(READ_SECONDS, connect=CONNECT_SECONDS),
            follow_redirects=False,  # a redirect would carry the key elsewhere
        )
        self._sleep = sleep

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> CarapaceClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def register(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._request("POST", "/agents", body, auth=False)

    def contribute(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._request("POST", "/contributions", body, auth=True)

    def contribution(self, contribution_id: str) -> dict[str, Any]:
        return self._request("GET", f"/contributions/{quote(contribution_id, safe='')}", None)

    def query(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._request("POST", "/query", body, auth=True)

    # -------------------------------------------------------------- the loop

    def _request(
        self, method: str, path: str, body: Mapping[str, Any] | None, auth: bool = False
    ) -> dict[str, Any]:
        headers = {"Accept": "application/json", "Accept-Encoding": ACCEPTED_ENCODINGS}
        content = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            # UTF-8 as it is: \\u escapes would grow a non-English text sixfold
            # against the server's 50 KB limit.
            content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        if auth:
            if not self._key:
                raise CarapaceError("API key is required", "MISSING_API_KEY")
            headers["Authorization"] = f"Bearer {self._key}"
        wait = BACKOFF_SECONDS
        for attempt in range(RETRIES + 1):
            answer = self._send(method, path, headers, content)
            if answer.status < 300:
                return redacted(_answer(answer), self._key)
            error = self._without_key(_refusal(answer))
            pause = error.retry_after if error.retry_after is not None else wait
            if not _worth_retrying(error, attempt) or pause >= self._deadline.left():
                raise error
            self._sleep(pause)
            wait *= 2
        raise AssertionError("unreachable")

    def _without_key(self, error: CarapaceError) -> CarapaceError:
        """The error with the API key redacted wherever the server echoed it."""
        if not self._key or self._key not in str(error) + json.dumps(error.details):
            return error
        return CarapaceError(
            redacted(error.message, self._key),
            redacted(error.code, self._key),
            error.status,
            redacted(error.details, self._key),
            error.retry_after,
        )

    def _send(
        self, method: str, path: str, headers: dict[str, str], content: bytes | None
    ) -> Answer:
        url = self.base_url + path
        timeout = self._timeout(url)
        try:
            with self._client.stream(
                method, url, headers=headers, content=content, timeout=timeout
            ) as response:
                return read_answer(response, MAX_ANSWER_BYTES, self._deadline)
        except TooSlow:
            raise self._late(url) from None
        except TooLarge:
            raise CarapaceError(
                f"the answer from {_host(url)} is larger than {MAX_ANSWER_BYTES:,} bytes; "
                "it was not read further",
                "BAD_RESPONSE",
            ) from None
        except UnknownEncoding as error:
            raise CarapaceError(
                f"the answer from {_host(url)} is compressed as {str(error)[:40]!r}, which "
                f"chitin does not read (it asks for {ACCEPTED_ENCODINGS})",
                "BAD_RESPONSE",
            ) from None
        except httpx.TimeoutException as error:
            if self._deadline.passed():
                raise self._late(url) from None
            connecting = isinstance(error, httpx.ConnectTimeout)
            limit = timeout.connect if connecting else timeout.read
            raise CarapaceError(
                f"no {'connection' if connecting else 'answer'} from {_host(url)} "
                f"within {limit or 0:g} s",
                "TIMEOUT",
            ) from None
        except httpx.ConnectError as error:
            raise CarapaceError(
                f"cannot connect to {_host(url)}: {_reason(error)}", "NETWORK_ERROR"
            ) from None
        except httpx.HTTPError as error:
            said = redacted(_reason(error), self._key)  # httpx may quote the headers
            raise CarapaceError(
                f"the connection to {_host(url)} failed: {said}", "NETWORK_ERROR"
            ) from None

    def _timeout(self, url: str) -> httpx.Timeout:
        """The client's own timeouts, cut to what is left of the deadline."""
        left = self._deadline.left()
        if left <= 0:
            raise self._late(url)
        own = self._client.timeout
        return httpx.Timeout(
            min(own.read or READ_SECONDS, left),
            connect=min(own.connect or CONNECT_SECONDS, left),
            write=min(own.write or READ_SECONDS, left),
            pool=min(own.pool or CONNECT_SECONDS, left),
        )

    def _late(self, url: str) -> CarapaceError:
        return CarapaceError(
            f"no complete answer from {_host(url)} within {self._deadline.seconds:g} s, "
            "the time a Carapace command may take (set $CARAPACE_TIMEOUT or "
            "carapace.timeout in chitin.yaml)",
            "TIMEOUT",
        )


def _worth_retrying(error: CarapaceError, attempt: int) -> bool:
    """A 5xx or a 429 is tried again (a 429 only when its wait is short); no other 4xx."""
    if attempt >= RETRIES or error.status is None:
        return False
    if error.status == 429:
        return error.retry_after is None or error.retry_after <= MAX_WAIT_SECONDS
    return error.status >= 500


def _answer(answer: Answer) -> dict[str, Any]:
    data = _json(answer)
    if not isinstance(data, dict):
        what = (
            _what(answer, data) if data in UNREAD else f"JSON {_JSON_KINDS.get(type(data), 'data')}"
        )
        raise CarapaceError(
            f"HTTP {answer.status}, but the answer is {what}, not a Carapace JSON object",
            "BAD_RESPONSE",
            answer.status,
        )
    return data


def _refusal(answer: Answer) -> CarapaceError:
    status = answer.status
    data = _json(answer)
    error = data.get("error") if isinstance(data, dict) else None
    wait = _retry_after(answer, error)
    if not isinstance(error, dict):
        reason = answer.reason or "error"
        what = _what(answer, data) if data in UNREAD else "JSON of another shape"
        return CarapaceError(
            f"HTTP {status} {reason}, and the answer is {what}, not Carapace's "
            "JSON (is a proxy in the way?)",
            f"HTTP_{status}",
            status,
            retry_after=wait,
        )
    message = error.get("message")
    code = error.get("code")
    details = error.get("details")
    return CarapaceError(
        message if isinstance(message, str) and message.strip() else f"HTTP {status}",
        code if isinstance(code, str) and code.strip() else "API_ERROR",
        status,
        details if isinstance(details, dict) else None,
        wait,
    )


def _retry_after(answer: Answer, error: object) -> float | None:
    if answer.status != 429:
        return None
    said: object = answer.retry_after
    if said is None and isinstance(error, dict) and isinstance(error.get("details"), dict):
        said = error["details"].get("retryAfter")
    seconds: float | None
    try:
        seconds = float(said)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):  # OverflowError: a 400-digit JSON integer
        seconds = _until(said)
    # A wait read as none is retried at once: so every wait given is kept, however long.
    return seconds if seconds is not None and math.isfinite(seconds) and seconds >= 0 else None


def _until(said: object) -> float | None:
    """The seconds until an HTTP-date, Retry-After's other form (RFC 9110), or None."""
    try:
        moment = parsedate_to_datetime(said) if isinstance(said, str) else None
    except (TypeError, ValueError, IndexError):
        return None
    if moment is None or moment.tzinfo is None:
        return None
    return max(0.0, moment.timestamp() - time.time())


NOT_JSON = object()  # what _json gives for a body that does not parse (JSON's null is None)
TOO_DEEP = object()  # ... and for one nested too deeply to read (a RecursionError)
UNREAD = (NOT_JSON, TOO_DEEP)
_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "true/false"}
_JSON_KINDS[type(None)] = "null"


def _json(answer: Answer) -> object:
    try:
        return json.loads(answer.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return NOT_JSON
    except RecursionError:  # json's decoder recurses once per [ or {
        return TOO_DEEP


def _what(answer: Answer, data: object) -> str:
    """What came back instead of JSON, in a few words."""
    if data is TOO_DEEP:
        return "JSON nested too deeply to read"
    kind = answer.content_type.split(";")[0].strip()
    if not answer.body:
        return "empty"
    if "html" in kind or answer.body.lstrip()[:1] == b"<":
        return "an HTML page"
    return f"{kind or 'text'} that is not JSON"


Redactable = TypeVar("Redactable")


def redacted(value: Redactable, key: str | None) -> Redactable:
    """``value`` (a server's JSON) with the API key replaced wherever it appears, in
    any string at any depth: a server that echoes it must not make chitin print it."""
    if not key:
        return value
    if isinstance(value, str):
        return value.replace(key, REDACTED_KEY)  # type: ignore[return-value]
    if isinstance(value, dict):
        return {redacted(k, key): redacted(v, key) for k, v in value.items()}  # type: ignore[return-value]
    if isinstance(value, list):
        return [redacted(item, key) for item in value]  # type: ignore[return-value]
    return value


def _host(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc or url


def _reason(error: BaseException) -> str:
    text = " ".join(str(error).split())
    if "refused" in text.lower():
        return "connection refused"
    return text[:200] or type(error).__name__
