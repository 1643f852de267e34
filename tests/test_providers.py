"""Embedding providers: HTTP ones against httpx.MockTransport speaking each API's
protocol (errors included), the local model for real. Nothing reaches the network."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from bench_modules import bench_module
from conftest import Run
from ollama_server import OllamaServer

from chitin.providers import ProviderError, create, identity
from chitin.providers.remote import OpenAIProvider, VoyageProvider

Handler = Callable[[httpx.Request], httpx.Response]


def embeddings(count: int, dims: int, start: int = 0) -> dict[str, object]:
    return {
        "data": [
            {"embedding": [float(start + i + 1)] + [0.0] * (dims - 1), "index": i}
            for i in range(count)
        ],
        "model": "m",
        "usage": {"total_tokens": 3},
    }


def voyage(handler: Handler, model: str = "voyage-3-lite") -> VoyageProvider:
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return VoyageProvider(model, "key-123", "https://voyage.test/v1", client, sleep=lambda _: None)


def test_voyage_sends_input_type_in_batches_of_128_with_the_key() -> None:
    seen: list[dict[str, object]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url == "https://voyage.test/v1/embeddings"
        assert request.headers["Authorization"] == "Bearer key-123"
        body = json.loads(request.content)
        seen.append(body)
        return httpx.Response(200, json=embeddings(len(body["input"]), 512))

    vectors = voyage(handler).embed([f"text {n}" for n in range(300)], kind="query")
    assert vectors.shape == (300, 512) and vectors.dtype == np.float32
    assert [len(b["input"]) for b in seen] == [128, 128, 44]  # type: ignore[arg-type]
    assert {b["input_type"] for b in seen} == {"query"} and seen[0]["model"] == "voyage-3-lite"
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_a_429_is_retried_with_backoff_then_succeeds() -> None:
    answers = [
        httpx.Response(429, json={"detail": "slow down"}, headers={"retry-after": "2"}),
        httpx.Response(503, text="busy"),
        httpx.Response(200, json=embeddings(1, 512)),
    ]
    waits: list[float] = []
    provider = voyage(lambda _: answers.pop(0))
    provider.sleep = waits.append
    assert provider.embed(["hello"]).shape == (1, 512)
    assert waits == [2.0, 1.0]


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (
            httpx.Response(401, json={"detail": "bad key"}),
            "Voyage API authentication failed (401): check VOYAGE_API_KEY",
        ),
        (httpx.Response(429, json={"detail": "quota"}), "Voyage API rate limited (429): quota"),
        (httpx.Response(500, json={"message": "boom"}), "Voyage API error (500): boom"),
        (httpx.Response(400, text="plain words"), "Voyage API error (400): plain words"),
        (  # a server that echoes the key: never printed (as Carapace's never is)
            httpx.Response(500, text="upstream refused Bearer key-123 today"),
            "Voyage API error (500): upstream refused Bearer [redacted API key] today",
        ),
        (
            httpx.Response(429, json={"detail": {"message": "key-123 is over quota"}}),
            "Voyage API rate limited (429): [redacted API key] is over quota",
        ),
        (  # a long message of many words is cut as a long text is, not printed whole
            httpx.Response(500, json={"message": "bad " * 100_000}),
            "Voyage API error (500): " + ("bad " * 75).strip(),
        ),
        (httpx.Response(200, text="{not json"), "Voyage API returned malformed JSON"),
        (
            httpx.Response(200, json={"object": "list"}),
            "Voyage API returned unexpected response format: missing data array",
        ),
        (
            httpx.Response(200, json=embeddings(1, 7)),
            "Dimension mismatch for text 0: expected 512, got 7",
        ),
    ],
)
def test_http_failures_give_the_originals_messages(response: httpx.Response, message: str) -> None:
    with pytest.raises(ProviderError) as caught:
        voyage(lambda _: response).embed(["hello"])
    assert str(caught.value) == message


def _answer(vectors: list[object], indexes: list[object] | None = None) -> httpx.Response:
    indexes = list(range(len(vectors))) if indexes is None else indexes
    data = [{"embedding": v, "index": i} for v, i in zip(vectors, indexes, strict=True)]
    return httpx.Response(200, content=json.dumps({"data": data}, allow_nan=True))


BAD_VECTORS = (
    "OpenAI API returned unexpected response format: an embedding is not a list of finite numbers"
)
ZERO_VECTOR = (
    "OpenAI API returned unexpected response format: "
    "an embedding is all zeros, which has no direction to compare"
)
BAD_ITEMS = (
    "OpenAI API returned unexpected response format: "
    "the data items must be objects indexed 0 to 1, once each"
)


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (_answer([["a", "b"], ["c", "d"]]), BAD_VECTORS),
        (_answer([["0.6", "0.8"], [1.0, 0.0]]), BAD_VECTORS),  # numbers written as texts
        (_answer([[None, 1.0], [1.0, 0.0]]), BAD_VECTORS),
        (_answer([[float("nan"), 1.0], [1.0, 0.0]]), BAD_VECTORS),
        (_answer([[1e300, 1.0], [1.0, 0.0]]), BAD_VECTORS),
        (_answer([[10**400, 1.0], [1.0, 0.0]]), BAD_VECTORS),
        (_answer([[[1.0, 2.0]], [[1.0, 2.0]]]), BAD_VECTORS),
        (_answer([[True, False], [1.0, 0.0]]), BAD_VECTORS),
        (_answer([[0.0, 0.0], [1.0, 0.0]]), ZERO_VECTOR),
        (_answer([[1.0, 0.0], [0, -0.0]]), ZERO_VECTOR),
        (_answer([[], []]), "Dimension mismatch for text 0: expected at least 1, got 0"),
        (_answer([[1.0, 0.0], [0.0, 1.0]], [0, "1"]), BAD_ITEMS),
        (_answer([[1.0, 0.0], [0.0, 1.0]], [0, None]), BAD_ITEMS),
        (_answer([[1.0, 0.0], [0.0, 1.0]], [0, 0]), BAD_ITEMS),
        (httpx.Response(200, json={"data": [5, 6]}), BAD_ITEMS),
        (
            _answer([[1.0, 0.0]]),
            "OpenAI API returned unexpected response format: 1 vector for 2 texts",
        ),
    ],
)
def test_an_answer_of_no_vectors_is_a_provider_error(
    response: httpx.Response, message: str
) -> None:
    """A compatible server that answers badly: texts (numerals too) or nulls in a
    vector, NaN, a value past float32, nested lists, booleans, no numbers at all, a
    vector of zeros, indexes that are text, null or repeated, items that are no
    objects. Each raised ValueError, TypeError or AttributeError, or was stored as NaN
    that every later search ranked by (numerals were stored as numbers)."""
    client = httpx.Client(transport=httpx.MockTransport(lambda _: response))
    provider = OpenAIProvider("nomic-embed-text", None, "http://127.0.0.1:9/v1", client)
    with pytest.raises(ProviderError) as caught:
        provider.embed(["one", "two"])
    assert str(caught.value) == message


def test_the_items_are_put_in_the_order_of_their_index() -> None:
    response = _answer([[0.0, 1.0], [1.0, 0.0]], [1, 0])
    client = httpx.Client(transport=httpx.MockTransport(lambda _: response))
    provider = OpenAIProvider("nomic-embed-text", None, "http://127.0.0.1:9/v1", client)
    assert provider.embed(["one", "two"]).tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_a_network_failure_is_a_provider_error() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(ProviderError, match="Voyage API unreachable: connection refused"):
        voyage(refuse).embed(["hello"])


def test_openai_compatible_endpoints_and_probed_dimensions() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == "http://localhost:11434/v1/embeddings"
        body = json.loads(request.content)
        assert "input_type" not in body
        return httpx.Response(200, json=embeddings(len(body["input"]), 768))

    client = httpx.Client(transport=httpx.MockTransport(handler))
    provider = OpenAIProvider.from_environment(
        "nomic-embed-text",
        {"OPENAI_API_KEY": "x", "OPENAI_BASE_URL": "http://localhost:11434/v1"},
        client,
    )
    assert provider.dimensions == 768  # unknown model: asked of the endpoint once
    assert identity(provider) == "openai:nomic-embed-text:768"


def test_a_key_or_url_a_request_cannot_carry_fails_the_provider_not_the_session(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pasted key with a curly quote (or a byte that is not UTF-8) made httpx raise
    UnicodeEncodeError: retrieve exited 3 instead of ranking by text (qa53)."""
    run(
        "contribute", "--type", "skill", "--claim", "Profile a slow endpoint", "--confidence", "0.8"
    )
    (store / "chitin.yaml").write_text("embedding: {provider: voyage}\n")
    key = "pa-\u201ckey\u201d"
    monkeypatch.setenv("VOYAGE_API_KEY", key)
    result = run("retrieve", "--query", "the endpoint is slow", "--format", "json")
    degraded = json.loads(result.stdout)["degraded"]
    assert "VOYAGE_API_KEY holds a character an HTTP request cannot carry" in degraded
    assert key not in degraded and key not in result.stderr
    base = "http://127.0.0.1:9/v1/\udcff"  # the byte 0xff, as Python reads it from the environment
    with pytest.raises(ProviderError, match="VOYAGE_BASE_URL holds a character"):
        create("voyage", env={"VOYAGE_API_KEY": "pa-key", "VOYAGE_BASE_URL": base})


def test_the_registry_names_providers_and_keys() -> None:
    with pytest.raises(
        ProviderError,
        match="Unknown embedding provider: 'cohere' "
        r"\(allowed: local, voyage, openai\)",
    ):
        create("cohere")
    with pytest.raises(ProviderError, match="Missing API key for voyage: set VOYAGE_API_KEY"):
        create("voyage", env={})
    assert identity(create("local")) == "local:all-MiniLM-L6-v2:384"


def test_the_local_model_puts_paraphrases_closer_than_unrelated_sentences() -> None:
    vectors = create("local").embed(
        [
            "Reproduce a bug before fixing it",
            "before patching anything, get the defect to show up reliably",
            "Dry humour lands better than forced jokes",
            "the release notes should lead with what changed for users",
        ]
    )
    similarity = vectors @ vectors.T
    assert similarity[0, 1] > 0.5
    assert similarity[0, 1] > similarity[0, 2] + 0.3 and similarity[0, 1] > similarity[0, 3]
    assert np.allclose(np.diag(similarity), 1.0, atol=1e-5)


# ------------------------------------------------------------------ the plain-Python tokenizer

TRICKY = [
    "Reproduce the bug first, then fix it.",
    "Café déjà vu — naïve coöperation; ÉCOLE",
    "ΟΔΟΣ Σίσυφος ΣΣ",  # final sigma: lowercased one character at a time
    "İstanbul DİYARBAKIR ǅ ǈ",  # lowercasing that grows a character
    "日本語のテキスト, 中文 한국어 ภาษาไทย",
    "emoji 🦞🚀 and ZWJ 👩‍💻 and flags 🇫🇷",
    "control\x00chars\x07here\ufffd and\u200bzero\u2028width\ttab\nnew\rreturn",
    "unicode spaces\u00a0\u2003\u3000and\x1c\x1dinfo seps\x85nel",
    "[CLS] written [MASK] in the [SEP] text [UNK][PAD]x[SEP]",
    "[cls] lower [mask] is not special",
    "punctuation!!!?¿¡«»“”„‘’…—–·•‹›§¶†‡$+<=>^`|~",
    "a" * 150 + " " + "b" * 100 + " " + "c" * 101,  # the 100-character word limit
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "x" * 10_000,  # truncated to 128 tokens
    "deploy " * 200,
    "combining ̀ marks ́ alone ̂",
    "Ａｒｔ ｆｕｌｌｗｉｄｔｈ ＡＢＣ ①②③ ﬁ ﬂ ½",
    "Straße GROẞ ǆ ŉ",
    "arabic العربية hebrew עברית devanagari हिन्दी",
    "",
    "   ",
]


@pytest.fixture(scope="module")
def tokenizers_pair() -> tuple[object, object]:
    from tokenizers import Tokenizer

    from chitin.providers.minilm import MAX_TOKENS, SPECIAL_TOKENS, TOKENIZER, VOCABULARY
    from chitin.providers.wordpiece import WordPiece

    library = Tokenizer.from_file(str(TOKENIZER))
    library.enable_truncation(MAX_TOKENS)
    library.no_padding()
    return library, WordPiece.load(VOCABULARY, SPECIAL_TOKENS)


def same_ids(pair: tuple[object, object], text: str) -> None:
    """On ASCII, the plain tokenizer gives the library's ids; any other text is not
    its to answer (the provider asks the library, see the test below)."""
    from chitin.providers.minilm import MAX_TOKENS
    from chitin.providers.wordpiece import answers

    library, ours = pair
    if not answers(text):
        assert not text.replace("\u2014", "").isascii()
        with pytest.raises(ValueError, match="ASCII"):
            ours.encode(text, MAX_TOKENS)  # type: ignore[attr-defined]
        return
    expected = library.encode(text).ids  # type: ignore[attr-defined]
    assert ours.encode(text, MAX_TOKENS) == expected, repr(text)  # type: ignore[attr-defined]


ASCII_TRICKY = [
    "control\x00chars\x07here and\x0bvertical\x0cfeed\ttab\nnew\rreturn\x7fdel",
    "info\x1c\x1dseps\x1e\x1f and  double   spaces ",
    "punctuation!!!?\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ mixed-in_words a.b,c",
    "MiXeD CaSe ALL CAPS 123 4.5e6 0x1F",
    "A claim \u2014 When a condition \u2014 why\u2014not\u2014\u2014",
]


@pytest.mark.parametrize("text", TRICKY + ASCII_TRICKY)
def test_the_plain_tokenizer_gives_the_librarys_ids(
    tokenizers_pair: tuple[object, object], text: str
) -> None:
    same_ids(tokenizers_pair, text)


def test_the_plain_tokenizer_agrees_on_the_evaluation_set_and_the_starter_insights(
    tokenizers_pair: tuple[object, object],
) -> None:
    evaluation = bench_module("eval", "run")

    from chitin.model.search_text import embedding_text

    insights, queries = evaluation.load()
    for text in [embedding_text(i) for i in insights] + [q.text for q in queries]:
        same_ids(tokenizers_pair, text)


def test_the_plain_tokenizer_agrees_on_generated_ascii_text(
    tokenizers_pair: tuple[object, object],
) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    words = st.text(st.characters(codec="ascii"), max_size=40)
    sentences = st.lists(
        st.one_of(words, st.sampled_from(["[CLS]", "[MASK]", " ", "##ing", "\x0b", "\u2014"])),
        max_size=12,
    ).map("".join)

    @settings(max_examples=3000, deadline=None, database=None)
    @given(sentences)
    def check(text: str) -> None:
        same_ids(tokenizers_pair, text)

    check()


@pytest.mark.parametrize("text", [t for t in TRICKY if not t.isascii()] + ["\u0890", "a\u061db"])
def test_a_few_texts_beyond_ascii_are_tokenized_by_the_library(
    tokenizers_pair: tuple[object, object], text: str
) -> None:
    """A session start's query that is not ASCII: the library's ids, whatever this
    Python's Unicode tables say (U+0890 is unknown to the library's, a format
    character to Python 3.11's)."""
    from chitin.providers.local import LocalProvider

    library, _ = tokenizers_pair
    provider = LocalProvider()
    assert provider._token_ids(["plain words", text]) == [
        library.encode("plain words").ids,  # type: ignore[attr-defined]
        library.encode(text).ids,  # type: ignore[attr-defined]
    ]
    assert provider._wordpiece is None  # the plain tokenizer was not loaded


def test_an_indexed_vocabulary_gives_the_same_ids() -> None:
    """WordPiece.index (a warmed server's tokenizer): a dictionary instead of scans of
    the vocabulary's text, with the same ids for every text, unknown pieces included."""
    from chitin.providers.minilm import MAX_TOKENS, SPECIAL_TOKENS, VOCABULARY
    from chitin.providers.wordpiece import WordPiece, answers

    evaluation = bench_module("eval", "run")

    from chitin.model.search_text import embedding_text

    insights, queries = evaluation.load()
    texts = [embedding_text(i) for i in insights] + [q.text for q in queries]
    texts += [*TRICKY, "Klazi grintutflist ##ing [MASK] zzzzq"]
    scanned, indexed = (WordPiece.load(VOCABULARY, SPECIAL_TOKENS) for _ in range(2))
    indexed.index()
    assert indexed.id_of("[UNK]") == scanned.id_of("[UNK]") and indexed.id_of("zzzzq") is None
    for text in filter(answers, texts):
        assert indexed.encode(text, MAX_TOKENS) == scanned.encode(text, MAX_TOKENS), text


def test_a_warmed_provider_embeds_as_a_session_start_does() -> None:
    """warm() loads the optimised graph and indexes the tokenizer, for a server's many
    queries; a query's vector is the one a session start's light load gives."""
    from chitin.providers.local import LocalProvider

    cold, warmed = LocalProvider(), LocalProvider()
    warmed.warm()
    assert warmed._optimised and cold._session is None
    texts = ["reproduce the bug before fixing it", "Klazi grintutflist soskuvoot"]
    first = np.vstack([cold.embed([t], "query") for t in texts])
    assert not cold._optimised  # a few texts: the light load
    second = np.vstack([warmed.embed([t], "query") for t in texts])
    assert np.all(np.sum(first * second, axis=1) > 0.9999)


def test_the_vocabulary_file_is_the_tokenizers() -> None:
    """scripts/vocabulary.py makes it; it must hold exactly tokenizer.json's vocabulary."""
    from chitin.providers.minilm import TOKENIZER, VOCABULARY

    vocab = json.loads(TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
    lines = VOCABULARY.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "" and lines[:-1] == sorted(vocab, key=vocab.__getitem__)


def test_a_query_embeds_alike_by_either_tokenizer() -> None:
    """One text at a time (the plain tokenizer, unpadded) and ten of different lengths
    at once (the library, padded to the longest): the same vectors."""
    from chitin.providers.local import LocalProvider

    provider = LocalProvider()
    texts = [f"query {n}: reproduce the bug" + " before fixing it" * n for n in range(10)]
    alone = np.vstack([provider.embed([t], "query") for t in texts])  # the plain tokenizer
    together = provider.embed(texts, "document")  # the library, optimised graph
    assert np.all(np.sum(alone * together, axis=1) > 0.9999)


# ------------------------------------------------------------------ a stronger model, via Ollama


def _two_insights(run: Run, monkeypatch: pytest.MonkeyPatch, ollama: OllamaServer) -> None:
    """A store of two insights, the OpenAI-compatible provider pointed at ``ollama``."""
    monkeypatch.setenv("OPENAI_BASE_URL", ollama.url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run("init")
    for claim in ("Profile the slow endpoint before optimising", "Keep commits small"):
        run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8")


def _two_embedded_locally(
    run: Run, monkeypatch: pytest.MonkeyPatch, ollama: OllamaServer
) -> dict[str, Any]:
    """The two insights with the local model's vectors; their embed-status."""
    _two_insights(run, monkeypatch, ollama)
    run("embed")
    status: dict[str, Any] = json.loads(run("embed-status", "--format", "json").stdout)
    return status


def test_a_store_is_embedded_and_searched_through_ollama(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The OpenAI-compatible provider against a server speaking Ollama's /v1/embeddings:
    no key needed, every text and the query go to the model named, in batches, and the
    store is then searched by meaning (README, "A stronger model")."""
    with OllamaServer() as ollama:
        _two_insights(run, monkeypatch, ollama)
        embedded = json.loads(
            run(
                "embed", "--provider", "openai", "--model", "nomic-embed-text", "--format", "json"
            ).stdout
        )
        assert embedded["embedded"] == 2
        status = json.loads(run("embed-status", "--format", "json").stdout)
        assert status["embedded"] == status["total"] == 2
        found = json.loads(
            run("retrieve", "--query", "the endpoint is slow", "--format", "json").stdout
        )
    assert "degraded" not in found or not found["degraded"]
    assert found["insights"][0]["claim"].startswith("Profile")
    texts = [text for _, body in ollama.requests for text in body["input"]]
    assert {body["model"] for _, body in ollama.requests} == {"nomic-embed-text"}
    assert "Keep commits small" in texts and "the endpoint is slow" in texts
    assert {auth for auth, _ in ollama.requests} == {None}  # no key, no header


def _one_embedded_remotely(run: Run, monkeypatch: pytest.MonkeyPatch, ollama: OllamaServer) -> None:
    """A store of one insight embedded by the OpenAI-compatible provider at ``ollama``."""
    monkeypatch.setenv("OPENAI_BASE_URL", ollama.url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run("init")
    run("contribute", "--type", "skill", "--claim", "Keep commits small", "--confidence", "0.8")
    run("embed", "--provider", "openai", "--model", "nomic-embed-text")


def test_no_empty_text_is_sent_to_a_provider(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fix82: a retrieve after `similar --semantic` sent the provider `[""]`: the floor a
    query must pass in meaning is its distance from the empty query (`said_nothing`),
    and the empty text was embedded for it. OpenAI's endpoint refuses an empty input,
    and no model says what nothing means; the local model's is packaged, a remote
    provider has no floor."""
    with OllamaServer() as ollama:
        _one_embedded_remotely(run, monkeypatch, ollama)
        run("similar", "keep commits tiny", "--semantic")
        found = json.loads(
            run("retrieve", "--query", "keep commits tiny", "--format", "json").stdout
        )
    texts = [text for _, body in ollama.requests for text in body["input"]]
    assert all(text.strip() for text in texts), texts
    assert texts.count("keep commits tiny") == 1  # the query's vector is remembered
    assert found["insights"][0]["claim"] == "Keep commits small" and not found["degraded"]


def test_no_empty_text_is_sent_to_the_local_model(run: Run, embedded: list[str]) -> None:
    """The same with the local model: the texts it is asked to embed are never empty."""
    run("init")
    run("contribute", "--type", "skill", "--claim", "Keep commits small", "--confidence", "0.8")
    run("similar", "keep commits tiny", "--semantic")
    found = json.loads(run("retrieve", "--query", "keep commits tiny", "--format", "json").stdout)
    assert "keep commits tiny" in embedded and all(text.strip() for text in embedded), embedded
    assert found["insights"][0]["claim"] == "Keep commits small"


def test_the_local_models_empty_text_vector_is_packaged() -> None:
    """The local model's vector of the empty text ([CLS] and [SEP] alone), the floor of
    a match in meaning, ships with chitin rather than being asked of the model."""
    from chitin.providers.local import LocalProvider

    provider = LocalProvider()
    packaged = np.array(provider.said_nothing(), dtype=np.float32)
    made = provider.embed([""], "query")[0]  # the model itself, here in the test only
    assert float(np.dot(packaged, made)) > 0.9999, "run scripts/seed_vectors.py"


def test_a_model_ollama_has_not_pulled_is_a_one_line_error(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with OllamaServer(pulled=("nomic-embed-text",)) as ollama:
        monkeypatch.setenv("OPENAI_BASE_URL", ollama.url)
        monkeypatch.setenv("OPENAI_API_KEY", "ollama")  # ignored by Ollama, sent as given
        run("init")
        run("contribute", "--type", "skill", "--claim", "Keep commits small", "--confidence", "0.8")
        result = run("embed", "--provider", "openai", "--model", "mxbai-embed-large", expect=1)
    assert result.stderr == (
        'Error: OpenAI API error (404): model "mxbai-embed-large" not found, try pulling it first\n'
    )
    assert ollama.requests[0][0] == "Bearer ollama"
    assert "Traceback" not in result.stderr


def test_without_an_endpoint_of_ones_own_the_openai_key_is_needed() -> None:
    with pytest.raises(ProviderError, match="Missing API key for openai: set OPENAI_API_KEY"):
        create("openai", env={})
    provider = create(
        "openai", "nomic-embed-text", env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    )
    assert isinstance(provider, OpenAIProvider) and provider.key == ""


def test_a_query_is_asked_once_and_briefly_while_someone_waits() -> None:
    """A session start (or a contribution) waits on a query's vector: it is asked once,
    with the whole wait bounded (INTERACTIVE_SECONDS), not retried for up to a minute
    as bulk work is; a failure falls back to text at once."""
    from chitin.providers import answering

    seen: list[dict[str, object]] = []

    def busy(request: httpx.Request) -> httpx.Response:
        seen.append(dict(request.extensions["timeout"]))
        return httpx.Response(429, json={"detail": "slow down"}, headers={"retry-after": "30"})

    with answering(), pytest.raises(ProviderError, match=r"rate limited \(429\)"):
        voyage(busy).embed(["hello"], kind="query")
    assert len(seen) == 1
    assert all(0 < float(str(limit)) <= 5 for limit in seen[0].values())
    seen.clear()
    with pytest.raises(ProviderError, match=r"rate limited \(429\)"):
        voyage(busy).embed(["hello"], kind="query")  # no one waiting: retried
    assert len(seen) == 5


def test_a_hanging_endpoint_costs_a_session_start_seconds_not_half_a_minute(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An Ollama that accepts the connection but never answers: retrieve gives the text
    ranking after INTERACTIVE_SECONDS, saying why, where it waited 30 s (a hook's 15 s
    timeout then gave the agent no PERSONALITY.md at all)."""
    with OllamaServer() as ollama:
        _one_embedded_remotely(run, monkeypatch, ollama)
        ollama.hang.set()
        found = run("retrieve", "--query", "keep commits tiny", "--format", "json")
        assert not ollama.released.is_set()
    answer = json.loads(found.stdout)
    assert answer["insights"][0]["claim"] == "Keep commits small"
    assert "OpenAI API gave no answer within 5 s" in answer["degraded"]


def test_a_contribute_whose_endpoint_stops_answering_is_judged_by_words_within_the_wait(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fix82: contribute's judgement asks the provider more than once (the new text's
    neighbours, then the vectors it lacks); only the first was within the wait
    (INTERACTIVE_SECONDS), so a server that answered once and then hung held the
    contribute for the client's whole timeout. The judgement is under one limit: the
    insight is written, and the report says why it was judged by words."""
    with OllamaServer() as ollama:
        _one_embedded_remotely(run, monkeypatch, ollama)
        ollama.hang_after = ollama.received + 1  # the neighbours' query, then nothing
        added = run(
            "contribute",
            "--type",
            "skill",
            "--claim",
            "Keep commits tiny",
            "--confidence",
            "0.7",
            "--tags",
            "git",
            "--format",
            "json",
        )
        assert not ollama.released.is_set()  # answered while the server still hangs
        assert ollama.received == ollama.hang_after + 1  # the second request was sent
    answer = json.loads(added.stdout)
    assert (store / answer["path"]).is_file()
    assert answer["degraded"] == (
        "no vectors (OpenAI API gave no answer within 5 s): duplicates and conflicts "
        "judged by words alone"
    ), answer


def test_an_embed_with_a_provider_that_fails_keeps_the_vectors_the_store_has(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`embed --provider openai` with a wrong key, URL or model fails and records
    nothing; it threw away every vector of the provider in use (the sidecar took the
    new identity before the first request), so every session start after it was
    answered by text until all were embedded again."""
    with OllamaServer(pulled=()) as ollama:
        before = _two_embedded_locally(run, monkeypatch, ollama)
        failed = run("embed", "--provider", "openai", expect=1)  # text-embedding-3-small
        after = json.loads(run("embed-status", "--format", "json").stdout)
    assert failed.stderr == (
        'Error: OpenAI API error (404): model "text-embedding-3-small" not found, '
        "try pulling it first; the vectors of local/all-MiniLM-L6-v2 are kept\n"
    )
    assert before["embedded"] == 2 and before["provider"] == "local"
    assert after == before


def test_stale_vectors_too_slow_to_embed_inline_go_to_the_background_embedding(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An Ollama too slow to embed a hand-edited insight inline: the session start
    gives up on it after INTERACTIVE_SECONDS and leaves it to the background embedding
    (which has the patience), rather than failing on it at every session start."""
    with OllamaServer() as ollama:
        monkeypatch.setenv("OPENAI_BASE_URL", ollama.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("CHITIN_BACKGROUND_EMBED", "off")
        run("init")
        added = run(
            "contribute",
            "--type",
            "skill",
            "--claim",
            "Keep commits small",
            "--confidence",
            "0.8",
            "--format",
            "json",
        )
        run("embed", "--provider", "openai", "--model", "nomic-embed-text")
        path = store / json.loads(added.stdout)["path"]
        path.write_text(path.read_text().replace("Keep commits small", "Keep commits tiny"))
        ollama.hang_on = b"tiny"  # the edited insight's texts (and the query, not reached)
        ollama.hang.set()
        found = json.loads(
            run("retrieve", "--query", "keep commits tiny", "--format", "json").stdout
        )
    assert found["insights"][0]["claim"] == "Keep commits tiny"
    assert found["degraded"] == (
        "1 insight(s) have no vector yet and background embedding is off; "
        "ranked by text alone (run `chitin embed`)"
    )


def test_an_embed_whose_provider_fails_after_its_trial_keeps_the_vectors_the_store_has(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fix81: a provider that passes the trial embedding and then fails (a 5xx on a
    later request) left the store without the previous provider's vectors: the switch
    dropped them before the new ones were made. They are kept until the new provider's
    embedding completes, and the error says so."""
    with OllamaServer() as ollama:
        before = _two_embedded_locally(run, monkeypatch, ollama)
        ollama.fail_on = b"Keep commits small"
        failed = run("embed", "--provider", "openai", "--model", "nomic-embed-text", expect=1)
        after = json.loads(run("embed-status", "--format", "json").stdout)
        ollama.fail_on = None
        found = json.loads(
            run("similar", "keep commits tiny", "--semantic", "--format", "json").stdout
        )
    assert failed.stderr == (
        "Error: OpenAI API error (503): model runner has unexpectedly stopped; "
        "the vectors of local/all-MiniLM-L6-v2 are kept\n"
    ), failed.stderr
    assert before["embedded"] == 2 and before["provider"] == "local"
    assert after == before
    assert found and found[0]["claim"] == "Keep commits small"
    assert (
        not (store / "chitin.yaml").exists() or "openai" not in (store / "chitin.yaml").read_text()
    )


def test_a_switch_killed_halfway_gives_the_kept_vectors_back_to_the_next_one(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A switch of provider killed before it completed leaves the old vectors set
    aside (.chitin/vectors.kept) and chitin.yaml naming the old provider: the next
    switch puts them back rather than dropping them, so its failure keeps them too."""
    with OllamaServer() as ollama:
        before = _two_embedded_locally(run, monkeypatch, ollama)
        chitin_dir = store / ".chitin"
        (chitin_dir / "vectors").rename(chitin_dir / "vectors.kept")  # as a kill leaves it
        ollama.fail_on = b"Keep commits small"
        failed = run("embed", "--provider", "openai", "--model", "nomic-embed-text", expect=1)
        ollama.fail_on = None
        after = json.loads(run("embed-status", "--format", "json").stdout)
    assert failed.stderr.endswith("the vectors of local/all-MiniLM-L6-v2 are kept\n")
    assert after == before and before["embedded"] == 2
    assert not (chitin_dir / "vectors.kept").exists()


def test_a_switch_killed_halfway_gives_the_kept_vectors_back_to_any_command(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fix82: until the next `embed`, every other command (a session start) opened the
    sidecar a killed switch left in place of the set-aside one, and embedded the whole
    store again (or dropped the half-made vectors). Opening the sidecar puts the kept
    one back first, unless the switch is alive (it holds the kept sidecar's lock)."""
    from chitin.lockfile import WriteLock

    with OllamaServer() as ollama:
        _two_insights(run, monkeypatch, ollama)
        run("embed", "--provider", "openai", "--model", "nomic-embed-text")
        chitin_dir = store / ".chitin"
        kept = chitin_dir / "vectors.kept"
        (chitin_dir / "vectors").rename(kept)  # as a switch to another provider, killed
        with WriteLock(kept / "lock"):  # a switch alive: its vectors are left aside
            run("similar", "keep commits tiny", "--semantic", expect=None)
            assert kept.is_dir()
        sent = len(ollama.requests)
        found = json.loads(
            run("retrieve", "--query", "the endpoint is slow", "--format", "json").stdout
        )
        texts = [text for _, body in ollama.requests[sent:] for text in body["input"]]
        status = json.loads(run("embed-status", "--format", "json").stdout)
    assert texts == ["the endpoint is slow"]  # the query alone: nothing embedded again
    assert not kept.exists()
    assert found["insights"][0]["claim"].startswith("Profile") and not found["degraded"]
    assert status["embedded"] == 2 and status["provider"] == "openai"


def test_a_401_from_a_server_of_ones_own_without_a_key_says_to_set_one(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fix81: a 401 said "check OPENAI_API_KEY" when no key was set at all, the user
    running a server of their own (OPENAI_BASE_URL): it says that server wants one."""
    with OllamaServer() as ollama:
        ollama.key = "secret-1"
        monkeypatch.setenv("OPENAI_BASE_URL", ollama.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        run("init")
        run("contribute", "--type", "skill", "--claim", "Keep commits small", "--confidence", "0.8")
        unset = run("embed", "--provider", "openai", "--model", "nomic-embed-text", expect=1)
        monkeypatch.setenv("OPENAI_API_KEY", "wrong")
        wrong = run("embed", "--provider", "openai", "--model", "nomic-embed-text", expect=1)
    assert unset.stderr == (
        f"Error: OpenAI API authentication failed (401): the server at {ollama.url} wants "
        "an API key, and OPENAI_API_KEY is not set\n"
    ), unset.stderr
    assert wrong.stderr == "Error: OpenAI API authentication failed (401): check OPENAI_API_KEY\n"


def test_the_size_of_a_model_learnt_once_is_not_asked_again(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fix81: a model of unknown size (an Ollama model) cost a request for its size
    ("dimension probe") in every command that uses meaning. The size is kept with the
    sidecar's identity; only another model is asked again."""
    with OllamaServer(pulled=("nomic-embed-text", "mxbai-embed-large")) as ollama:
        _one_embedded_remotely(run, monkeypatch, ollama)

        def probes() -> int:
            return sum(body["input"] == ["dimension probe"] for _, body in ollama.requests)

        learnt = probes()
        for query in ("keep commits tiny", "small commits please"):
            run("similar", query, "--semantic")
            run("retrieve", "--query", query)
        assert probes() == learnt, [body["input"] for _, body in ollama.requests]
        run("embed", "--provider", "openai", "--model", "mxbai-embed-large")
        assert probes() == learnt + 1  # a changed model is asked
        status = json.loads(run("embed-status", "--format", "json").stdout)
    assert learnt == 1
    assert status["model"] == "mxbai-embed-large" and status["embedded"] == 1


def test_a_switch_under_way_keeps_its_vectors_from_the_other_commands(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fix90: while `embed --provider X` runs, the sidecar holds X's half-made vectors
    and chitin.yaml still names the old provider (recorded once the switch completes).
    A session start's retrieve or a contribute meanwhile opened the sidecar with the
    old provider's identity and reset it: the switch's vectors so far were dropped and
    it wrote on into a sidecar of another identity. They are left to the switch now,
    and the other commands answer by words."""
    import os
    import subprocess
    import sys
    import time
    from collections import Counter

    from chitin.index.vector_files import stored_identity

    with OllamaServer() as ollama:
        monkeypatch.setenv("OPENAI_BASE_URL", ollama.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("CHITIN_BACKGROUND_EMBED", "off")
        claims = [f"Rotate the staging credential number {n} every quarter" for n in range(128)]
        items = [{"type": "skill", "claim": c, "confidence": 0.7} for c in claims]
        items.append({"type": "skill", "claim": "Zip the last report slowly", "confidence": 0.7})
        run("import", "-", input=json.dumps(items))
        run("embed")  # the local model's vectors, which the switch sets aside
        ollama.hang_on = b"Zip the last"  # the second chunk waits until released
        ollama.hang.set()
        chitin = Path(sys.executable).parent / "chitin"
        switch = subprocess.Popen(
            [str(chitin), "--store", str(store), "embed", "--provider", "openai",
             "--model", "nomic-embed-text"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "CHITIN_FRONT": "0", "CHITIN_RESIDENT": "0"},
        )  # fmt: skip
        chitin_dir = store / ".chitin"
        made, identity = stored_identity(chitin_dir)
        while not (str(identity).startswith("openai:") and len(made) == 128):  # one chunk
            assert switch.poll() is None, switch.communicate()
            time.sleep(0.05)
            made, identity = stored_identity(chitin_dir)

        found = json.loads(
            run("retrieve", "--query", "rotate the staging credential", "--format", "json").stdout
        )
        added = json.loads(
            run(
                "contribute", "--type", "skill", "--claim", "Rotate the production key",
                "--confidence", "0.7", "--format", "json",
            ).stdout
        )  # fmt: skip
        again = run("embed", expect=1)  # the old provider's embed: not over the switch
        assert stored_identity(chitin_dir) == (made, identity)  # untouched meanwhile
        ollama.released.set()
        _, err = switch.communicate(timeout=600)
        status = json.loads(run("embed-status", "--format", "json").stdout)
    assert switch.returncode == 0, err
    assert found["insights"] and "switch" in found["degraded"], found["degraded"]
    assert "switch" in added["degraded"], added["degraded"]
    assert again.stderr == (
        "Error: a switch of embedding provider is under way (chitin embed --provider): "
        "run chitin embed again once it completes\n"
    )
    sent = Counter(t for _, body in ollama.requests for t in body["input"] if t in claims)
    assert set(sent.values()) == {1}  # each insight embedded once, none again
    assert status["provider"] == "openai" and status["embedded"] == len(items)


# ------------------------------------------------------------------ a hostile embedding server


@pytest.mark.parametrize("writer", ["endless body", "gzip bomb"])
def test_an_embedding_answer_is_capped_before_it_is_read_in_full(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    """A server behind OPENAI_BASE_URL that sends an endless body, or a small gzip body
    that inflates without end, is cut off at MAX_ANSWER_BYTES, in one line: before,
    the whole body was read (and inflated) into memory, until the OOM killer came."""
    from carapace_server import CarapaceServer, endless_body, gzip_bomb

    from chitin.providers.remote import MAX_ANSWER_BYTES

    run("init")
    run("contribute", "--type", "skill", "--claim", "Keep commits small", "--confidence", "0.8")
    larger = MAX_ANSWER_BYTES * 3
    with CarapaceServer() as server:  # any route answers with what stream_next says
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
        server.stream_next(endless_body(larger) if writer == "endless body" else gzip_bomb(larger))
        result = run("embed", "--provider", "openai", "--force", expect=1)
    assert "Traceback" not in result.stderr
    assert f"more than {MAX_ANSWER_BYTES:,} bytes" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


def test_an_embedding_answer_sent_a_byte_at_a_time_ends_at_the_deadline(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fix124: with no one waiting, each read had a 30 s timeout and the answer none,
    so a server trickling a byte every few seconds held `chitin embed` for ever. The
    whole answer has a deadline ($CHITIN_EMBED_TIMEOUT, default 120 s): one line."""
    from carapace_server import CarapaceServer, drip

    run("init")
    run("contribute", "--type", "skill", "--claim", "Keep commits small", "--confidence", "0.8")
    with CarapaceServer() as server:  # any route answers with what stream_next says
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
        monkeypatch.setenv("CHITIN_EMBED_TIMEOUT", "1")
        # each byte well within the read timeout; the whole would take 20 s
        server.stream_next(drip(every=0.1, count=200))
        result = run("embed", "--provider", "openai", "--force", expect=1)
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    line = result.stderr.strip()
    assert line.startswith("Error: OpenAI API gave no complete answer within 1 s"), line
    assert "CHITIN_EMBED_TIMEOUT" in line


def test_the_embedding_deadline_is_checked(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run("init")
    run("contribute", "--type", "skill", "--claim", "Keep commits small", "--confidence", "0.8")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    for bad in ("0", "soon", "99999"):
        monkeypatch.setenv("CHITIN_EMBED_TIMEOUT", bad)
        result = run("embed", "--provider", "openai", "--force", expect=1)
        assert "$CHITIN_EMBED_TIMEOUT must be a number of seconds from 1 to 3600" in result.stderr


def test_embed_force_rebuilds_when_a_model_changes_its_size_under_the_same_name(
    run: Run, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fix136: an endpoint whose model came to give vectors of another size under the
    same name: retrieve fell back to text (fine), but `embed --force` failed with
    "Dimension mismatch for text 0: expected 768, got 32", and only removing
    .chitin/vectors got out. --force rebuilds at the size the endpoint gives now, and
    the retrieve's notice names it."""
    with OllamaServer() as ollama:
        _one_embedded_remotely(run, monkeypatch, ollama)
        ollama.sizes["nomic-embed-text"] = 32
        fallen = json.loads(
            run("retrieve", "--query", "keep commits tiny", "--format", "json").stdout
        )
        assert "chitin embed --force" in fallen["degraded"], fallen["degraded"]
        forced = run("embed", "--force", "--format", "json")
        assert json.loads(forced.stdout)["embedded"] == 1
        status = json.loads(run("embed-status", "--format", "json").stdout)
        found = json.loads(
            run("retrieve", "--query", "keep commits tiny", "--format", "json").stdout
        )
    assert status["embedded"] == status["total"] == 1
    assert status["dimensions"] == 32, status
    assert found["insights"][0]["claim"] == "Keep commits small" and not found["degraded"]
