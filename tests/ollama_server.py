"""A loopback server that speaks Ollama's OpenAI-compatible embeddings endpoint.

``POST /v1/embeddings`` with ``{"model", "input"}`` (a string or a list of strings)
answers ``{"object": "list", "data": [{"object": "embedding", "embedding": [...],
"index": n}], "model", "usage"}``, as Ollama does. A model that was never pulled is
a 404 with OpenAI's error shape and Ollama's words (``model "x" not found, try
pulling it first``); a body that is not JSON, or has no input, is a 400. Ollama needs
no API key and ignores one.

Stand-in for the model: a bag of lower-cased words hashed into ``dimensions`` buckets,
so texts that share words are near and the rest are not. ``requests`` keeps every
body received, with its Authorization header.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODELS = {"nomic-embed-text": 768, "mxbai-embed-large": 1024}


def bag_of_words(text: str, dimensions: int) -> list[float]:
    vector = [0.0] * dimensions
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vector[int(hashlib.blake2b(word.encode(), digest_size=4).hexdigest(), 16) % dimensions] += 1
    if not any(vector):
        vector[0] = 1.0
    return vector


class OllamaServer:
    def __init__(self, pulled: tuple[str, ...] = ("nomic-embed-text",)) -> None:
        self.pulled = pulled
        # Set, every request waits for it to be set again (or 60 s) before it is
        # answered: an Ollama that hangs (busy loading a model, a stuck GPU).
        self.hang = threading.Event()
        self.released = threading.Event()
        self.hang_on = b""  # only requests whose body holds this hang
        # Set to n, every request after the n-th hangs as ``hang`` does: a server that
        # stops answering partway through a command.
        self.hang_after: int | None = None
        self.received = 0
        self.counting = threading.Lock()
        # Requests whose body holds this fail with a 503 (Retry-After: 0, so that the
        # client's retries cost no time): a server that breaks partway through a run.
        self.fail_on: bytes | None = None
        # Set, a request without ``Bearer <key>`` is a 401: a server of one's own that
        # wants a key (a proxy in front of Ollama, vLLM with --api-key).
        self.key: str | None = None
        self.requests: list[tuple[str | None, dict[str, Any]]] = []
        # The size of each model's vectors: a test may change it, as a model replaced
        # under the same name does.
        self.sizes = dict(MODELS)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                with server.counting:
                    server.received += 1
                    late = server.hang_after is not None and server.received > server.hang_after
                if late or (server.hang.is_set() and server.hang_on in raw):
                    server.released.wait(60)
                status, body = server.answer(self.path, self.headers.get("Authorization"), raw)
                if server.fail_on is not None and server.fail_on in raw:
                    status, body = 503, _error("model runner has unexpectedly stopped", "api_error")
                data = json.dumps(body).encode()
                self.send_response(status)
                if status == 503:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v1"

    def __enter__(self) -> OllamaServer:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.released.set()
        self.http.shutdown()
        self.http.server_close()

    def answer(self, path: str, authorization: str | None, raw: bytes) -> tuple[int, Any]:
        if path != "/v1/embeddings":
            return 404, {"error": "404 page not found"}
        try:
            body = json.loads(raw)
        except ValueError as error:
            return 400, _error(
                f"invalid character in request body: {error}", "invalid_request_error"
            )
        self.requests.append((authorization, body))
        if self.key is not None and authorization != f"Bearer {self.key}":
            return 401, _error("invalid api key", "invalid_request_error")
        model, given = body.get("model"), body.get("input")
        if not given:
            return 400, _error("invalid input", "invalid_request_error")
        if model not in self.pulled:
            return 404, _error(f'model "{model}" not found, try pulling it first', "api_error")
        texts = [given] if isinstance(given, str) else list(given)
        data = [
            {"object": "embedding", "embedding": bag_of_words(t, self.sizes[model]), "index": n}
            for n, t in enumerate(texts)
        ]
        tokens = sum(len(t.split()) for t in texts)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        return 200, {"object": "list", "data": data, "model": model, "usage": usage}


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
