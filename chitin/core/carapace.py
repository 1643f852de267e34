"""Carapace use cases: register, query, promote and import.

Everything that can be refused here is refused before the network is touched, so a
doomed request never uses one of the server's hourly slots: the promotion rules, what
the server's validation and content scanner would refuse, credentials in the text, an
insight promoted (or a contribution imported) before.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from chitin.core.carapace_settings import Sharing, sharing_of
from chitin.errors import ChitinError, DuplicateError, StateError, ValidationError
from chitin.location import expanded, home_folder
from chitin.model import arguments, secrets
from chitin.model import carapace as rules
from chitin.model.insight import Insight, check_carapace_id, check_confidence, check_text
from chitin.model.secrets import find_secrets
from chitin.notices import notice
from chitin.providers import credentials
from chitin.providers.credentials import default_path
from chitin.store import interrupts

if TYPE_CHECKING:
    from chitin.core.lifecycle import Contribution, Lifecycle
    from chitin.core.session import Runner, Session
    from chitin.providers.carapace import CarapaceClient


class Registration(NamedTuple):
    answer: dict[str, Any]  # the server's, without the API key
    credentials_path: Path


class Promotion(NamedTuple):
    insight: Insight
    answer: dict[str, Any]
    overridden: tuple[str, ...]  # what --force lifted
    commit: str | None


class Imported(NamedTuple):
    contribution: dict[str, Any]
    result: Contribution


# ---------------------------------------------------------------- settings


def sharing(opened: Session) -> Sharing:
    return sharing_of({} if opened.missing else opened.store.config(), opened.env)


def carapace_credentials_path(given: Path | None, home: Path) -> Path:
    """--carapace-config, else 1.4.5's ``~/.config/carapace/credentials.json``."""

    if given is not None:
        return expanded(_credentials_file(given, "given"), os.environ, "the credentials path")
    return default_path(_credentials_file(home, "home"))


def _client(opened: Session, credentials_path: Path | None) -> CarapaceClient:
    """A client for the configured server; with the API key when a path is given."""
    from chitin.providers.carapace import CarapaceClient

    key = None
    if credentials_path is not None:
        found, warning = credentials.load(credentials_path)
        if warning:
            notice(warning)
        key = found.api_key
    settings = sharing(opened)
    return CarapaceClient(settings.url, key, deadline=settings.timeout)


def _refuse_what_the_server_would(body: Mapping[str, Any], what: str) -> None:
    """The server's validation and scanner, and credentials in anything sent."""

    found = rules.refusals(body)
    if found:
        raise ValidationError("carapace", f"{what} refused before sending: {found[0]}")
    for field, value in body.items():
        texts = value if isinstance(value, list) else [value]
        for text in texts:
            secrets = find_secrets(text) if isinstance(text, str) else []
            if secrets:
                raise ValidationError(
                    field,
                    f"{what} refused before sending: {field} looks like it holds "
                    f"a {secrets[0].kind}, and nothing like a credential is sent to Carapace",
                )


# ---------------------------------------------------------------- register and query


def register(
    opened: Session, path: Path, home: Path | None, name: str, description: str | None, now: str
) -> Registration:
    from chitin.providers.carapace import redacted

    path = _credentials_file(path)
    body: dict[str, Any] = {"displayName": check_text("name", name).strip()}
    if description:
        body["description"] = check_text("description", description).strip()
    _refuse_what_the_server_would(body, "the registration")
    credentials.prepare(path)
    with _client(opened, None) as client:
        answer = client.register(body)
    key = answer.pop("apiKey", None)
    if not isinstance(key, str) or not key:
        raise ValidationError("apiKey", "Carapace registered the agent but sent no API key")
    if not credentials.usable_key(key):
        raise ValidationError(
            "apiKey",
            "Carapace registered the agent but sent an API key that cannot be sent back "
            "(not visible ASCII characters); nothing was saved",
        )
    answer = redacted(answer, key)  # the key is shown nowhere, even if said twice
    agent = answer.get("id") if isinstance(answer.get("id"), str) else None
    shown = answer.get("displayName")
    found = credentials.Credentials(key, agent, shown if isinstance(shown, str) else name, now)
    home = home if home is not None else home_folder(opened.env)
    with _finishing():
        if agent is None or not agent.strip():  # the key is shown once: kept, as below
            said = "Carapace registered the agent but its answer gives no agent id (id)"
            raise credentials.rescued(
                found, path, home, f"{said}, so its credentials were not saved"
            )
        credentials.save_or_rescue(found, path, home)
    return Registration(answer, path)


@contextlib.contextmanager
def _finishing() -> Iterator[None]:
    """The server has done its part (an agent registered, a contribution created): a
    Ctrl-C or SIGTERM now waits until the key is saved or the id recorded, and is then
    reported, since stopping half-way would lose what the server made."""

    with interrupts.holding() as guard:
        guard.committed()
        yield


class CarapaceQuestion(NamedTuple):
    text: str
    context: str | None = None
    max_results: int = 5
    min_confidence: float | None = None
    domain_tags: tuple[str, ...] = ()
    expand: bool = False
    search_mode: str = "hybrid"


def query(opened: Session, credentials_path: Path, question: CarapaceQuestion) -> dict[str, Any]:
    asked = question if isinstance(question, CarapaceQuestion) else CarapaceQuestion(question)
    key, body = _credentials_file(credentials_path), query_body(asked)
    _refuse_what_the_server_would(body, "the question")
    with _client(opened, key) as client:
        answer = client.query(body)
    return _at_most(answer, asked.max_results)


def _credentials_file(raw: object, name: str = "credentials") -> Path:
    """The credentials file (or home) a library caller names: a Path, or its text."""
    given = arguments.path(name, raw)
    if given is None:
        raise ValidationError(name, f"{name} must be a path, got None")
    return given


def _at_most(answer: dict[str, Any], count: int) -> dict[str, Any]:
    """The answer with no more results than were asked for, whatever the server sent."""
    results = answer.get("results")
    if isinstance(results, list) and len(results) > count:
        answer = {**answer, "results": results[:count]}
    return answer


def query_body(question: CarapaceQuestion) -> dict[str, Any]:
    """The request, in 1.4.5's key order: question, maxResults, searchMode, then the
    optional keys when given."""
    text = check_text("question", question.text).strip()
    if not text:
        raise ValidationError("question", "the question must not be empty")
    arguments.count("max_results", question.max_results, rules.MAX_RESULTS)  # not --max
    body: dict[str, Any] = {
        "question": text,
        "maxResults": question.max_results,
        "searchMode": rules.check_search_mode(question.search_mode),
    }
    if question.context:
        body["context"] = check_text("context", question.context)
    if question.min_confidence is not None:
        body["minConfidence"] = check_confidence(question.min_confidence)
    if question.domain_tags:
        body["domainTags"] = list(arguments.texts("domain_tags", question.domain_tags))
    if question.expand:
        body["expand"] = True
    return body


# ---------------------------------------------------------------- promote


def promote(
    lifecycle: Lifecycle,
    ref: str,
    credentials_path: Path,
    domain_tags: Sequence[str] | None,
    force: bool,
    run: Runner,
) -> Promotion:
    """Share the insight with Carapace, and note in its file what it became. ``run``
    runs a step that reads the cache (``Chitin._run``, which repairs a damaged one):
    the reading and the recording are two steps, so that a repair never asks the
    server again."""
    credentials_path = _credentials_file(credentials_path)
    if domain_tags is not None and not arguments.texts("domain_tags", domain_tags):
        raise ValidationError("domain_tags", f"domain_tags: {rules.NO_DOMAIN_TAG}")
    insight = run(lambda: lifecycle.reading.get(ref))
    if insight.archived:  # retired: no longer what this agent holds true, so not shared
        raise StateError(
            f"Insight {insight.id} is archived, and an archived insight is not shared; "
            f"run `chitin unarchive {insight.id}` first"
        )
    body = rules.contribution_of(insight, domain_tags)
    verdict = rules.verdict(insight, sharing(lifecycle.session).personal_terms, body)
    if verdict.blocked or (verdict.overridable and not force):
        raise NotPromotable(insight.id, verdict)
    if insight.carapace_id and not force:
        raise StateError(_shared_before(insight))
    _refuse_what_the_server_would(body, "the promotion")
    overridden = (*verdict.overridable, *_replaced(insight))
    with _client(lifecycle.session, credentials_path) as client, _overriding(overridden):
        answer = client.contribute(body)
    with _overriding(overridden):
        carapace_id = rules.contribution_id(answer, f"to the promotion of {insight.id}")
        try:
            with _finishing():
                change = run(lambda: lifecycle.record_promotion(insight.id, carapace_id))
        except ChitinError as error:
            raise StateError(
                f"promoted to Carapace as {carapace_id}, but recording that in {insight.id} "
                f"failed: {error}"
            ) from None
    return Promotion(change.insight, answer, overridden, change.commit)


@contextlib.contextmanager
def _overriding(overridden: tuple[str, ...]) -> Iterator[None]:
    """An error once the request is under way carries what --force lifted: the text may
    have reached the server, so the user is told what went with it (1.4.5 said it
    before sending). Credentials refused before any request carry nothing: nothing left."""
    try:
        yield
    except ChitinError as error:
        error.overridden = overridden
        raise


def _replaced(insight: Insight) -> tuple[str, ...]:
    """The Carapace link --force passed over (an earlier promotion, or the contribution
    the insight came from): the new contribution's id is about to take its place."""
    if not insight.carapace_id:
        return ()
    if insight.provenance == "external":
        was = f"Came from Carapace (contribution {insight.carapace_id})"
    else:
        was = f"Already promoted to Carapace as {insight.carapace_id}"
    return (f"{was}: its id gives way to the new one",)


def _shared_before(insight: Insight) -> str:
    if insight.provenance == "external":
        return (
            f"Insight {insight.id} came from Carapace (contribution {insight.carapace_id}); "
            "use --force to share it again"
        )
    return (
        f"Insight {insight.id} was already promoted to Carapace as {insight.carapace_id}; "
        "use --force to promote it again"
    )


class NotPromotable(ChitinError):
    """The promotion rules refuse the insight; ``verdict`` says why."""

    def __init__(self, insight_id: str, verdict: rules.Verdict) -> None:
        reasons = [*verdict.blocked, *verdict.overridable]
        super().__init__(f"Insight {insight_id} is not promotable: {'; '.join(reasons)}")
        self.verdict = verdict


# ---------------------------------------------------------------- import


def import_contribution(
    lifecycle: Lifecycle, contribution_id: str, kind: str, force: bool
) -> Imported:

    kind = rules.check_import_type(kind)
    cid = check_carapace_id(arguments.text("contribution_id", contribution_id).strip())
    if cid is None:
        raise ValidationError("contribution_id", "the contribution id must not be empty")
    here = lifecycle.reading.shared_as(cid)
    if here:
        raise StateError(_here_already(here[0], cid))
    with _client(lifecycle.session, None) as client:
        contribution = client.contribution(cid)
    what = f"for contribution {cid}"
    try:
        if rules.contribution_id(contribution, what) != cid:
            raise ValidationError("id", f"Carapace answered with another contribution for {cid}")
        fields = rules.insight_fields(contribution, kind)
        result = lifecycle.contribute(fields, check=not force, carapace_id=cid)
    except ValidationError as refused:
        if str(refused).startswith("Carapace answered"):
            raise
        if secrets.ALLOW_ANYWAY not in str(refused):  # every field is the server's
            raise rules.from_server(refused, what) from None
        said = str(refused).replace(secrets.ALLOW_ANYWAY, "(such a contribution is not imported)")
        raise ValidationError(refused.field, said) from None
    except DuplicateError as known:  # import_contribution's parameter is force
        existing = known.existing
        raise DuplicateError(
            existing,
            f"already known as {existing}: reinforce {existing} to strengthen it "
            "(force=True imports a second copy anyway)",
        ) from None
    return Imported(contribution, result)


def _here_already(insight: Insight, cid: str) -> str:
    if insight.provenance == "external":
        return f"Already imported as Chitin insight: {insight.id}"
    return f"Contribution {cid} is this store's insight {insight.id}, promoted to Carapace"
