"""HTTP embedding providers: Voyage, and any OpenAI-compatible ``/v1/embeddings``.

Both send batches in order, retry a 429 or a 5xx with exponential backoff, and
otherwise turn HTTP failures into the original's messages. The ``httpx.Client`` is
injected, so tests use ``httpx.MockTransport`` or a loopback server.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx
import numpy as np

from chitin.providers import INTERACTIVE_SECONDS, ProviderError, ProviderTimeout, due
from chitin.providers.arrays import normalized
from chitin.providers.bounded_http import (
    ACCEPTED_ENCODINGS,
    Deadline,
    TooLarge,
    TooSlow,
    UnknownEncoding,
    read_answer,
)

RETRIES = 4  # attempts after the first, for 429 and 5xx
BACKOFF_SECONDS = 0.5  # doubled after each retry
TIMEOUT_SECONDS = 30.0  # for each read
# For one whole answer when no one waits (`chitin embed`, the background embedding):
# a server that sends a byte within every read's timeout never times out otherwise.
DEADLINE_SECONDS = 120.0
DEADLINE_VARIABLE = "CHITIN_EMBED_TIMEOUT"  # seconds, 1 to MAX_DEADLINE
MAX_DEADLINE = 3600.0
# Bytes of one answer, inflated: 128 texts of 3,072 numbers as JSON take about 9 MB.
MAX_ANSWER_BYTES = 32 * 1024 * 1024


class HTTPProvider:
    """The shared request loop; subclasses say where to send what."""

    name = ""
    label = ""
    key_variable = ""
    default_url = ""
    default_model = ""
    batch_size = 128
    known_dimensions: Mapping[str, int] = {}

    def __init__(
        self,
        model: str,
        key: str,
        base_url: str,
        client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
        deadline: float = DEADLINE_SECONDS,
    ) -> None:
        self.model = model
        self.deadline = deadline  # seconds for one whole answer, when no one waits
        self.key = key
        self.base_url = base_url.rstrip("/")
        self.client = client or httpx.Client(timeout=TIMEOUT_SECONDS)
        self.sleep = sleep
        self._dimensions = self.known_dimensions.get(model)
        self._remembered = False  # the size is the sidecar's (see ``sized``)

    @classmethod
    def from_environment(
        cls, model: str | None, env: Mapping[str, str], client: httpx.Client | None
    ) -> HTTPProvider:
        """The provider as the environment sets it up. The key is needed for the
        provider's own service; an endpoint of one's own (``*_BASE_URL``, such as a local
        Ollama, which takes no key) may go without."""
        key = env.get(cls.key_variable, "").strip()
        base_variable = f"{cls.key_variable.split('_')[0]}_BASE_URL"
        base = env.get(base_variable, "").strip()
        if not key and not base:
            raise ProviderError(
                f"Missing API key for {cls.name}: set {cls.key_variable} environment variable"
            )
        _check_sendable(cls.key_variable, key, header=True)
        _check_sendable(base_variable, base, header=False)
        deadline = _deadline(env.get(DEADLINE_VARIABLE, "").strip())
        return cls(
            model or cls.default_model, key, base or cls.default_url, client, deadline=deadline
        )

    @property
    def unsized(self) -> bool:
        """Whether the model's size is still to be asked (see ``sized``)."""
        return self._dimensions is None

    def sized(self, dimensions: int) -> None:
        """Take the model's size as learnt before (the vector sidecar keeps it)."""
        self._dimensions, self._remembered = dimensions, True

    @property
    def dimensions(self) -> int:
        """Known for the usual models; asked of the endpoint once for any other."""
        if self._dimensions is None:
            self._dimensions = int(self._request(["dimension probe"], "document").shape[1])
        return self._dimensions

    def embed(self, texts: Sequence[str], kind: str = "document") -> np.ndarray:
        rows = [
            self._request(texts[i : i + self.batch_size], kind)
            for i in range(0, len(texts), self.batch_size)
        ]
        if not rows:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.vstack(rows)

    def _request(self, texts: Sequence[str], kind: str) -> np.ndarray:
        response = self._post(self.body(list(texts), kind))
        return normalized(self._vectors(response, len(texts)))

    def body(self, texts: list[str], kind: str) -> dict[str, Any]:
        return {"input": texts, "model": self.model}

    def _post(self, body: dict[str, Any]) -> httpx.Response:
        """The answer, retried on 429 and 5xx, each whole within ``deadline`` seconds;
        but with someone waiting (``answering``), asked once, within what is left of
        their wait."""
        wait = BACKOFF_SECONDS
        end = due()
        for attempt in range(RETRIES + 1):
            left = None if end is None else max(0.05, end - time.monotonic())
            whole = Deadline(self.deadline if left is None else left)
            if left is None and self.deadline < TIMEOUT_SECONDS:
                left = self.deadline  # no read may wait past it either
            try:
                headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
                headers["Accept-Encoding"] = ACCEPTED_ENCODINGS  # inflated by us, capped
                with self.client.stream(
                    "POST",
                    f"{self.base_url}/embeddings",
                    json=body,
                    headers=headers,
                    timeout=httpx.USE_CLIENT_DEFAULT if left is None else httpx.Timeout(left),
                ) as streamed:
                    response = self._whole(streamed, whole)
            except (httpx.TimeoutException, TooSlow) as error:
                if end is None and (isinstance(error, TooSlow) or whole.passed()):
                    raise ProviderError(
                        f"{self.label} API gave no complete answer within {self.deadline:g} s "
                        f"(set ${DEADLINE_VARIABLE} to allow longer)"
                    ) from None
                if end is None:
                    raise ProviderError(f"{self.label} API unreachable: {error}") from None
                raise ProviderTimeout(
                    f"{self.label} API gave no answer within {INTERACTIVE_SECONDS:g} s"
                ) from None
            except httpx.HTTPError as error:
                raise ProviderError(f"{self.label} API unreachable: {error}") from None
            retry = response.status_code == 429 or response.status_code >= 500
            if not retry or attempt == RETRIES or end is not None:
                return self._checked(response)
            self.sleep(_retry_after(response, wait))
            wait *= 2
        raise AssertionError("unreachable")

    def _whole(self, streamed: httpx.Response, deadline: Deadline) -> httpx.Response:
        """The answer read in full, but never more than MAX_ANSWER_BYTES of it, before
        or after inflating (a server's endless body or gzip bomb), by ``deadline`` (a
        server that sends a byte at a time)."""
        if streamed.is_stream_consumed:  # read by its transport (an httpx.MockTransport)
            return streamed
        try:
            answer = read_answer(streamed, MAX_ANSWER_BYTES, deadline)
        except TooLarge:
            raise ProviderError(
                f"{self.label} API answered with more than {MAX_ANSWER_BYTES:,} bytes; "
                "it was not read further"
            ) from None
        except UnknownEncoding as error:
            raise ProviderError(
                f"{self.label} API answered in an encoding chitin does not read ({error})"
            ) from None
        kept = {"content-type": answer.content_type}
        if answer.retry_after is not None:
            kept["retry-after"] = answer.retry_after
        return httpx.Response(answer.status, headers=kept, content=answer.body)

    def _checked(self, response: httpx.Response) -> httpx.Response:
        status = response.status_code
        if status < 300:
            return response
        detail = _detail(response, self.key)
        if status == 401:
            # No key at all: a server of the user's own (a base URL) that wants one.
            check = (
                f"check {self.key_variable}"
                if self.key
                else f"the server at {self.base_url} wants an API key, and "
                f"{self.key_variable} is not set"
            )
            raise ProviderError(f"{self.label} API authentication failed (401): {check}")
        if status == 429:
            raise ProviderError(f"{self.label} API rate limited (429): {detail}")
        raise ProviderError(f"{self.label} API error ({status}): {detail}")

    def _vectors(self, response: httpx.Response, count: int) -> np.ndarray:
        try:
            data = response.json().get("data")
        except (ValueError, AttributeError):
            raise ProviderError(f"{self.label} API returned malformed JSON") from None
        if not isinstance(data, list):
            raise ProviderError(
                f"{self.label} API returned unexpected response format: missing data array"
            )
        if len(data) != count:
            raise ProviderError(
                f"{self.label} API returned unexpected response format: "
                f"{len(data)} vector{'' if len(data) == 1 else 's'} for {count} "
                f"text{'' if count == 1 else 's'}"
            )
        expected = self._dimensions
        rows = []
        for number, item in enumerate(self._ordered(data)):
            vector = item.get("embedding")
            if not isinstance(vector, list) or not vector or (expected and len(vector) != expected):
                got = len(vector) if isinstance(vector, list) else "no vector"
                wanted = expected or "at least 1"
                raise ProviderError(
                    f"Dimension mismatch for text {number}: expected {wanted}, got {got}"
                    + self._changed_size(got)
                )
            expected = len(vector)
            rows.append(vector)
        return self._numbers(rows)

    def _changed_size(self, got: object) -> str:
        """What to do when the model gives vectors of another size than the sidecar
        remembers for it: replaced under the same name, it is embedded with anew."""
        if not self._remembered or not isinstance(got, int):
            return ""
        return f"; {self.model} now gives vectors of another size: run `chitin embed --force`"

    def _ordered(self, data: list[Any]) -> list[dict[str, Any]]:
        """The items in the order of the texts sent: by ``index``, each of 0 to n-1 once
        (an item that is no object, or a text or null index, raised from the sort)."""
        indexes = [
            item.get("index", n) if isinstance(item, dict) else None for n, item in enumerate(data)
        ]
        if sorted(i if type(i) is int else -1 for i in indexes) != list(range(len(data))):
            raise ProviderError(
                f"{self.label} API returned unexpected response format: the data items "
                f"must be objects indexed 0 to {len(data) - 1}, once each"
            )
        return [item for _, item in sorted(zip(indexes, data, strict=True))]

    def _numbers(self, rows: list[list[Any]]) -> np.ndarray:
        """The vectors as float32, refused unless each is of finite numbers: a text, a
        null, a nested list, NaN or a value past float32's range would be stored, and
        every search that met it would rank by NaN (a text raised ValueError); JSON's
        true and false are no numbers either (numpy reads them as 1 and 0), nor is a
        numeral in quotes (numpy reads "0.5" as 0.5). A vector of zeros has no
        direction: as a query's, it scored every insight 0, exact text matches too,
        where a refusal lets retrieve go on by text and say so."""
        try:
            numbers = all(type(value) in (int, float) for row in rows for value in row)
            vectors = np.asarray(rows, dtype=np.float64) if numbers else np.empty(0)
        except (TypeError, ValueError, OverflowError):  # an integer past float64 overflows
            vectors = np.empty(0)
        with np.errstate(over="ignore"):
            vectors = vectors.astype(np.float32)
        if vectors.ndim != 2 or not np.isfinite(vectors).all():
            raise ProviderError(
                f"{self.label} API returned unexpected response format: "
                "an embedding is not a list of finite numbers"
            )
        if not vectors.any(axis=1).all():
            raise ProviderError(
                f"{self.label} API returned unexpected response format: "
                "an embedding is all zeros, which has no direction to compare"
            )
        return vectors


class VoyageProvider(HTTPProvider):
    name = "voyage"
    label = "Voyage"
    key_variable = "VOYAGE_API_KEY"
    default_url = "https://api.voyageai.com/v1"
    default_model = "voyage-3-lite"
    known_dimensions: Mapping[str, int] = {
        "voyage-3-lite": 512,
        "voyage-3": 1024,
        "voyage-code-3": 1024,
        "voyage-3.5": 1024,
        "voyage-3.5-lite": 1024,
    }

    def body(self, texts: list[str], kind: str) -> dict[str, Any]:
        return {"input": texts, "model": self.model, "input_type": kind}


class OpenAIProvider(HTTPProvider):
    name = "openai"
    label = "OpenAI"
    key_variable = "OPENAI_API_KEY"
    default_url = "https://api.openai.com/v1"
    default_model = "text-embedding-3-small"
    known_dimensions: Mapping[str, int] = {
        "text-embedding-3-small": 1536,
        "text-embedding-3-large": 3072,
        "text-embedding-ada-002": 1536,
    }


def _check_sendable(variable: str, value: str, *, header: bool) -> None:
    """Refuse, as a provider failure (retrieval goes on by text), a key an HTTP header
    cannot carry (a pasted curly quote, a byte that is not UTF-8) or a URL that is not
    UTF-8: httpx raised UnicodeEncodeError, and every session start failed (exit 3).
    The value is never repeated: it may be a key."""
    try:
        value.encode("ascii" if header else "utf-8")
    except UnicodeEncodeError as error:
        raise ProviderError(
            f"{variable} holds a character an HTTP request cannot carry (at character "
            f"{error.start + 1}); check it"
        ) from None


def _deadline(raw: str) -> float:
    """$CHITIN_EMBED_TIMEOUT, if set: seconds, 1 to MAX_DEADLINE; else the default."""
    if not raw:
        return DEADLINE_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = float("nan")
    if not 1 <= seconds <= MAX_DEADLINE:
        raise ProviderError(
            f"${DEADLINE_VARIABLE} must be a number of seconds from 1 to {MAX_DEADLINE:g}, "
            f"got {raw[:40]!r}"
        )
    return seconds


def _detail(response: httpx.Response, key: str) -> str:
    """What the server said went wrong, in at most 300 characters, with the API key
    redacted (before the cut, so that no part of it is left): a server that echoes the
    key must not make chitin print it."""
    try:
        body = response.json()
    except ValueError:
        return _shown(response.text, key) or response.reason_phrase
    if isinstance(body, dict):
        for name in ("detail", "message", "error"):
            value = body.get(name)
            if isinstance(value, dict):
                value = value.get("message")
            if value:
                return _shown(str(value), key)
    return _shown(response.text, key)


def _shown(text: str, key: str) -> str:
    return (text.replace(key, "[redacted API key]") if key else text).strip()[:300].strip()


def _retry_after(response: httpx.Response, fallback: float) -> float:
    try:
        return min(30.0, max(0.0, float(response.headers.get("retry-after", fallback))))
    except ValueError:
        return fallback


# By name, for the registry (providers/__init__.py).
HTTP_PROVIDERS: dict[str, type[HTTPProvider]] = {
    provider.name: provider for provider in (VoyageProvider, OpenAIProvider)
}
