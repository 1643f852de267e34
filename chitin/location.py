"""Where the store is, by the one rule every front end shares (a leaf: the console asks
it before anything else loads).

As git finds a repository: the store named (``--store``, else ``$CHITIN_STORE``); else
the folder you stand in, or the nearest one above it, that is a store; else the default
store, ``${XDG_DATA_HOME:-~/.local/share}/chitin``. A folder is a store when it holds an
``insights/`` folder and ``.git`` (a git repository's top, or a worktree's), and is
chitin's (``chitins``): what ``chitin init`` makes, and what a clone of a store is.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from chitin.errors import StoreError, ValidationError

# How the store was found, for `chitin where` and the hooks' installers.
OPTION, ENVIRONMENT, FOLDER, DEFAULT = "option", "environment", "folder", "default"
MARKS = ("insights", ".git")  # what makes a folder a store (see is_store)
ARCHIVE = "archive"  # the store's other folder of insight files


class Located(NamedTuple):
    path: Path
    source: str  # OPTION, ENVIRONMENT, FOLDER or DEFAULT

    @property
    def named(self) -> bool:
        """Whether the store is other than the default one: a host that runs chitin
        elsewhere (another folder, another environment) must be told it."""
        return self.source != DEFAULT

    def reason(self) -> str:
        """Why this store, in a few words."""
        return {
            OPTION: "named by --store",
            ENVIRONMENT: "named by $CHITIN_STORE",
            FOLDER: "the store this folder is in (a git repository with chitin's "
            "insights/ or .gitattributes)",
            DEFAULT: "the default store (no --store, no $CHITIN_STORE, no store here)",
        }[self.source]

    def lines(self) -> list[str]:
        """The store, why it is the one, and what to do when there is none there: what
        `chitin where` prints, and `chitin --verbose` says on stderr first."""
        found = [str(self.path), f"  {self.reason()}"]
        if not is_store(self.path):
            found.append(f"  {_missing(self.path)}")
        return found


def _missing(path: Path) -> str:
    """What stands where the store should be, and what to do: init refuses a file."""
    if path.exists() and not path.is_dir():
        return "it is a file, not a folder: --store and $CHITIN_STORE name the store's folder"
    return "no store there yet: `chitin init` makes one"


def locate(option: str | None, env: Mapping[str, str], here: Path | None) -> Located:
    """The store, by the rule above; ``here`` is the current folder (None: not asked)."""
    if option:
        return Located(_absolute(option, env, "--store"), OPTION)
    if env.get("CHITIN_STORE", "").strip():  # empty or blank: unset, not a folder " "
        return Located(_absolute(env["CHITIN_STORE"], env, "CHITIN_STORE"), ENVIRONMENT)
    found = enclosing_store(here) if here is not None else None
    if found is not None:
        return Located(found, FOLDER)
    return Located(default_store(env), DEFAULT)


def store_path(option: str | None, env: Mapping[str, str]) -> Path:
    """Chitin(store=), else $CHITIN_STORE, else the default store: the library's rule,
    which does not look at the current folder (a program's folder is no option of its).
    ``env`` is all the environment it reads: one without HOME finds no default store."""
    if option or env.get("CHITIN_STORE", "").strip():
        return locate(option, env, None).path
    return default_store(env, LIBRARY_NO_HOME)


NO_HOME = "HOME is not set: name a store with --store or CHITIN_STORE"
LIBRARY_NO_HOME = (
    "env holds no HOME (nor XDG_DATA_HOME), so there is no default store: give "
    "Chitin(store=...), or env={**os.environ, ...} to add keys to the process's environment"
)


def default_store(env: Mapping[str, str], no_home: str = NO_HOME) -> Path:
    """${XDG_DATA_HOME:-~/.local/share}/chitin; with neither an absolute
    $XDG_DATA_HOME nor a home, none (a StoreError, ``no_home``, in the caller's words):
    "" made it /.local/share/chitin."""
    data_home = xdg_folder(env, "XDG_DATA_HOME")
    if data_home is None:
        home = home_folder(env)
        if home is None:
            raise StoreError(no_home)
        data_home = home / ".local" / "share"
    return data_home.absolute() / "chitin"


def home_folder(env: Mapping[str, str]) -> Path | None:
    """$HOME when it names an absolute folder; None when it is unset, empty or relative
    (no guess from the password database: a process without HOME names no home)."""
    value = env.get("HOME", "")
    return Path(value) if value and Path(value).is_absolute() else None


NO_HOME_FOLDER = "name the folder to install into with --dir"  # hooks install's default


def needed_home(env: Mapping[str, str], instead: str) -> Path:
    """$HOME (home_folder), else a refusal in one line, ``instead`` saying what
    supplies the path without it: ``Path.home()`` made an empty HOME ``/``, so a default
    under ``~`` (a credentials file, a queue) was written or read under ``/``."""
    home = home_folder(env)
    if home is None:
        raise ValidationError("home", f"HOME is not set: {instead}")
    return home


def expanded(path: Path, env: Mapping[str, str], what: str) -> Path:
    """``path`` with a leading ``~`` expanded: refused when there is no home, where
    ``~/x`` became ``/x``."""
    if path.parts and path.parts[0] == "~":
        return needed_home(env, f"{what} cannot start with ~; name it by its absolute path") / Path(
            *path.parts[1:]
        )
    return path.expanduser()


def xdg_folder(env: Mapping[str, str], name: str) -> Path | None:
    """The folder an XDG variable names (``~`` expanded), or None: unset, or relative,
    which the XDG rule says to ignore (else the folder would move with every ``cd``).
    Without a home, ``~`` is not expanded (``~/x`` is then relative)."""
    value = env.get(name)
    if not value:
        return None
    folder = Path(value).expanduser() if home_folder(env) is not None else Path(value)
    return folder if folder.is_absolute() else None


# The insight types (model/field_spec.py's TYPES, which a leaf does not import).
TYPE_FOLDERS = ("behavioral", "personality", "relational", "principle", "skill", "trigger")


def is_store(folder: Path) -> bool:
    """A folder holding insights/ and .git (a folder, or a worktree's file): a store,
    when it is named (a folder found by walking up must be chitin's too: ``chitins``).
    With no insights/, chitin's .gitattributes marks it: git keeps no empty folder, so
    the clone of a store that has no insight yet (or only archived ones) has none."""
    try:
        if not (folder / MARKS[1]).exists():
            return False
        return (folder / MARKS[0]).is_dir() or _merges_with_chitin(folder)
    except OSError:  # unreadable: not one we can use
        return False


def chitins(folder: Path) -> bool:
    """Whether a git repository with an insights/ folder is a store: one of the type
    folders chitin writes under insights/, or the .gitattributes that `chitin init`
    writes (its merge driver), as every store and clone of one has. insights/ is a
    common name: a project's own (a report, notes) is no store, and chitin must
    neither read it as one nor commit into it."""
    try:
        return any((folder / MARKS[0] / kind).is_dir() for kind in TYPE_FOLDERS) or (
            _merges_with_chitin(folder)
        )
    except OSError:  # unreadable
        return False


def _merges_with_chitin(folder: Path) -> bool:
    """Whether the folder's .gitattributes names chitin's merge driver, as `chitin
    init` writes it."""
    try:
        with open(folder / ".gitattributes", "rb") as attributes:
            return b"merge=chitin" in attributes.read(65536)
    except OSError:  # none, or unreadable
        return False


def enclosing_store(here: Path) -> Path | None:
    """``here`` or the nearest folder above it that is a store."""
    start = here.absolute()
    for folder in (start, *start.parents):
        if is_store(folder) and chitins(folder):
            return folder
    return None


def cannot_be_a_store(root: Path) -> str | None:
    """Why no store can be made at ``root`` (which holds none), in the words a write
    refuses it with: a file stands in its path, or it lies in another store's insights/,
    archive/, .chitin/ or .git/ (``inside_scanned``). None when nothing says so. A read
    shows an empty store there, and says this rather than "run `chitin init`", which
    would fail."""
    blocker = file_in_path(root)
    if blocker is not None:
        return f"cannot create the store at {root}: {blocker} is a file, not a folder"
    try:  # as named, and where its links lead, as a write checks
        named = dict.fromkeys((root.absolute(), root.resolve()))
    except (OSError, RuntimeError):  # a loop of links: a write says so
        return None
    return next(filter(None, (inside_scanned(root, path) for path in named)), None)


def inside_scanned(root: Path, named: Path) -> str | None:
    """Why ``root`` (as ``named``, absolute) cannot be a store: it is, or lies inside,
    another store's insights/ or archive/, whose every file is that store's insight, or
    its .chitin/ or .git/, which are that store's own (a slip for the store itself)."""
    outer = enclosing_store(named.parent)
    if outer is None:
        return None
    scanned = named.relative_to(outer).parts
    where = "is" if len(scanned) == 1 else "is inside"  # --store OUTER/insights: a slip
    if scanned[0] in KEPT:
        return (
            f"{root} {where} the {scanned[0]}/ folder of the store {outer}, which "
            f"{KEPT[scanned[0]]}; no store can be made there: to use that store, name it "
            f"with --store {outer}"
        )
    if scanned[0] not in (MARKS[0], ARCHIVE):
        return None
    return (
        f"{root} {where} the {scanned[0]}/ folder of the store {outer}, whose files are that "
        f"store's insights; make the store in a folder outside {outer / MARKS[0]} and "
        f"{outer / ARCHIVE}"
    )


# A store's own folders, never a store's place (what each holds, in a refusal's words).
KEPT = {
    ".chitin": "holds what chitin derives from that store's files",
    MARKS[1]: "holds that store's git repository",
}


def file_in_path(root: Path) -> Path | None:
    """The nearest of ``root``'s folders that is a file (or anything but a folder)."""
    return next((p for p in root.parents if p.exists() and not p.is_dir()), None)


def _absolute(path: str, env: Mapping[str, str], what: str) -> Path:
    """The named folder as an absolute path; one through ``..`` as the folder it leads
    to now (what the system makes of it, links included): kept as ``/here/../store``,
    it would stop naming the store once ``/here`` is gone (a hook's bound store)."""
    try:
        absolute = expanded(Path(path), env, what).absolute()
    except OSError:  # the current folder was removed under us: a relative path names none
        raise StoreError(
            f"cannot find the store {path!r}: the current folder no longer exists, and the "
            "path is relative to it; name the store by its absolute path"
        ) from None
    _nameable(absolute, what)
    return absolute.resolve() if ".." in absolute.parts else absolute


# Room for the longest path chitin makes inside a store: .chitin/conflicts/archive/
# <type>/<id>.md, an id being at most 128 characters (model/ids.py), and a temp suffix.
ROOM = 256


def _nameable(path: Path, what: str) -> None:
    """Refuse a path the system cannot name (a name over 255 bytes), or one that leaves
    no room for the files chitin keeps in it (a whole path over 4,096 bytes on Linux):
    every use of it, down to a look ahead for git, would fail with that error."""
    try:
        limit = os.pathconf("/", "PC_PATH_MAX")
    except (OSError, ValueError):  # no such setting here
        limit = 4096
    why = f"the files in it would pass {limit:,} bytes"
    too_long = len(os.fsencode(path)) + ROOM > limit
    try:
        os.lstat(path)
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG and not too_long:
            why, too_long = "a name in it is over 255 bytes", True
    if too_long:
        raise StoreError(
            f"the store path given by {what} is too long for this system ({why}): "
            "name a folder with a shorter path"
        )


def missing_note(store: Path) -> str:
    """A read's line where there is no store: why none can be there, in a write's words,
    when something says so (a file in its path, another store's insights/), else that
    `chitin init` makes one. The read goes on, on an empty store."""
    problem = cannot_be_a_store(store)
    if problem is None:
        return f"No store at {store} yet (run `chitin init`); showing an empty store."
    return f"{problem[:1].upper()}{problem[1:]}; showing an empty store."
