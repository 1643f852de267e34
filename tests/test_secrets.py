"""The secret guard: likely credentials are found, prose is left alone, and no write
through chitin (contribute, update, import) commits one unless asked to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, commit_count, git

from chitin.errors import ValidationError
from chitin.model.insight import Insight
from chitin.model.secrets import RULES, find_secrets, redacted, refuse_secrets, secrets_in

# Built from pieces, so that this file holds no string a secret scanner would flag.
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
ANTHROPIC = "sk-ant-" + "api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-abcdefAA"
OPENAI = "sk-" + "proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"
GOOGLE = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
STRIPE = "sk_live_" + "51HqLyjWDarjtT1zdp7dcABCDEF"
JWT = (
    "eyJhbGciOiJIUzI1NiJ9"
    + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

XAI = "Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A" * 2 + "Bc4eF6gH"
# fix122: the gaps a sweep found, each with the secret in it (also through contribute
# and a digest, below).
GAPS = [
    ("the staging password is:\n" + "Xk9mQ2vL7pZ", "password or secret", "Xk9mQ2vL7pZ"),
    ("db password:\n    " + "Tz4wQ8nLr2Kx", "password or secret", "Tz4wQ8nLr2Kx"),
    ("the root password is\n" + "hunter2secret", "password or secret", "hunter2secret"),
    ("mysql -u root -p" + "Xk9mQ2vL7 sales", "password or secret", "Xk9mQ2vL7"),
    ("mysqldump -h db -p'" + "Tz4wQ8nLr2' shop", "password or secret", "Tz4wQ8nLr2"),
    ("mysql -h db --password=" + "Tz4wQ8nLr2 sales", "password or secret", "Tz4wQ8nLr2"),
    ("DB_PASSWORD='" + "a passphrase with spaces'", "password or secret", "passphrase with"),
    ('export API_SECRET="' + 'correct horse battery staple"', "password or secret", "horse"),
    # fix130: the client's name as a person may capitalise it
    ("MySQL -u root -p" + "S3cretPass7 sales", "password or secret", "S3cretPass7"),
    ("MARIADB -p" + "Tz4wQ8nLr2 shop", "password or secret", "Tz4wQ8nLr2"),
    ("xai-" + XAI, "xAI API key", XAI),
    ("XAI_API_KEY=xai-" + XAI.lower(), "xAI API key", XAI.lower()),
]
SECRETS = [
    ("-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA", "private key"),
    ("-----BEGIN OPENSSH " + "PRIVATE KEY-----", "private key"),
    ("-----BEGIN " + "PRIVATE KEY-----", "private key"),
    ("-----BEGIN PGP " + "PRIVATE KEY BLOCK-----", "private key"),
    (f"the deploy key is {AWS} for now", "AWS access key"),
    (f"ASIA{'Y' * 12}2345 is a session key", "AWS access key"),
    (f"CI uses {GITHUB}", "GitHub token"),
    ("gho_" + "Zx9" * 12, "GitHub token"),
    ("github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", "GitHub token"),
    ("glpat-" + "AbCdEf1234567890xyzW", "GitLab token"),
    (f"post with {SLACK}", "Slack token"),
    ("xoxp-" + "2048-1024-512-0f3e2d1c0b9a", "Slack token"),
    ("https://hooks.slack.com/services/" + "T0000AAAA/B0000BBBB/XXXXXXXXXXXXXXXXXXXXXXXX", None),
    (ANTHROPIC, "Anthropic API key"),
    (f"OPENAI_API_KEY={OPENAI}", "OpenAI-style API key"),
    ("sk-" + "1234567890abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", "OpenAI-style API key"),
    (GOOGLE, "Google API key"),
    (STRIPE, "Stripe key"),
    ("rk_test_" + "4eC39HqLyjWDarjtT1zdp7dc", "Stripe key"),
    ("hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "Hugging Face token"),
    ("npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "npm token"),
    ("pypi-" + "AgEIcHlwaS5vcmc" + "A1b2C3d4E5f6G7h8I9j0" * 3, "PyPI token"),
    (
        "the key is SG."
        + "a1B2c3D4e5F6g7H8i9J0kL."
        + "m3N4o5P6q7R8s9T0u1V2w3X4y5Z6a7B8c9D0e1F2g3H",
        "SendGrid API key",
    ),
    (f"session cookie {JWT}", "JSON Web Token"),
    ("Authorization: Bearer " + "0123456789abcdefABCDEF", "bearer token"),
    ("curl -H 'Authorization: Bearer " + "tok_9f8e7d6c5b4a3f2e1d0c'", "bearer token"),
    ("clone https://alice:" + "s3cr3tPass@git.example.com/repo.git", "password in a URL"),
    ("https://user:" + "pass@host", "password in a URL"),
    ("postgres://app:" + "Xy7pQ2mN@db.internal:5432/main", "password in a URL"),
    ('password = "' + 'hunter2x"', "password or secret"),
    ("api_key: " + "a8f5f167f44f4964e6c998dee827110c", "password or secret"),
    ("DB_PASSWORD=" + "Tr0ub4dor&3", "password or secret"),
    ('{"client_secret": "' + '9f8e7d6c5b4a"}', "password or secret"),
    ("export GITHUB_TOKEN=" + "abc123def456ghi", "password or secret"),
    ("secret_key => '" + "Q9w8E7r6T5y4'", "password or secret"),
    ("passwd:" + "Zz9!Zz9!Zz9", "password or secret"),
    # Issue 27: a bare AWS secret key, a PEM body without its BEGIN line, its END line,
    # `pw=`, and a token with an invisible character inside.
    ("aws_secret wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY", "AWS secret access key"),
    ("secret: 9Xk2mQ7vLp3RtY8w" + "Zc1Nb4Hf6Jd0Sg5Ae2Ui7Ko1", "AWS secret access key"),
    ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj", "PEM key body"),
    ("  " + "Ab+/" * 16 + "\n  " + "Cd9/" * 16 + "\n", "PEM key body"),
    ("-----END RSA " + "PRIVATE KEY-----", "private key"),
    ("login with pw=" + "Hunter2xyz9 then", "password or secret"),
    # Said in a sentence, in lower case too.
    ("the db password is " + "hunter2secret", "password or secret"),
    ("password: " + "abc123xyz", "password or secret"),
    ("My password for prod was '" + "abc123xyz'.", "password or secret"),
    ("The API token is " + "q7w8e9r0t1y2.", "password or secret"),
    ("CI uses ghp_\u200b" + GITHUB[4:], "GitHub token"),
    ("CI uses " + GITHUB[:10] + "\u2060\u00ad" + GITHUB[10:], "GitHub token"),
    # Invisible though no format character: the combining grapheme joiner, a Hangul
    # filler, a variation selector (contribute stored these).
    ("CI uses " + GITHUB[:10] + "\u034f" + GITHUB[10:], "GitHub token"),
    ("CI uses " + GITHUB[:10] + "\u3164" + GITHUB[10:], "GitHub token"),
    ("CI uses " + GITHUB[:10] + "\ufe0f\uffa0" + GITHUB[10:], "GitHub token"),
    # A command line's long option, as a digest quotes a tool call (issue 26).
    ("mysql --user report --password " + "Tz4wQ8nLr2Kx9Vb sales", "password or secret"),
    ("docker login --password '" + "Xy7pQ2mN9' registry", "password or secret"),
    ("deploy --client-secret " + "Q9w8E7r6T5y4 --dry-run", "password or secret"),
    # HTTP Basic authorization (base64 of "admin:hunter2Secret9"), curl's -u user:pass.
    ("curl -H 'Authorization: Basic " + "YWRtaW46aHVudGVyMlNlY3JldDk='", "password or secret"),
    ("curl -u admin:" + "hunter2Secret9 https://api.internal", "password or secret"),
    ("curl --user 'report:" + "Tz4wQ8nLr2Kx9Vb' https://x", "password or secret"),
    # A key of a shape no rule names, as a user pastes it into a chat.
    ("here is the mail key: " + "q8Zr3LxW0vKp5TnB" + "7yHc2MdFj9SgAe4U", "random-looking token"),
    ("MAILER=" + "key-Hq7Lm2Xp9Zr4Tc8Wv" + "3Nb6Kd1Js5Fg0Ay", "random-looking token"),
    # fix122: the gaps a sweep found (GAPS, each also through contribute and a digest).
    *[(text, kind) for text, kind, _ in GAPS],
]

# qa127: a quoted text with spaces after a secret-named variable that is a message
# about the secret, or none at all: a token or key a generator makes has no spaces.
MESSAGES = [
    '"FORGOT_PASSWORD": "Forgot your password?"',
    'MSG_PASSWORD = "Password must be at least 8 characters"',
    'INVALID_TOKEN = "The token has expired"',
    'error_token = "unexpected end of input"',
    'export API_TOKEN="see the vault for this one"',
]
# qa127: a YAML mapping named for a secret, whose next line is a key of its own (the
# value that may come on the next line, fix122, is never a key: it ends in a colon).
NESTED = [
    "tokens:\n  gpt4o-mini: 128000",
    "secrets:\n  api_key_v2: ${{ secrets.KEY }}",
    "credentials:\n  s3_bucket2: logs",
]
# qa127: a word that starts with "is" or "was" after a secret's name is no "is" (the
# next-line form of fix122 let the value follow "is" with nothing between).
GLUED = [
    "Fixed the password issue#4521 in login",
    "token issues2024q1 report",
    "the token wasm32target build",
]
PROSE = [
    "never put a password in an insight",
    "use an API key from the environment",
    "tokens are counted",
    "Token: counted per request",
    "Secret: keep it in the vault",
    "password: required",
    "password: at least 12 characters",
    "max_tokens: 4096",
    "token_budget=1500",
    "Access tokens: short-lived, rotate them",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "token = $GITHUB_TOKEN",
    "token=${{ secrets.GITHUB_TOKEN }}",
    "password: <your password>",
    "password = ********",
    "password = xxxxxxxxxx",
    "api_key: YOUR_API_KEY",
    "api_key: settings.OPENAI_API_KEY",
    "export GITHUB_TOKEN=$(gh auth token)",
    "Authorization: Bearer <token>",
    "Authorization: Bearer $TOKEN",
    "Bearer tokens expire after an hour",
    "https://example.com:8080/path",
    "ssh://git@github.com/org/repo",
    "postgres://user@localhost/db",
    "git clone git@github.com:org/repo.git",
    "the task-specific sk-learn pipeline",
    "Ask before running git push --force",
    "secret_file: /run/secrets/db",
    "token_url: https://auth.example.com/token",
    "rotate keys: every 90 days",
    "AKIA is the prefix of AWS access keys",
    "ghp_ tokens come from GitHub; revoke leaked ones at once",
    "Keep the API-key out of logs: secrets belong in a vault",
    "password_policy: strong",
    "When the eyJ prefix shows, it is base64 JSON",
    "credentials: from the keychain",
    "Prefer passphrases: long and memorable",
    "last_token_refresh: 2026-11-29T12:00:00Z",
    "The key: test the failure first",
    "Passing tests: 1234 of 1300",
    "Use the -----BEGIN CERTIFICATE----- block as is",
    "sk- followed by letters is an OpenAI key",
    "Slack tokens start with xoxb- or xoxp-",
    "A JWT has three parts separated by dots",
    "keyboard: shortcut-heavy users prefer vim bindings",
    "password = secret",
    "password: hunter",
    "fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "see packages/Core2/src/Components/ButtonGrou",
    "AbstractSingletonProxyFactoryBeanImpl2ab extends it",
    "src/main/java/com/Example/Project1/Utils",
    "pw: required",
    "the pw field is hashed",
    "Use the -----END CERTIFICATE----- line too",
    "uuid 123e4567-e89b-12d3-a456-426614174000 names the run",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "test_ReinforceKeepsTheEvidenceLogOfEachSigner_v2 passes",
    "MyVeryLongComponentNameForTheDashboardWidget2024",
    "the password is required",
    "the password is in 1password",
    "The token is base64-encoded",
    "the secret is sha256-hashed before it is stored",
    "the api key was rotated in 2024",
    "the token is 4096 tokens long",
    "The password was test12345 in the fixtures",
    "the password for staging is $STAGING_PASSWORD",
    "the password is hunter2",
    "Pass --token-limit 4096 to cap the answer",
    "--secret-name prod-db-2 names the vault entry",
    "docker login --password-stdin < pw.txt",
    "Run psql --password to be prompted for it",
    "Use --api-key $OPENAI_API_KEY in CI",
    "the flag --password required by the tool",
    "--token --verbose",
    "mysql --password <your password>",
    "Basic authentication is weak over plain HTTP",
    "Basic dGVzdGluZyBpcyBmdW4= decodes to prose",
    "Authorization: Basic <base64 of user:password>",
    "docker run -u 1000:1000 the image",
    "docker run -u app:staff2 the image",
    "curl -u user:password is the syntax",
    "curl -u admin:$ADMIN_PASSWORD https://x",
    "curl -u root:root http://localhost",
    "git diff -u HEAD:src/app2.py",
    # docker's --secret takes id=NAME,src=FILE: where the secret is, not the secret
    "docker build --secret id=AWS_CREDS,src=./creds .",
    "docker build --secret id=npmrc2,src=$HOME/.npmrc .",
    "docker run --secret source=DbPass,target=/run/pw app",
    # fix122: what the new forms must leave alone
    "password:\n  required",
    "password:\n  - at least 12 characters",
    "the password is\nrequired for every login",
    "mysql -u root -p sales",
    "mysql -P3306 -h db2 -u report",
    "mysql -p$MYSQL_PWD sales",
    "mkdir -p build2024/out",
    "gcc -pthread -o app2 main.c",
    'PASSWORD_HINT="ask the admin team"',
    # fix130: a password's rule, not a password
    'MIN_PASSWORD = "at least 12 characters"',
    'MAX_SECRET: "no more than 64 characters"',
    "DB_PASSWORD='must have 12 chars at least'",
    "MySQL -P3306 -h db2 -u report",
    'password = "your password here"',
    "DB_PASSWORD='$DB_PASSWORD from the vault'",
    'description: "the password must be strong"',
    "xai- keys come from the xAI console",
    *MESSAGES,
    *NESTED,
    *GLUED,
]


@pytest.mark.parametrize(("text", "kind"), SECRETS, ids=[k or "slack-webhook" for _, k in SECRETS])
def test_credentials_are_found_and_named(text: str, kind: str | None) -> None:
    found = find_secrets(text)
    assert len(found) == 1
    assert found[0].kind == (kind or "Slack webhook URL")


@pytest.mark.parametrize("text", PROSE)
def test_prose_about_credentials_is_not_a_credential(text: str) -> None:
    assert find_secrets(text) == []


def test_a_lesson_quoting_a_message_about_a_password_is_let_in(run: Run) -> None:
    """qa127: the quoted-passphrase rule (fix122) took a UI string naming a password,
    and any quoted words after a name ending in "token", for a passphrase: contribute
    refused a lesson about a login page's label or a parser's error."""
    run("init")
    for said in MESSAGES:
        claim = f"The app's text is {said}, edit it in one place"
        run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8")
    assert len(run("list", "--format", "json").stdout.split('"id"')) == len(MESSAGES) + 1


def test_a_config_block_of_a_mapping_named_for_a_secret_is_let_in(run: Run) -> None:
    """qa127: "tokens:" above a nested key (a model's token limits in a config file) was
    taken for a password given on the next line, and contribute refused the lesson."""
    run("init")
    config = "\n".join(["```yaml", "limits:", *NESTED, "```"])
    run("contribute", "--type", "skill", "--claim", "Set each model's limit in the config",
        "--reasoning", f"The config reads:\n{config}", "--confidence", "0.8")  # fmt: skip


def test_the_mysql_and_passphrase_rules_read_a_long_line_once(run: Run) -> None:
    """qa127: the rules for `mysql -pPASS` and a quoted passphrase (fix122) read on from
    every "mysql" (every space of an open quote) to the line's end: their work grew as
    the square of a line's length, and contribute of a 120 KB one-line log, which the
    1 MiB bound allows, took minutes. Each now looks a bounded way ahead."""
    run("init")
    mysql = "the mysql client retried " * 5_000
    opened = "DB_PASSWORD='" + "a b " * 30_000
    run("contribute", "--type", "skill", "--claim", "Read the whole log", "--confidence",
        "0.8", "--reasoning", mysql, "--context", opened,
        "--limitations", "mysql-" * 20_000)  # fmt: skip
    assert find_secrets("mysql " * 30 + "-u root -p" + "Xk9mQ2vL7 sales") != []
    assert find_secrets("DB_PASSWORD='" + "a passphrase with spaces'") != []


def test_a_lesson_naming_a_password_issue_is_let_in(run: Run) -> None:
    """qa127: "the password issue#4521" was read as "the password is sue#4521"."""
    run("init")
    for number, said in enumerate(GLUED):
        claim = f"Lesson {number}: {said} taught us to write tests first"
        run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8")


def test_a_long_run_of_secret_named_words_is_read_once(run: Run) -> None:
    """The name rule of `password = …` backtracked through every secret's word of a
    long run ("API_TOKEN_" * 10,000, 100 KB: 75 s; 1 MiB, which a field may hold,
    hours): contribute of a pasted identifier dump did not end. The name is now found
    once and taken whole; the same finds on the corpora as before."""
    run("init")
    run("contribute", "--type", "skill", "--claim", "Read the whole dump", "--confidence",
        "0.8", "--reasoning", "API_TOKEN_" * 30_000)  # fmt: skip
    assert find_secrets("API_TOKEN_ = 'Xk9mQ2vL7pR4wZ8tQ'") != []
    assert find_secrets('"db_password": "Xk9mQ2vL7pR4wZ8t"') != []


def test_a_find_is_located_and_reported_once() -> None:
    text = f'Set api_key = "{OPENAI}" and ship.'
    [found] = find_secrets(text)
    assert found.kind == "OpenAI-style API key"
    assert text[found.start : found.end] == OPENAI


def test_a_find_behind_invisible_characters_is_located_in_the_original() -> None:
    text = f"ok \u200b\u200b then {GITHUB[:6]}\u200b{GITHUB[6:]} end"
    [found] = find_secrets(text)
    assert text[found.start : found.end] == f"{GITHUB[:6]}\u200b{GITHUB[6:]}"
    assert redacted(text)[0] == "ok \u200b\u200b then [redacted GitHub token] end"


def test_several_secrets_in_one_text_are_all_found() -> None:
    kinds = [s.kind for s in find_secrets(f"{AWS} then {GITHUB}\nand {JWT}")]
    assert kinds == ["AWS access key", "GitHub token", "JSON Web Token"]


def test_every_rule_has_an_example_above() -> None:
    covered = {kind or "Slack webhook URL" for _, kind in SECRETS}
    assert covered == {rule.kind for rule in RULES}


@pytest.mark.parametrize(("text", "kind", "value"), GAPS)
def test_contribute_refuses_each_gap_and_a_digest_masks_it(
    run: Run, store: Path, tmp_path: Path, text: str, kind: str, value: str
) -> None:
    """fix122: a password on the line after "password is" / "password:", `mysql
    -pPASS`, a quoted passphrase with spaces after a secret-named variable, and an xAI
    key were let into a commit and quoted whole by `chitin reflect`."""
    refused = run("contribute", "--type", "skill", "--claim", "Connect to the db",
                  "--reasoning", text, "--confidence", "0.8", expect=1)  # fmt: skip
    article = "an" if kind[0] in "x" else "a"
    assert refused.stderr == f"Error: reasoning looks like it holds {article} {kind}; {REFUSAL}\n"
    assert not store.exists()
    run("init")
    said = {"type": "user", "message": {"role": "user", "content": f"No, use this: {text}"}}
    transcript = tmp_path / "s.jsonl"
    transcript.write_text(json.dumps(said) + "\n")
    run("reflect", "--queue", "--session-key", "s", "--reason", "end",
        "--transcript", str(transcript))  # fmt: skip
    for shown in (run("reflect").stdout, run("reflect", "--format", "json").stdout):
        assert f"[redacted {kind}]" in shown and value not in shown, shown


def _insight(**fields: Any) -> Insight:
    base: dict[str, Any] = {
        "id": "x",
        "type": "skill",
        "claim": "A claim",
        "confidence": 0.5,
        "created": "2026-01-01T00:00:00Z",
        "updated": "2026-01-01T00:00:00Z",
    }
    return Insight(**{**base, **fields})


@pytest.mark.parametrize(
    "field", ["claim", "reasoning", "context", "limitations", "source", "condition"]
)
def test_every_text_field_is_guarded(field: str) -> None:
    insight = _insight(**{field: f"see {GITHUB}"})
    assert [(name, s.kind) for name, s in secrets_in(insight)] == [(field, "GitHub token")]
    with pytest.raises(ValidationError) as caught:
        refuse_secrets(insight)
    assert caught.value.field == field
    assert str(caught.value) == (
        f"{field} looks like it holds a GitHub token; an insight must not contain "
        "credentials (use allow_secret=True if it is not one)"  # the CLI says --allow-secret
    )
    assert GITHUB not in str(caught.value)


def test_tags_are_guarded() -> None:
    assert [n for n, _ in secrets_in(_insight(tags=("ci", AWS)))] == ["tags"]


def test_an_update_is_judged_on_the_fields_it_changes() -> None:
    before = _insight(source=f"from {SLACK}")
    after = before.with_changes(confidence=0.6)
    assert secrets_in(after, before) == []
    changed = before.with_changes(reasoning=f"token {JWT}")
    assert [n for n, _ in secrets_in(changed, before)] == ["reasoning"]


def test_an_article_fits_each_kind() -> None:
    with pytest.raises(ValidationError, match="holds an AWS access key"):
        refuse_secrets(_insight(claim=AWS))
    with pytest.raises(ValidationError, match="holds an OpenAI-style API key"):
        refuse_secrets(_insight(claim=OPENAI))
    with pytest.raises(ValidationError, match="holds a password in a URL"):
        refuse_secrets(_insight(claim="https://bob:" + "Pa55word@example.com"))


# ---------------------------------------------------------------- through the CLI

REFUSAL = "an insight must not contain credentials (use --allow-secret if it is not one)"


def test_contribute_refuses_a_credential_and_writes_nothing(run: Run, store: Path) -> None:
    result = run(
        "contribute", "--type", "skill", "--claim", f"CI uses {GITHUB}",
        "--confidence", "0.8", expect=1,
    )  # fmt: skip
    assert result.stderr == f"Error: claim looks like it holds a GitHub token; {REFUSAL}\n"
    assert result.stdout == ""
    assert not store.exists()  # not even the store was created


def test_contribute_refuses_a_password_said_in_a_sentence(run: Run, store: Path) -> None:
    claim = "the db password is " + "hunter2secret"
    result = run("contribute", "--type", "skill", "--claim", claim, "--confidence", "0.8", expect=1)
    assert result.stderr == f"Error: claim looks like it holds a password or secret; {REFUSAL}\n"
    assert not store.exists()


def test_contribute_refuses_a_credential_in_any_field(run: Run, add: Any, store: Path) -> None:
    add("skill", "Something harmless", 0.6)
    before = commit_count(store)
    for flag in ("--reasoning", "--context", "--limitations", "--source", "--tags"):
        result = run(
            "contribute", "--type", "skill", "--claim", "Deploy with care",
            "--confidence", "0.8", flag, f"key {AWS}", expect=1,
        )  # fmt: skip
        field = flag.removeprefix("--")
        assert result.stderr.startswith(f"Error: {field} looks like it holds an AWS access key")
    trigger = run(
        "contribute", "--type", "trigger", "--claim", "Rotate the key",
        "--condition", f"the log shows {SLACK}", "--confidence", "0.8", expect=1,
    )  # fmt: skip
    assert trigger.stderr.startswith("Error: condition looks like it holds a Slack token")
    assert commit_count(store) == before
    assert len(list((store / "insights").rglob("*.md"))) == 1


def test_contribute_json_input_is_guarded_too(run: Run, store: Path) -> None:
    document = {
        "type": "skill",
        "claim": "Connect to the staging database",
        "confidence": 0.7,
        "context": "postgres://app:" + "Xy7pQ2mN@db.internal/main",
    }
    result = run("contribute", "--json", input=json.dumps(document), expect=1)
    assert result.stderr == f"Error: context looks like it holds a password in a URL; {REFUSAL}\n"
    assert not store.exists()


def test_allow_secret_writes_it_knowingly(run_json: Any, store: Path) -> None:
    made = run_json(
        "contribute", "--type", "skill", "--claim", "Example tokens look like this",
        "--reasoning", f"e.g. {GITHUB}", "--confidence", "0.5", "--allow-secret",
    )  # fmt: skip
    assert made["insight"]["reasoning"] == f"e.g. {GITHUB}"
    assert made["commit"]


def test_update_refuses_a_credential_and_commits_nothing(run: Run, add: Any, store: Path) -> None:
    made = add("skill", "Deploy on Fridays only with a rollback plan", 0.6)
    before = commit_count(store)
    text = (store / "insights" / "skill" / f"{made['id']}.md").read_text()
    result = run("update", made["id"], "--source", f"chat said {SLACK}", expect=1)
    assert result.stderr == f"Error: source looks like it holds a Slack token; {REFUSAL}\n"
    assert commit_count(store) == before
    assert (store / "insights" / "skill" / f"{made['id']}.md").read_text() == text
    run("update", made["id"], "--source", f"chat said {SLACK}", "--allow-secret")
    assert commit_count(store) == before + 1
    # The credential, now stored knowingly, does not block an unrelated change.
    run("update", made["id"], "--confidence", "0.7")
    assert commit_count(store) == before + 2


def test_import_names_the_item_and_imports_nothing(run: Run, store: Path, tmp_path: Path) -> None:
    items = [
        {"type": "skill", "claim": "First harmless claim"},
        {"type": "skill", "claim": "Second harmless claim"},
        {"type": "skill", "claim": "Third harmless claim"},
        {"type": "skill", "claim": "Fourth claim", "source": f"ticket with {GITHUB}"},
    ]
    document = tmp_path / "export.json"
    document.write_text(json.dumps(items))
    result = run("import", str(document), expect=1)
    assert result.stderr == (
        f"Error: items[3].source: source looks like it holds a GitHub token; {REFUSAL}; "
        "nothing was imported\n"
    )
    assert not store.exists()
    imported = json.loads(run("import", str(document), "--allow-secret", "--format", "json").stdout)
    assert imported["imported"] == 4


def test_import_refuses_a_credential_in_an_evidence_line(
    run: Run, store: Path, tmp_path: Path
) -> None:
    """A backup's evidence log becomes lines of the insight file, so it is committed."""
    item = {"type": "skill", "claim": "Pin the build tools", "confidence": 0.6,
            "evidence": [f"2026-01-01 reinforced from {GITHUB}"]}  # fmt: skip
    document = tmp_path / "export.json"
    document.write_text(json.dumps([item]))
    result = run("import", str(document), expect=1)
    assert result.stderr == (
        f"Error: items[0].evidence: evidence looks like it holds a GitHub token; {REFUSAL}; "
        "nothing was imported\n"
    )
    assert commit_count(store) == 0
    run("import", str(document), "--allow-secret")
    assert "ghp_" in git(store, "log", "-p", "--all")


def test_import_from_stdin_is_guarded(run: Run, store: Path) -> None:
    items = [{"type": "principle", "claim": "Keep it simple", "tags": ["ops", STRIPE]}]
    result = run("import", "-", input=json.dumps(items), expect=1)
    assert result.stderr.startswith("Error: items[0].tags: tags looks like it holds a Stripe key")
    assert commit_count(store) == 0


def test_the_secret_never_reaches_a_commit(run: Run, add: Any, store: Path) -> None:
    add("skill", "A normal insight", 0.6)
    run("contribute", "--type", "skill", "--claim", f"Use {ANTHROPIC}", "--confidence", "0.5",
        expect=1)  # fmt: skip
    log = git(store, "log", "-p", "--all")
    assert "sk-ant-" not in log


def test_reinforce_source_and_merge_claim_are_guarded(run: Run, add: Any, store: Path) -> None:
    """Both end up in a commit: the source as a trailer, the claim in the file."""
    one = add("skill", "Pin the versions of build tools", 0.6)["id"]
    two = add("skill", "Pin tool versions in CI", 0.6)["id"]
    before = commit_count(store)
    refused = run("reinforce", one, "--source", f"deploy log {GITHUB}", expect=1)
    assert refused.stderr == f"Error: source looks like it holds a GitHub token; {REFUSAL}\n"
    merged = run("merge", two, one, "--claim", f"Pin versions; CI key {AWS}", expect=1)
    assert merged.stderr.startswith("Error: claim looks like it holds an AWS access key")
    assert commit_count(store) == before
    assert "ghp_" not in git(store, "log", "--all", "--format=%B")
    run("reinforce", one, "--source", f"deploy log {GITHUB}", "--allow-secret")
    assert commit_count(store) == before + 1
