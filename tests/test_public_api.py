"""The public Python API: ``from chitin import Chitin``, configured at construction,
a context manager, typed arguments, values back, nothing printed (issue 13, item 1)."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import commit_count

FIXED = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
EXAMPLE_PAGE = Path(__file__).resolve().parent.parent / "docs" / "python.md"


def documented_example() -> str:
    text = EXAMPLE_PAGE.read_text(encoding="utf-8")
    found = re.search(r"<!-- python-example -->\n```python\n(.*?)```", text, re.S)
    assert found, "the example of docs/python.md (Use it from Python) is missing"
    return found.group(1)


def test_the_readme_has_the_documented_example() -> None:
    """Issue 13: the README has a "Use it from Python" section whose example runs. It
    is docs/python.md's example, word for word, so that the two cannot drift apart."""
    readme = (EXAMPLE_PAGE.parent.parent / "README.md").read_text(encoding="utf-8")
    assert "\n## Use it from Python\n" in readme
    found = re.search(r"<!-- python-example -->\n```python\n(.*?)```", readme, re.S)
    assert found, "README's 'Use it from Python' example is missing"
    assert found.group(1) == documented_example()


def test_the_documented_example_runs_as_written(tmp_path: Path) -> None:
    """A newcomer pastes the example into a file and runs it, in a folder of their own:
    it names its own store (it once used a ``store`` it never defined: NameError)."""
    (tmp_path / "example.py").write_text(documented_example(), encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("not found: ")
    made = [folder for folder in tmp_path.iterdir() if (folder / ".git").is_dir()]
    assert len(made) == 1 and (made[0] / "insights" / "skill").is_dir()


def test_the_packages_own_example_runs(tmp_path: Path) -> None:
    """``help(chitin)`` shows an example too (the module's docstring, after "Use it from
    Python::"): it must run as written, in a folder of its own. It once left out the
    confidence, which contribute requires: ValidationError "confidence is required"."""
    import chitin

    doc = chitin.__doc__ or ""
    after = doc.split("Use it from Python::\n", 1)[1].splitlines()
    block = itertools.takewhile(lambda line: not line or line.startswith("    "), after)
    code = "\n".join(line.removeprefix("    ") for line in block)
    (tmp_path / "example.py").write_text(code + "\nprint(found.ranked[0].insight.claim)\n")
    ran = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "Run the tests before pushing."


def test_all_lists_the_public_names() -> None:
    import chitin
    from chitin.core.facade import Chitin
    from chitin.errors import ChitinError

    assert "Chitin" in chitin.__all__ and "Query" in chitin.__all__
    assert chitin.Chitin is Chitin
    assert chitin.ChitinError is ChitinError
    for name in chitin.__all__:
        assert getattr(chitin, name) is not None
    with pytest.raises(AttributeError):
        _ = chitin.NoSuchThing  # type: ignore[attr-defined]


MAX_PUBLIC = 45  # Chitin's public attributes: raise it only for a new use case


def test_chitin_offers_its_use_cases_and_hides_its_parts() -> None:
    """Issue 29: Chitin holds its parts instead of inheriting them, so its public
    attributes are the use cases a caller needs, each defined in facade.py; a host's
    hooks and a worker's entry are functions of their own modules, handed a Chitin."""
    from chitin.core import facade
    from chitin.core.facade import Chitin

    public = {name for name in dir(Chitin) if not name.startswith("_")}
    internals = {"cache", "writing", "record_written", "repairing", "retrieve_at", "store"}
    assert not public & internals
    assert len(public) <= MAX_PUBLIC, sorted(public)
    assert Chitin.__mro__ == (Chitin, object)
    assert all(name in vars(Chitin) for name in public)  # none inherited
    defined = {name: _code_of(vars(Chitin)[name]).co_filename for name in public}
    assert {name for name, file in defined.items() if file != facade.__file__} == set()
    hosts = {"claude_code_session_start", "claude_code_reflect", "run_embed_worker"}
    assert not public & hosts


def _code_of(attribute: object) -> Any:
    """The code object of a method, property or static method (where it is defined; a
    method whose switches are checked, arguments.switches_checked, is its own)."""
    function = getattr(attribute, "fget", None) or getattr(attribute, "__func__", attribute)
    return getattr(function, "__wrapped__", function).__code__


def test_the_package_is_typed() -> None:
    import chitin

    assert (Path(chitin.__file__).parent / "py.typed").is_file()


def test_importing_chitin_loads_no_use_case() -> None:
    code = "import sys, chitin; print(sorted(m for m in sys.modules if m.startswith('chitin.')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_it_is_configured_at_construction(store: Path) -> None:
    from chitin import Chitin

    with Chitin(store=store, now=FIXED, env={"CHITIN_AGENT": "tester"}) as chitin:
        added = chitin.contribute(
            {"type": "skill", "confidence": 0.7, "claim": "Name the clock once."}
        )
        assert added.insight.created == "2026-03-04T05:06:07Z"
        changed = chitin.reinforce(added.insight.id)
        assert changed.insight.updated == "2026-03-04T05:06:07Z"
    log = subprocess.run(
        ["git", "-C", str(store), "log", "-1", "--format=%B"], capture_output=True, text=True
    ).stdout
    assert "Chitin-Agent: tester" in log


def test_the_commits_carry_the_time_now_gave(store: Path) -> None:
    """fix130: a program's fixed ``now`` dated the insights but not their commits,
    which git dated by the wall clock: both now carry it; a clock's time is the one the
    operation read (asked once, as the insight's)."""
    from chitin import Chitin

    times = iter([FIXED, FIXED.replace(year=2027)])
    with Chitin(store, now=lambda: next(times)) as chitin:
        chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Dated once."})
        chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Dated twice."})
    dates = subprocess.run(
        ["git", "-C", str(store), "log", "-2", "--format=%aI %cI"], capture_output=True, text=True
    ).stdout.split("\n")
    later, first = "2027-03-04T05:06:07+00:00", "2026-03-04T05:06:07+00:00"
    assert dates[:2] == [f"{later} {later}", f"{first} {first}"]


def test_a_relative_store_is_the_folder_it_named_when_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Chitin(store="personality")`` is the folder ``--store personality`` names: git
    runs inside the store, so a relative path handed to it once named a file that is
    not there (``git commit failed: could not open 'personality/.git/...'``)."""
    from chitin import Chitin

    monkeypatch.chdir(tmp_path)
    with Chitin(store="personality", now=FIXED) as chitin:
        chitin.init()
        added = chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Walk in."})
        monkeypatch.chdir("/")
        assert chitin.get(added.insight.id).claim == "Walk in."
    assert [p.name for p in (tmp_path / "personality" / "insights" / "skill").iterdir()] == [
        f"{added.insight.id}.md"
    ]
    assert commit_count(tmp_path / "personality") == 2


def test_a_clock_is_asked_for_each_operation(store: Path) -> None:
    from chitin import Chitin

    times = iter([FIXED, FIXED.replace(year=2027)])
    with Chitin(store, now=lambda: next(times)) as chitin:
        first = chitin.contribute(
            {"type": "skill", "confidence": 0.7, "claim": "First of two."}, check=False
        )
        second = chitin.contribute(
            {"type": "skill", "confidence": 0.7, "claim": "Second of two."}, check=False
        )
    assert first.insight.created.startswith("2026-")
    assert second.insight.created.startswith("2027-")


@pytest.mark.parametrize("now", ["2026-03-04T05:06:07Z", 1772600767])
def test_a_now_that_is_no_datetime_nor_clock_is_refused_at_construction(
    store: Path, now: object
) -> None:
    """``now`` is a datetime or a clock: a timestamp text (the CLI's old ``now: str``)
    is refused when the instance is made, as a ValidationError naming ``now``, not as a
    TypeError ("'str' object is not callable") at the first write."""
    from chitin import Chitin, ValidationError

    with pytest.raises(ValidationError) as refused:
        Chitin(store, now=now)  # type: ignore[arg-type]
    assert refused.value.field == "now" and "datetime" in str(refused.value)


def test_a_clock_of_naive_times_reads_them_as_utc_as_a_fixed_naive_now_is(store: Path) -> None:
    """``now=datetime.now`` (a clock of naive times) is read as UTC, as a fixed naive
    ``now`` is: a retrieval's decay subtracted it from the files' aware times, and
    raised TypeError ("can't subtract offset-naive and offset-aware datetimes")."""
    from chitin import Chitin

    with Chitin(store, now=lambda: FIXED.replace(tzinfo=None)) as chitin:
        added = chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Naive time."})
        found = chitin.retrieve("naive time")
    assert added.insight.created == "2026-03-04T05:06:07Z"
    assert [ranked.insight.id for ranked in found.ranked] == [added.insight.id]


def test_a_clock_that_answers_no_datetime_is_refused_in_chitins_words(store: Path) -> None:
    """A clock that gives a text is refused as a ValidationError naming ``now``, not as
    an AttributeError ("'str' object has no attribute 'tzinfo'") from deep inside."""
    from chitin import Chitin, ValidationError

    told: Any = lambda: "2026-03-04T05:06:07Z"  # noqa: E731 (a clock, as a caller writes one)
    with Chitin(store, now=told) as chitin, pytest.raises(ValidationError) as refused:
        chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "No time."})
    assert refused.value.field == "now" and "datetime" in str(refused.value)
    assert not list(store.glob("insights/*/*.md"))


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("agent", 5),
        ("agent", ["my-agent"]),
        ("command", "chitin"),
        ("command", 5),
        ("signer", "me@host"),
        ("progress", "x"),
        ("finishes_commands", "no"),
    ],
)
def test_the_other_options_of_the_wrong_kind_are_refused_at_construction(
    store: Path, option: str, value: object
) -> None:
    """session.Options, which Chitin takes too, are checked as store, now and env are:
    an agent of 5 raised TypeError (object of type 'int' has no len()) when the
    instance was made, a signer or progress that is no function TypeError ('str'
    object is not callable) at the first reinforce or rebuild, and a command given as
    one text ran git's merge driver letter by letter."""
    from chitin import Chitin, ValidationError

    with pytest.raises(ValidationError) as refused:
        Chitin(store, **{option: value})
    assert refused.value.field == option and option in str(refused.value)


@pytest.mark.parametrize("given", ["", "  ", 5])
def test_a_store_that_names_no_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: object
) -> None:
    """``Chitin(store=os.environ.get("AGENT_STORE", ""))``: an empty text was the current
    folder, where the first write made a store (the CLI refuses ``--store ""`` for this
    reason); a number raised TypeError."""
    from chitin import Chitin, ValidationError

    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    with pytest.raises(ValidationError) as refused, Chitin(store=given, now=FIXED) as chitin:  # type: ignore[arg-type]
        chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Not here."})
    assert refused.value.field == "store"
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("env", ["CHITIN_AGENT=me", 5, {"CHITIN_AGENT": 5}])
def test_an_env_that_is_no_mapping_of_texts_is_refused_at_construction(
    store: Path, env: object
) -> None:
    """``env`` is a mapping of names to texts (os.environ or a dict): a text or a number
    raised AttributeError ('str' object has no attribute 'get') at the first use, a
    number as a value TypeError at the first write."""
    from chitin import Chitin, ValidationError

    with pytest.raises(ValidationError) as refused:
        Chitin(store, now=FIXED, env=env)  # type: ignore[arg-type]
    assert refused.value.field == "env" and "mapping" in str(refused.value)


def test_the_context_manager_closes_the_cache(store: Path) -> None:
    from chitin import Chitin

    with Chitin(store, now=FIXED) as chitin:
        chitin.contribute({"type": "skill", "confidence": 0.7, "claim": "Closed on the way out."})
        assert chitin.stats().total == 1
        assert chitin._session._cache is not None
    assert chitin._session._cache is None


def test_methods_take_typed_values(store: Path) -> None:
    from chitin import Chitin, Query, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.contribute(
            {"type": "skill", "confidence": 0.7, "claim": "Typed skill", "tags": ["a"]}, check=False
        )
        chitin.contribute(
            {
                "type": "trigger",
                "confidence": 0.7,
                "claim": "Typed trigger",
                "condition": "when typing",
            },
            check=False,
        )
        assert len(chitin.list_insights(types=["skill", "trigger"])) == 2
        assert [i.claim for i in chitin.list_insights(tags=("a",))] == ["Typed skill"]
        with pytest.raises(ValidationError):  # a CLI comma list is not split
            chitin.list_insights(types="skill,trigger")
        found = chitin.retrieve(Query("typed", types=("trigger",)))
        assert [r.insight.claim for r in found.ranked] == ["Typed trigger"]
        assert found.recorded


@pytest.mark.parametrize(
    ("asked", "field"),
    [
        ({"max_results": 0}, "max_results"),
        ({"max_results": -1}, "max_results"),
        ({"max_results": 2.5}, "max_results"),
        ({"budget": 0}, "budget"),
        ({"budget": True}, "budget"),
        ({"min_confidence": 2}, "min_confidence"),
        ({"min_confidence": -0.1}, "min_confidence"),
        ({"text": None}, "query"),
        ({"text": 5}, "query"),
        ({"full": "no"}, "full"),
        ({"full": 1}, "full"),
    ],
)
def test_a_query_out_of_bounds_is_refused_as_the_cli_refuses_it(
    store: Path, asked: dict[str, Any], field: str
) -> None:
    """The library is a way in like the flags and the tools: a count of 0 or -1 (which
    sliced the ranking to nothing, or to all but one), a budget that packs nothing, a
    confidence floor above 1 or a query that is not text is a ValidationError naming
    the field, never an empty answer or a TypeError."""
    from chitin import Chitin, Query, ValidationError

    query = Query("write a test")._replace(**asked)
    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        for call in (chitin.retrieve, chitin.render):
            with pytest.raises(ValidationError) as refused:
                call(query)
            assert refused.value.field == field and field in str(refused.value)
            assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.list_insights(min_confidence=5), "min_confidence"),
        (lambda c: c.list_insights(min_confidence=-1), "min_confidence"),
        (lambda c: c.history("write-the", limit=-1), "limit"),
        (lambda c: c.history("write-the", limit=0), "limit"),
        (lambda c: c.history("write-the", limit=1.5), "limit"),
        (lambda c: c.changelog(days=0), "days"),
        (lambda c: c.changelog(days=-3), "days"),
        (lambda c: c.changelog(limit=-1), "limit"),
        (lambda c: c.similar("write a test", threshold=2), "threshold"),
        (lambda c: c.similar("write a test", threshold=-1), "threshold"),
        (lambda c: c.quality(top=-1), "top"),
    ],
)
def test_numbers_out_of_range_are_refused_by_every_reading(
    store: Path, call: Callable[[Any], object], field: str
) -> None:
    """What `list --min-confidence`, `history --limit`, `changelog --days/--limit`,
    `similar --threshold` and `quality --top` refuse, the library refuses too, naming
    the argument: a limit of -1 gave all but the newest entry, days of 0 or -3 every
    change, a threshold of -1 every insight, 1.5 a TypeError."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        with pytest.raises(ValidationError) as refused:
            call(chitin)
    assert refused.value.field == field and field in str(refused.value)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.merge(None, "write-the"), "source"),
        (lambda c: c.merge(5, "write-the"), "source"),
        (lambda c: c.merge(["repr"], None), "id"),
        (lambda c: c.path_of(["write-the"]), "id"),
        (lambda c: c.path_of("\udcff"), "id"),
        (lambda c: c.path_of("../x"), "id"),
    ],
    ids=["merge-none", "merge-int", "merge-target", "path-list", "path-surrogate", "path-up"],
)
def test_an_id_of_the_wrong_kind_is_refused_by_merge_and_path_of(
    store: Path, call: Callable[[Any], object], field: str
) -> None:
    """``merge(None, ...)`` raised TypeError ('NoneType' object is not iterable), and
    ``path_of`` handed a list to SQLite (ProgrammingError) and a lone surrogate to its
    UTF-8 (UnicodeEncodeError): each is a ValidationError, as ``get`` gives."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        commits = commit_count(store)
        with pytest.raises(ValidationError) as refused:
            call(chitin)
        assert refused.value.field == field and "\n" not in str(refused.value)
        assert commit_count(store) == commits


def test_check_takes_paths_as_texts_too_and_refuses_what_is_no_path(store: Path) -> None:
    """``check(["insights/skill/x.md"])`` failed on a text's missing ``.name``
    (AttributeError), and a number among the paths or as ``home`` raised TypeError."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        one = chitin.path_of(chitin.get("write-the").id)
        assert chitin.check([str(store / one)]).files == 1
        assert chitin.check([store / one], home=str(store)).files == 1
        for paths, home, field in (([5], None, "paths"), (5, None, "paths"), (None, 5, "home")):
            with pytest.raises(ValidationError) as refused:
                chitin.check(paths, home)  # type: ignore[arg-type]
            assert refused.value.field == field


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.last_retrieved(5), "ids"),
        (lambda c: c.last_retrieved("write-the"), "ids"),
        (lambda c: c.last_retrieved([["write-the"]]), "ids"),
        (lambda c: c.pending_reflections(legacy=5), "legacy"),
        (lambda c: c.reflection_done("s-1", legacy=["x"]), "legacy"),
        (lambda c: c.diff("x" * 200_000), "revision"),
    ],
    ids=["ids-number", "ids-text", "ids-nested", "pending-legacy", "done-legacy", "long-rev"],
)
def test_the_host_calls_refuse_arguments_of_the_wrong_kind(
    store: Path, call: Callable[[Any], object], field: str
) -> None:
    """What the hooks' and hosts' calls raised for an argument of the wrong kind:
    TypeError ('int' object is not iterable; lstat: path should be string), and for a
    revision longer than a command line's argument may be, OSError (Argument list too
    long). Each is a ValidationError naming the argument."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        with pytest.raises(ValidationError) as refused:
            call(chitin)
    assert refused.value.field == field


def _question(**fields: Any) -> Any:
    from chitin import CarapaceQuestion

    return CarapaceQuestion(**{"text": "how to test", **fields})


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c, key: c.ask_carapace(5, _question()), "credentials"),
        (lambda c, key: c.ask_carapace(None, _question()), "credentials"),
        (lambda c, key: c.ask_carapace(key, 5), "question"),
        (lambda c, key: c.ask_carapace(key, _question(max_results="5")), "max_results"),
        (lambda c, key: c.ask_carapace(key, _question(domain_tags=5)), "domain_tags"),
        (lambda c, key: c.ask_carapace(key, _question(domain_tags="a,b")), "domain_tags"),
        (lambda c, key: c.promote("write-the", 5, None), "credentials"),
        (lambda c, key: c.promote("write-the", key, 5), "domain_tags"),
        (lambda c, key: c.promote("write-the", key, [5]), "domain_tags"),
        (lambda c, key: c.register_carapace(None, "agent"), "credentials"),
        (lambda c, key: c.import_contribution(None, "skill"), "contribution_id"),
    ],
    ids=[
        "ask-key-number",
        "ask-key-none",
        "ask-question-number",
        "ask-max-text",
        "ask-tags-number",
        "ask-tags-text",
        "promote-key-number",
        "promote-tags-number",
        "promote-tags-numbers",
        "register-key-none",
        "import-id-none",
    ],
)
def test_the_carapace_calls_refuse_arguments_of_the_wrong_kind(
    store: Path, tmp_path: Path, call: Callable[[Any, Path], object], field: str
) -> None:
    """The Carapace calls raised TypeError ('<=' not supported, 'int' object is not
    iterable, open: path should be string) or AttributeError (no 'text', no 'strip',
    no 'exists') for an argument of the wrong kind, and sent a text of domain tags
    letter by letter. Each is a ValidationError naming the argument, before any request."""
    from chitin import Chitin, ValidationError

    key = tmp_path / "credentials.json"
    key.write_text('{"api_key": "sk-test-123456"}')
    key.chmod(0o600)
    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        with pytest.raises(ValidationError) as refused:
            call(chitin, key)
    assert refused.value.field == field


def test_the_carapace_calls_take_the_credentials_file_as_a_text(
    store: Path, tmp_path: Path
) -> None:
    """A path given as text, as ``check`` and ``import_insights`` take one, reaches the
    server (here a refused port): it raised AttributeError ('str' object has no
    attribute 'stat' / 'exists')."""
    from chitin import CarapaceQuestion, Chitin
    from chitin.providers.carapace import CarapaceError

    key = tmp_path / "credentials.json"
    key.write_text('{"api_key": "sk-test-123456"}')
    key.chmod(0o600)
    with Chitin(store, now=FIXED) as chitin:
        chitin.init()
        with pytest.raises(CarapaceError, match="NETWORK_ERROR"):
            chitin.ask_carapace(str(key), CarapaceQuestion("how to test"))  # type: ignore[arg-type]
        with pytest.raises(CarapaceError, match="NETWORK_ERROR"):
            chitin.register_carapace(str(tmp_path / "new.json"), "agent")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda h: chitin_api().install_hook("claude-code", 5, ["chitin"], home=h), "folder"),
        (lambda h: chitin_api().install_hook("claude-code", h, "chitin", home=h), "command"),
        (lambda h: chitin_api().install_hook("claude-code", h, [], home=h), "command"),
        (lambda h: chitin_api().install_hook("cursor", None, ["chitin"], store=5, home=h), "store"),
        (lambda h: chitin_api().install_hook("cursor", None, ["chitin"], home=5), "home"),
        (lambda h: chitin_api().install_hook("openclaw", None, ["chitin"], home=h, env=5), "env"),
        (
            lambda h: chitin_api().install_hook("cursor", None, ["c"], home=h, platform=5),
            "platform",
        ),
        (lambda h: chitin_api().uninstall_hook("cursor", 5, home=h), "folder"),
        (lambda h: chitin_api().write_output(5, "text"), "path"),
        (lambda h: chitin_api().write_output(h / "out.md", 5), "text"),
        (lambda h: chitin_api().output_target(5), "path"),
        (lambda h: chitin_api().merge_file(5, 5, 5, "x.md"), "base"),
        (lambda h: chitin_api().carapace_credentials_path(5, h), "given"),
        (lambda h: chitin_api().carapace_credentials_path(None, 5), "home"),
    ],
    ids=[
        "install-folder",
        "install-command-text",
        "install-command-empty",
        "install-store",
        "install-home",
        "install-env",
        "install-platform",
        "uninstall-folder",
        "write-path",
        "write-text",
        "target-path",
        "merge-paths",
        "credentials-given",
        "credentials-home",
    ],
)
def test_the_front_end_helpers_refuse_arguments_of_the_wrong_kind(
    tmp_path: Path, call: Callable[[Path], object], field: str
) -> None:
    """What chitin.__all__ offers a front end beside a store raised AttributeError or
    TypeError for an argument of the wrong kind ('int' object has no attribute
    'is_dir', 'is_symlink', 'parts' or 'get'; unsupported operand type(s) for /), or
    took it (a platform of 5 wrote Linux's file). Each is a ValidationError naming it,
    and nothing is written."""
    from chitin import ValidationError

    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(ValidationError) as refused:
        call(tmp_path)
    assert refused.value.field == field
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize(("chitin", "env", "field"), [(5, None, "chitin"), (None, 5, "env")])
def test_the_embed_worker_refuses_arguments_of_the_wrong_kind(
    store: Path, chitin: object, env: object, field: str
) -> None:
    """``run_embed_worker`` (in ``chitin.__all__``, as the Claude Code calls are) raised
    AttributeError ('int' object has no attribute 'root', no 'get') for a host that is
    no opened store and an env that is no mapping, as those calls no longer do."""
    from chitin import Chitin, ValidationError, run_embed_worker

    with Chitin(store, now=FIXED) as opened:
        opened.init()
        with pytest.raises(ValidationError) as refused:
            run_embed_worker(opened if chitin is None else chitin, env)  # type: ignore[arg-type]
    assert refused.value.field == field
    assert not (store / ".chitin" / "vectors" / "background.json").exists()  # no "running"


def test_the_front_end_helpers_take_paths_as_texts(tmp_path: Path) -> None:
    """As ``Chitin.check`` and ``import_insights`` do: each raised AttributeError
    ('str' object has no attribute 'is_dir', 'is_symlink' or 'parts')."""
    import chitin

    home = tmp_path / "me"
    home.mkdir()
    made = chitin.install_hook("claude-code", str(home), ["chitin"], store=str(tmp_path / "s"))
    assert made.path == home / ".claude" / "settings.json" and made.path.is_file()
    assert chitin.uninstall_hook("claude-code", str(home)).action == "removed"
    assert chitin.output_target(str(tmp_path / "out.md")) == tmp_path / "out.md"
    chitin.write_output(str(tmp_path / "out.md"), "text\n")
    assert (tmp_path / "out.md").read_text() == "text\n"
    given = chitin.carapace_credentials_path(str(tmp_path / "key.json"), str(home))
    assert given == tmp_path / "key.json"


def chitin_api() -> Any:
    import chitin

    return chitin


EVENT = '{"session_id": "s-1", "cwd": "/work/app", "hook_event_name": "SessionEnd"}'


def _marker(chitin: Any) -> Any:
    return chitin.queue_reflection("agent:main:x", "new")


def _where(**fields: Any) -> Any:
    """A Where with fields of the wrong type: AttributeError ('int' object has no
    attribute 'strip'), and a text of ids was queued letter by letter."""
    from chitin.model.reflection import Where

    return Where(**fields)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.queue_reflection("agent:main:x", "new", where="here"), "where"),
        (lambda c: c.queue_reflection("k", "new", where=_where(transcript=5)), "transcript"),
        (lambda c: c.queue_reflection("k", "new", where=_where(agent_database=5)), "agentDatabase"),
        (lambda c: c.queue_reflection("k", "new", where=_where(injected="write-the")), "injected"),
        (lambda c: c.queue_reflection("k", "new", where=_where(injected=[5])), "injected"),
        (lambda c: c.note_session_start("s-1", "write-the"), "injected"),
        (lambda c: c.note_session_start("s-1", [5]), "injected"),
        (lambda c: c.reflection_digests(5, 4000), "markers"),
        (lambda c: c.reflection_digests([_marker(c).session_key], 4000), "markers"),
        (lambda c: c.reflection_digests([_marker(c)], "4000"), "characters"),
        (lambda c: c.reflection_digests([_marker(c)], 10), "characters"),
        (lambda c: c.reflection_digests([_marker(c)], 4000, shell="no"), "shell"),
        (lambda c: c.reflection_digests([_marker(c)], 4000, cleared=1), "cleared"),
        (lambda c: (_marker(c), c.pending_reflections(clear="no")), "clear"),
        (lambda c: claude_code_session_start(c, EVENT, "500"), "budget"),
        (lambda c: claude_code_session_start(c, EVENT, None), "budget"),
        (lambda c: claude_code_session_start(c, {"session_id": "s-1"}, 500), "event"),
        (lambda c: claude_code_reflect(c, None), "event"),
        (lambda c: claude_code_reflect(str(c.root), EVENT), "chitin"),
        (lambda c: claude_code_session_start(None, EVENT, 500), "chitin"),
    ],
)
def test_the_reflection_host_calls_refuse_arguments_of_the_wrong_type(
    store: Path, call: Callable[[Any], object], field: str
) -> None:
    """The reflection's host calls raised TypeError ('<' not supported between 'int'
    and 'str'; 'int' object is not iterable) or AttributeError ('NoneType' object has
    no attribute 'strip'), or took a text as true (``clear="no"`` cleared the queue).
    Each is a ValidationError naming the argument and what it accepts; nothing changed."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        with pytest.raises(ValidationError) as refused:
            call(chitin)
        assert refused.value.field == field and field in str(refused.value)
        assert " must be " in str(refused.value)
        if field == "clear":
            assert len(chitin.pending_reflections().markers) == 1  # left as it was


SECRET = "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here"
TWIN = {"type": "skill", "claim": "Keep it simple", "confidence": 0.5}


def _one(chitin: Any, index: int = 0) -> str:
    return str(chitin.list_insights()[index].id)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.dedupe(apply="no"), "apply"),
        (lambda c: c.dedupe(True, allow_secret="no"), "allow_secret"),
        (lambda c: c.contribute({**TWIN, "claim": SECRET}, allow_secret="no"), "allow_secret"),
        (lambda c: c.contribute(TWIN, check=0), "check"),
        (lambda c: c.update(_one(c), {"reasoning": SECRET}, allow_secret="no"), "allow_secret"),
        (lambda c: c.reinforce(_one(c), source=SECRET, allow_secret=1), "allow_secret"),
        (lambda c: c.merge(_one(c), _one(c, 1), allow_secret=""), "allow_secret"),
        (lambda c: c.init(seed="no"), "seed"),
        (lambda c: c.list_insights(archived="no"), "archived"),
        (lambda c: c.similar("keep it simple", 0.2, semantic="no"), "semantic"),
        (lambda c: c.retrieve("keep it simple", record="no"), "record"),
        (lambda c: c.render("keep it simple", record="no"), "record"),
        (lambda c: c.embed(force="no"), "force"),
        (lambda c: c.import_insights([TWIN], merge="no"), "merge"),
        (lambda c: c.sync(abort="no"), "abort"),
        (lambda c: c.import_contribution("x", "skill", force="no"), "force"),
    ],
)
def test_a_switch_that_is_no_bool_is_refused_before_anything_changes(
    store: Path, call: Callable[[Any], object], field: str
) -> None:
    """The library's switches took any value as its truth: ``dedupe(apply="no")``
    merged every cluster, and ``contribute(..., allow_secret="no")`` committed a GitHub
    token to git's history. Each switch is a ValidationError naming it unless it is
    True or False (as ``pending_reflections(clear=...)`` already was), and the store
    is left as it was."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init()
        for _ in range(2):  # a cluster for dedupe, the same claim twice
            chitin.contribute(TWIN, check=False)
        before = commit_count(store)
        with pytest.raises(ValidationError) as refused:
            call(chitin)
        assert refused.value.field == field
        assert f"{field} must be True or False, got " in str(refused.value)
        assert commit_count(store) == before
        assert len(chitin.list_insights()) == 2


def claude_code_session_start(*args: Any) -> Any:
    from chitin import claude_code_session_start as call

    return call(*args)


def claude_code_reflect(*args: Any) -> Any:
    from chitin import claude_code_reflect as call

    return call(*args)


def test_a_source_that_is_no_text_is_refused_before_any_write(store: Path) -> None:
    """``reinforce(source=5)`` raised AttributeError ('int' object has no attribute
    'isascii') from the text check; it is a ValidationError naming the field, and the
    insight is left as it was."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        for source in (5, ["review"]):
            with pytest.raises(ValidationError) as refused:
                chitin.reinforce("write-the", source=source)  # type: ignore[arg-type]
            assert refused.value.field == "source" and "text" in str(refused.value)
        assert chitin.get("write-the").reinforcements == 0


def test_fields_that_are_no_mapping_are_refused_as_such(store: Path) -> None:
    """``contribute("a claim")`` read the text's letters as field names ("unknown field
    'a'"); the refusal says that the fields are a mapping."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        for call in (
            lambda: chitin.contribute("Write the failing test first"),  # type: ignore[arg-type]
            lambda: chitin.contribute([("type", "skill")]),  # type: ignore[arg-type]
            lambda: chitin.update("write-the", "confidence"),  # type: ignore[arg-type]
        ):
            with pytest.raises(ValidationError) as refused:
                call()
            assert "mapping" in str(refused.value) and "unknown field" not in str(refused.value)
        assert chitin.stats().total == 14


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.similar(5, 0.2), "claim"),
        (lambda c: c.retrieve(None), "query"),
        (lambda c: c.retrieve(5), "query"),
        (lambda c: c.render(None), "query"),
        (lambda c: c.diff(None, render=5), "query"),
        (lambda c: c.similar(None, 0.5, semantic=True), "claim"),
        (lambda c: c.diff(5), "revision"),
        (lambda c: c.queue_reflection(5, "new"), "sessionKey"),
        (lambda c: c.queue_reflection("agent:main:x", "new", session_id=7), "sessionId"),
        (lambda c: c.reflection_done(5), "session"),
    ],
)
def test_a_text_argument_given_as_no_text_is_refused_naming_it(
    store: Path, call: Callable[[Any], object], field: str
) -> None:
    """A number or None where a text belongs raised AttributeError ('int' object has
    no attribute 'lower', 'encode', 'strip') or TypeError from deep inside."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        with pytest.raises(ValidationError) as refused:
            call(chitin)
    assert refused.value.field == field and "text" in str(refused.value)


def test_a_merge_of_no_source_is_refused(store: Path) -> None:
    """``merge([], target)`` answered with the target as if merged, committing nothing;
    the command line needs a source, and so does the library."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        with pytest.raises(ValidationError) as refused:
            chitin.merge([], "write-the")
    assert refused.value.field == "source" and "source" in str(refused.value)


def test_retrieve_returns_what_fits_the_budget(store: Path) -> None:
    """The use case is finished in the library: the front ends print ``packed``."""
    from chitin import Chitin, Query
    from chitin.render.budget import estimate_tokens, marshal

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        small = chitin.retrieve(Query("write a test", budget=60))
        whole = chitin.retrieve(Query("write a test", budget=5000, full=True))
    assert small.packed is not None and whole.packed is not None
    assert small.packed.omitted > 0 and small.packed.note
    assert estimate_tokens(marshal(small.packed)) <= 60
    assert [i.id for i in small.packed.chosen] == [
        r.insight.id for r in small.ranked if r.insight in small.packed.chosen
    ]
    assert whole.packed.omitted == 0 and len(whole.packed.chosen) == len(whole.ranked)
    assert "Reasoning:" in marshal(whole.packed, full=True)


def test_nothing_is_printed_and_errors_are_chitin_errors(
    store: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from chitin import Chitin, ChitinError, NotFoundError

    with Chitin(store, now=FIXED, env=os.environ) as chitin:
        chitin.init(seed=True)
        made = chitin.contribute(
            {"type": "skill", "confidence": 0.7, "claim": "Say nothing on stdout."}
        )
        chitin.retrieve("stdout")
        chitin.render("stdout")
        chitin.archive(made.insight.id)
        chitin.stats()
        with pytest.raises(NotFoundError) as raised:
            chitin.get("missing-one")
    assert isinstance(raised.value, ChitinError)
    assert capfd.readouterr() == ("", "")


def test_a_duplicate_is_refused_in_the_librarys_words(store: Path) -> None:
    """A program has no --force: the refusal names what it can pass (check=False)."""
    from chitin import Chitin, DuplicateError

    claim = {"type": "skill", "confidence": 0.7, "claim": "Say it once."}
    with Chitin(store, now=FIXED, env=os.environ) as chitin:
        known = chitin.contribute(claim).insight.id
        with pytest.raises(DuplicateError) as refused:
            chitin.contribute(claim)
        assert refused.value.existing == known
        assert str(refused.value) == (
            f"already known as {known}: reinforce {known} to strengthen it, as "
            f"`chitin reinforce {known}` does (check=False writes a second copy anyway)"
        )
        assert chitin.contribute(claim, check=False).insight.id != known


def test_one_import_takes_a_path_a_stream_or_a_parsed_export(store: Path, tmp_path: Path) -> None:
    """Issue 29: ``import_insights`` is the one import; whether a file is a chitin 1.x
    database is its own business, not the caller's (there is no ``is_database``)."""
    import io
    import json

    from chitin import Chitin, ChitinError

    def item(claim: str) -> dict[str, Any]:
        return {"type": "skill", "confidence": 0.6, "claim": claim}

    exported = tmp_path / "exported.json"
    exported.write_text(json.dumps([item("Imported from a path.")]))
    with Chitin(store, now=FIXED) as chitin:
        chitin.init()
        chitin.import_insights([item("Imported parsed.")], origin="a test")
        chitin.import_insights(str(exported))
        chitin.import_insights(io.StringIO(json.dumps([item("Imported from a stream.")])))
        with pytest.raises(ChitinError, match=r"^cannot read \./nowhere\.json: "):
            chitin.import_insights("./nowhere.json")
        claims = sorted(i.claim for i in chitin.list_insights())
    assert claims == ["Imported from a path.", "Imported from a stream.", "Imported parsed."]
    subjects = subprocess.run(
        ["git", "-C", str(store), "log", "-3", "--format=%s"], capture_output=True, text=True
    ).stdout.splitlines()
    assert subjects == [
        "Import 1 insight(s) from stdin",
        "Import 1 insight(s) from exported.json",
        "Import 1 insight(s) from a test",
    ]
    assert not hasattr(Chitin, "is_database")


def test_embed_with_another_provider_uses_it_and_an_unknown_one_is_refused(store: Path) -> None:
    """One Chitin keeps its model open between calls; ``embed`` naming another provider
    embedded with the model already open (the local one a contribute's duplicate check
    had opened) and recorded the named one in chitin.yaml: an unknown name too, which
    then broke every later embed and retrieval by meaning."""
    from ollama_server import OllamaServer

    from chitin import Chitin, ChitinError

    with (
        OllamaServer() as ollama,
        # os.environ's too (the isolated fixture's CHITIN_RESIDENT=off and folder): an
        # env of its own started a resident embedder in the user's real folder, alive
        # for 5 idle minutes after the run ("subprocess N is still running" at exit).
        Chitin(store, now=FIXED, env={**os.environ, "OPENAI_BASE_URL": ollama.url}) as chitin,
    ):
        chitin.init()
        chitin.contribute(
            {"type": "skill", "claim": "Run the tests before pushing", "confidence": 0.8}
        )
        chitin.similar("run the tests", 0.5, semantic=True)  # the local model, opened
        with pytest.raises(ChitinError, match="Unknown embedding provider: 'bogus'"):
            chitin.embed("bogus")
        config = store / "chitin.yaml"
        assert not config.exists() or "bogus" not in config.read_text(encoding="utf-8")
        meaning, done = chitin.embed("openai", "nomic-embed-text")
        assert (meaning.provider.name, done) == ("openai", 1)
        assert ["Run the tests before pushing"] in [body["input"] for _, body in ollama.requests]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.list_insights(types=5), "types"),
        (lambda c: c.list_insights(tags=5), "tags"),
        (lambda c: c.list_insights(types=[5]), "type"),
        (lambda c: c.list_insights(archived="no"), "archived"),
        (lambda c: c.retrieve(_query(types=5)), "types"),
        (lambda c: c.render("x", limit="500"), "limit"),
        (lambda c: c.render("x", limit=-1), "limit"),
        (lambda c: c.render("x", reader=5), "reader"),
        (lambda c: c.import_insights([], origin=5), "origin"),
        (lambda c: c.check(paths="insights/skill/x.md"), "paths"),
        (lambda c: c.note_session_start(5, []), "session"),
    ],
)
def test_arguments_of_the_wrong_type_are_refused_naming_them(
    store: Path, call: Callable[[Any], object], field: str
) -> None:
    """A number for the types or tags raised TypeError ('int' object is not iterable),
    a number in the list AttributeError (no 'strip'), and archived="no" a ValueError
    from SQLite's int(); so did render's limit as a text (TypeError) and reader as a
    number, an import's origin as a number, a session as a number; one path's text for
    check's paths was read letter by letter. Each is a ValidationError naming it."""
    from chitin import Chitin, ValidationError

    with Chitin(store, now=FIXED) as chitin:
        chitin.init(seed=True)
        with pytest.raises(ValidationError) as refused:
            call(chitin)
    assert refused.value.field == field and field in str(refused.value)


def _query(**given: object) -> Any:
    from chitin import Query

    return Query("x", **given)  # type: ignore[arg-type]


def test_every_public_attribute_of_chitin_says_what_it_does() -> None:
    """``help(Chitin)`` is a caller's reference: each use case has its docstring."""
    from chitin import Chitin

    public = [name for name in vars(Chitin) if not name.startswith("_")]
    assert len(public) > 30
    undocumented = [name for name in public if not (getattr(Chitin, name).__doc__ or "").strip()]
    assert undocumented == []


def test_changelog_keeps_as_many_changes_by_default_as_the_cli_and_the_mcp_tool() -> None:
    """qa125: ``Chitin.changelog()`` kept 50 where `chitin changelog` and the MCP tool
    keep 20 (1.4.5's `--limit` default)."""
    import inspect
    import json

    from chitin import Chitin
    from chitin.cli.log import changelog

    library = inspect.signature(Chitin.changelog).parameters["limit"].default
    cli = next(p.default for p in changelog.params if p.name == "limit")
    tools = json.loads((Path(__file__).parents[1] / "chitin/server/tools.json").read_text())
    schema = next(t["inputSchema"] for t in tools if t["name"] == "changelog")
    assert library == cli == schema["properties"]["limit"]["default"] == 20


def _named_types(hint: object) -> list[object]:
    """The classes a type hint names: ``tuple[Insight, list[Entry]]`` → Insight, Entry
    (and tuple, list)."""
    import types
    import typing

    args = typing.get_args(hint)
    if not args:
        return [hint]
    origin = typing.get_origin(hint)
    unions = (typing.Union, types.UnionType)
    named = [origin] if origin is not None and origin not in unions else []
    return named + [leaf for arg in args for leaf in _named_types(arg)]


def test_every_public_method_has_hints_a_caller_can_resolve_and_import() -> None:
    """fix135: typing.get_type_hints raised NameError on ~16 methods (annotations named
    only under TYPE_CHECKING), and check's Report, sync's Synced, history's Entry … were
    not importable from chitin."""
    import inspect
    import typing

    import chitin

    public = [getattr(chitin, name) for name in chitin.__all__]
    unnamed = []
    for name, method in inspect.getmembers(chitin.Chitin, callable):
        if name.startswith("_"):
            continue
        hints = typing.get_type_hints(method)  # raises on a name it cannot resolve
        for named in _named_types(hints["return"]):
            builtin = named is None or getattr(named, "__module__", "") in ("builtins", "typing")
            if not builtin and not any(named is value for value in public):
                unnamed.append(f"{name}: {named}")
    assert unnamed == []
