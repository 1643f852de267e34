"""The rules of ``chitin check``: what is wrong with an insight file, as pure functions.

Each rule takes a file's store-relative path and its bytes (or what was read from
them) and returns findings. A finding names the file, the field, what is wrong and
how to fix it, so that a person editing files by hand, or reading a CI log, knows
what to do without knowing chitin's code.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Collection, Iterator, Sequence
from difflib import get_close_matches
from itertools import accumulate
from typing import NamedTuple

from chitin.errors import InvisibleCharacter, ValidationError
from chitin.format.body import SECTION_TITLES
from chitin.format.conflicts import ConflictMarkers
from chitin.format.layout import ARCHIVE_DIR
from chitin.format.markdown import KEY_ORDER, read_insight
from chitin.model.fields import FIELDS
from chitin.model.ids import check_id, shard_folder
from chitin.model.insight import TYPES, Insight
from chitin.model.secrets import article, find_secrets

ERROR = "error"
WARNING = "warning"
# A creation time for files without one: read_insight needs a value; nothing checks it.
_ANY_TIME = "2000-01-01T00:00:00Z"


class Finding(NamedTuple):
    path: str
    field: str
    message: str
    fix: str
    severity: str  # ERROR or WARNING
    # parse, invalid, merge-conflict, layout, duplicate-id, secret, near-duplicate, conflict,
    # unknown-key, future-time
    kind: str

    def line(self) -> str:
        marker = "warning: " if self.severity == WARNING else ""
        return f"{self.path}: {marker}{self.field}: {self.message}; fix: {self.fix}"


class Checked(NamedTuple):
    """One file after its own checks: the insight, when it could be read, and findings."""

    path: str
    insight: Insight | None
    findings: list[Finding]


# ---------------------------------------------------------------- one file


def check_file(path: str, data: bytes) -> Checked:
    """Every per-file finding: the file reads, its values are allowed, it is where its
    id and type say, and it holds no likely credential."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Checked(path, None, [_error(path, "file", "is not UTF-8 text", "save it as UTF-8")])
    try:
        insight = read(path, text)
    except ValidationError as error:
        # A file that does not parse may still hold a credential: it is scanned too.
        problem = _error(path, error.field, str(error), fix_for(error), _kind(error))
        return Checked(path, None, [problem, *secret_findings(path, text)])
    found = [*layout_findings(path, insight), *key_findings(path, text)]
    return Checked(path, insight, [*found, *secret_findings(path, text)])


def read(path: str, text: str) -> Insight:
    """The insight in ``text``, read as the store reads it: a file may leave out its id
    (the file name is used) and its type (the type folder is used)."""
    parts = path.split("/")
    insight = read_insight(
        text,
        fallback_id=parts[-1].removesuffix(".md"),
        fallback_type=parts[1] if len(parts) > 2 else None,
        fallback_time=_ANY_TIME,
        evidence=True,
    )
    return insight.with_changes(archived=parts[0] == ARCHIVE_DIR)


# The fields a file holds in its body, not its frontmatter: where the text goes, and how.
_IN_THE_BODY = {
    name: (f"the body's '## {title}' section", f"move the text under a '## {title}' heading")
    for name, title in SECTION_TITLES.items()
}
_IN_THE_BODY["claim"] = (
    "the body's first paragraph",
    "make the text the first paragraph after the closing '---', or remove the key",
)


def key_findings(path: str, text: str) -> list[Finding]:
    """A frontmatter key chitin does not know but that is close to one it does (tagz,
    confidance), or that names a field of the body (reasoning: …, as `update
    --reasoning` and the JSON call it): the file keeps it as written and reads no such
    field, so the tags or the text it meant to set go quietly missing. A key of one's
    own stays silent."""
    found = []
    for key in _front_keys(text):
        if key in KEY_ORDER:
            continue
        if key.lower() in _IN_THE_BODY:
            body, fix = _IN_THE_BODY[key.lower()]
            message = f"{key} is not a key chitin reads: the {key.lower()} is {body}, so "
            found.append(Finding(path, key, message + "this text is never read", fix, WARNING,
                                 "unknown-key"))  # fmt: skip
            continue
        meant = get_close_matches(key.lower(), KEY_ORDER, n=1, cutoff=0.75)
        if meant:
            message = f"{key} is not a key chitin reads (did you mean {meant[0]}?)"
            found.append(Finding(path, key, message, f"rename it to {meant[0]}", WARNING,
                                 "unknown-key"))  # fmt: skip
    return found


def _front_keys(text: str) -> Iterator[str]:
    """The top-level keys of the frontmatter, as written."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return
    for line in lines[1:]:
        if line.strip() == "---":
            return
        if line and not line[0].isspace() and line[0] not in "#-" and ":" in line:
            yield line.split(":", 1)[0].strip().strip("'\"")


def _error(path: str, field: str, message: str, fix: str, kind: str = "parse") -> Finding:
    return Finding(path, field, message, fix, ERROR, kind)


_FIXES = {field.name: field.fix for field in FIELDS if field.fix is not None}


def _kind(error: ValidationError) -> str:
    if isinstance(error, ConflictMarkers):
        return "merge-conflict"
    return "parse" if error.field == "frontmatter" else "invalid"


def fix_for(error: ValidationError) -> str:
    """What to do about a file that does not read: the fix ``chitin check`` gives, and
    the one every reader's warning gives (index/sync.py)."""
    if isinstance(error, ConflictMarkers | InvisibleCharacter):
        return error.fix
    message = str(error)
    if error.field == "frontmatter":
        if "YAML" in message or "mapping" in message:
            return "correct the YAML between the two '---' lines"
        return "begin the file with a '---' line, then 'key: value' lines, then '---'"
    if error.field == "condition":
        if "needs a condition" in message:
            return "add a line 'condition: <the situation it is for>'"
        if "must be text" in message:  # a trigger's, or not: the value is what is wrong
            return "make condition one line of text: the situation the trigger is for"
        return "remove condition and avoid, or set type: trigger"
    if error.field == "evidence":
        return (
            "write evidence as a list, one '- <time> <who>@<host> <token>' line each, or remove it"
        )
    return _FIXES.get(error.field, f"correct {error.field}")


# ---------------------------------------------------------------- where it lives

_SHARD = re.compile(r"[0-9a-f]{2}")


def layout_findings(path: str, insight: Insight) -> list[Finding]:
    """A file in a type folder must be of that type (``<top>/<type>/<id>.md``, or one
    level deeper in its shard folder), and every file is named after its id. Folders
    of a person's own (``insights/team-ana/``) may hold any type."""
    parts = path.split("/")
    top, folders, name = parts[0], parts[1:-1], parts[-1]
    typed = bool(folders) and folders[0] in TYPES
    sharded = typed and len(folders) == 2 and _SHARD.fullmatch(folders[1]) is not None
    expected = _expected_path(top, insight, sharded)
    found: list[Finding] = []
    if typed and folders[0] != insight.type:
        found.append(
            Finding(
                path,
                "type",
                f"type {insight.type!r} does not match the folder {top}/{folders[0]}/",
                f"move it to {expected}, or set type: {folders[0]}",
                ERROR,
                "layout",
            )
        )
    if sharded and folders[1] != shard_folder(insight.id):
        found.append(
            _layout(path, "path", f"{folders[1]}/ is not the shard folder of this id", expected)
        )
    stem = name.removesuffix(".md")
    if stem != insight.id:
        fix = f"rename the file to {insight.id}.md" + (
            f", or set id: {stem}" if _valid_id(stem) else ""
        )
        found.append(
            Finding(
                path,
                "id",
                f"id {insight.id!r} does not match the file name {name}",
                fix,
                ERROR,
                "layout",
            )
        )
    return found


def _expected_path(top: str, insight: Insight, sharded: bool) -> str:
    folder = f"{top}/{insight.type}"
    if sharded:
        folder += "/" + shard_folder(insight.id)
    return f"{folder}/{insight.id}.md"


def _layout(path: str, field: str, message: str, expected: str) -> Finding:
    return Finding(path, field, message, f"move it to {expected}", ERROR, "layout")


def _valid_id(text: str) -> bool:
    try:
        check_id(text)
    except ValidationError:
        return False
    return True


# ---------------------------------------------------------------- credentials


def secret_findings(path: str, text: str) -> Iterator[Finding]:
    """Likely credentials anywhere in the file, hand-added keys and sections included.
    The message names the line and the kind, never the secret (CI logs are read widely)."""
    lines = list(field_lines(text))
    starts = list(accumulate((len(line) + 1 for _, _, line in lines), initial=0))
    # One scan of the whole text (no rule spans lines), then each find to its line.
    for secret in find_secrets("\n".join(line for _, _, line in lines)):
        field, number, _ = lines[bisect_right(starts, secret.start) - 1]
        yield Finding(
            path,
            field,
            f"line {number} looks like it holds {article(secret.kind)} {secret.kind}",
            "delete it from the file, and revoke it if it was ever committed or pushed",
            ERROR,
            "secret",
        )


def field_lines(text: str) -> Iterator[tuple[str, int, str]]:
    """(field, line number, line) for each line: frontmatter lines by their key, body
    lines by section (the first paragraph is the claim; other text is "body")."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    number = 0
    if lines and lines[0].rstrip() == "---":
        key = "frontmatter"
        for number in range(2, len(lines) + 1):
            line = lines[number - 1]
            if line.rstrip() == "---":
                break
            if line[:1].strip() and line[0] not in "#-" and ":" in line:
                key = line.split(":", 1)[0].strip().strip("'\"") or key
            yield key, number, line
    yield from _body_lines(lines, number)


def _body_lines(lines: list[str], after: int) -> Iterator[tuple[str, int, str]]:
    field = None  # None until the claim starts
    for number in range(after + 1, len(lines) + 1):
        line = lines[number - 1]
        if line.startswith("## "):
            title = line[3:].strip().lower()
            field = title if title in SECTION_TITLES else "body"
        elif field is None and line.strip():
            field = "claim"
        elif field == "claim" and not line.strip():
            field = "body"
        yield field or "body", number, line


# ---------------------------------------------------------------- across files


def duplicate_ids(checked: Sequence[Checked], focus: Collection[str] | None) -> list[Finding]:
    """Two files with one id (also one live and one archived): chitin cannot tell which
    one a command means. With ``focus``, only findings for those paths."""
    paths: dict[str, list[str]] = defaultdict(list)
    for item in checked:
        if item.insight is not None:
            paths[item.insight.id].append(item.path)
    found = []
    for insight_id, group in paths.items():
        for path in group:
            if len(group) > 1 and (focus is None or path in focus):
                others = ", ".join(p for p in group if p != path)
                found.append(
                    Finding(
                        path,
                        "id",
                        f"id {insight_id!r} is also used by {others}",
                        "give one of them another id (and file name), or delete the copy",
                        ERROR,
                        "duplicate-id",
                    )
                )
    return found


def case_ids(checked: Sequence[Checked], focus: Collection[str] | None) -> list[Finding]:
    """Ids that differ only by case (``Upper-AAAA``, ``upper-aaaa``): one file name on
    a case-insensitive file system (macOS, Windows), where a clone keeps one of the two
    files and its next commit replaces the other (and, in two folders, an archive or a
    retype puts them on one path). An error, as one id on two files is."""
    ids: dict[str, dict[str, str]] = defaultdict(dict)  # lowered id → {id: path}
    for item in checked:
        if item.insight is not None:
            ids[item.insight.id.lower()].setdefault(item.insight.id, item.path)
    found = []
    for group in ids.values():
        for insight_id, path in group.items():
            if len(group) > 1 and (focus is None or path in focus):
                others = ", ".join(f"{o!r} ({p})" for o, p in group.items() if o != insight_id)
                found.append(
                    Finding(
                        path,
                        "id",
                        f"id {insight_id!r} differs only by case from {others}: one id on "
                        "a case-insensitive file system (macOS, Windows)",
                        "give one of them another id (and file name), or fold one into the "
                        "other (chitin merge)",
                        ERROR,
                        "duplicate-id",
                    )
                )
    return found
