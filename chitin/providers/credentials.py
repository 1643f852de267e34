"""The Carapace credentials file: chitin 1.4.5's path and keys, written safely.

``~/.config/carapace/credentials.json`` holds ``api_key``, ``agent_id``,
``display_name`` and ``registered_at``. The file is created with mode 0600 from its
first byte (a 0600 temporary file, hard-linked into place, so that it appears whole
and never replaces a file another process wrote meanwhile) in a 0700 folder. A file
that others can read is still used, with a warning each time.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import NamedTuple

from chitin.errors import ChitinError

FILE_MODE = 0o600
FOLDER_MODE = 0o700
MAX_BYTES = 64 * 1024


class CredentialsError(ChitinError):
    """The credentials file is missing, unreadable or not what it should be."""


class Credentials(NamedTuple):
    api_key: str
    agent_id: str | None = None
    display_name: str | None = None
    registered_at: str | None = None


def default_path(home: Path) -> Path:
    return home / ".config" / "carapace" / "credentials.json"


def load(path: Path) -> tuple[Credentials, str | None]:
    """The credentials at ``path``, and a warning if others may read the file."""
    data = _read(path)
    key = data.get("api_key")
    if not isinstance(key, str) or not key.strip():
        raise CredentialsError(
            f"Carapace credentials file {path} is missing api_key "
            '(expected: {"api_key": "sc_key_...", "agent_id": "..."})'
        )
    if not usable_key(key.strip()):
        raise CredentialsError(
            f"Carapace credentials file {path} holds an api_key that cannot be sent (a key "
            "is visible ASCII characters, no spaces or control characters): register "
            "again, or correct the file"
        )
    found = Credentials(
        key.strip(),
        *(_text(data.get(k)) for k in ("agent_id", "display_name", "registered_at")),
    )
    return found, exposure(path)


def usable_key(key: str) -> bool:
    """Whether ``key`` can travel in an Authorization header: visible ASCII, as a Bearer
    token is. httpx refuses anything else with a message that quotes the header (the
    key), or cannot encode it at all."""
    return bool(key) and all("!" <= character <= "~" for character in key)


def _read(path: Path) -> dict[str, object]:
    try:
        # Without O_NONBLOCK, opening a FIFO waits for a writer: forever.
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            _regular(path, os.fstat(handle.fileno()).st_mode)
            raw = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise CredentialsError(
            f"Carapace credentials not found at {path}: register first with "
            "chitin carapace-register --name NAME (or pass --carapace-config PATH)"
        ) from None
    except IsADirectoryError:
        raise CredentialsError(
            f"Carapace credentials path {path} is a folder, not a file"
        ) from None
    except OSError as error:
        raise CredentialsError(
            f"cannot read Carapace credentials {path}: {error.strerror or error}"
        ) from None
    if len(raw) > MAX_BYTES:
        raise CredentialsError(
            f"Carapace credentials file {path} is larger than {MAX_BYTES // 1024} KB, "
            "which no credentials file is; it was not read"
        )
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise CredentialsError(
            f"Carapace credentials file {path} is not a JSON object "
            '(expected: {"api_key": "sc_key_...", "agent_id": "..."})'
        )
    return data


def _regular(path: Path, mode: int) -> None:
    """Refuse what is not a regular file: a folder, or what reading would wait on or
    never finish (a FIFO, a device such as /dev/zero, a socket)."""
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(path)
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    raise CredentialsError(f"Carapace credentials path {path} is {kind}, not a regular file")


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def exposure(path: Path) -> str | None:
    """A warning when the file's group or others may read it (its folder aside)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if not mode & (stat.S_IRGRP | stat.S_IROTH | stat.S_IWGRP | stat.S_IWOTH):
        return None
    return (
        f"Carapace credentials {path} can be read by other users "
        f"(mode {stat.S_IMODE(mode):04o}): run chmod 600 {path}"
    )


def prepare(path: Path) -> None:
    """Before registering: refuse an existing file, and make sure the folder exists and
    can take the new one, so that a registration is not made only to be lost."""
    if path.exists() or path.is_symlink():
        raise CredentialsError(
            f"Credentials already exist at {path}: delete the file first if you want to re-register"
        )
    folder = path.parent
    _make_folder(folder)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CredentialsError(f"cannot save Carapace credentials in {folder}: permission denied")


def _make_folder(folder: Path) -> None:
    """Create the missing folders 0700. chitin 1.4.5 made carapace's own folder 0755: a
    folder named ``carapace`` that others may enter is closed again."""
    try:
        missing = not folder.exists()
        folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        if missing or (folder.name == "carapace" and folder.stat().st_mode & 0o077):
            with contextlib.suppress(PermissionError):
                folder.chmod(FOLDER_MODE)
    except OSError as error:
        raise CredentialsError(
            f"cannot create {folder} for the Carapace credentials: {error.strerror or error}"
        ) from None


def save(path: Path, credentials: Credentials) -> None:
    """Write the file, 0600 from the start; never over a file that appeared meanwhile."""
    data = {k: v for k, v in credentials._asdict().items() if v is not None}
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    _make_folder(path.parent)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=".credentials-", suffix=".tmp"
    )  # mkstemp creates it 0600
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        _link_into_place(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def _link_into_place(temporary: str, path: Path) -> None:
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise CredentialsError(f"Credentials already exist at {path}") from None
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
            raise
        # No hard links here (some network and FAT file systems): create it exclusively.
        _write_exclusive(path, Path(temporary).read_bytes())


def _write_exclusive(path: Path, content: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(content)
        handle.flush()
        os.fsync(handle.fileno())


def save_or_rescue(found: Credentials, path: Path, home: Path | None) -> None:
    """Save the key; if its file cannot be written, keep it in another 0600 file and
    say where, for the server shows a key once only."""
    try:
        save(path, found)
        return
    except (OSError, ChitinError) as error:
        cause = getattr(error, "strerror", None) or str(error)
    agent = found.agent_id or "the agent"
    said = f"registered {agent}, but its credentials could not be saved"
    raise rescued(found, path, home, said, f" ({cause})")


def rescued(
    found: Credentials, path: Path, home: Path | None, said: str, cause: str = ""
) -> CredentialsError:
    """The error that ``said`` what kept the credentials from ``path``, once they are in
    another 0600 file (or, if none could take them, that the key is lost)."""
    kept = rescue(found, home)
    if kept is None:
        return CredentialsError(
            f"{said} to {path}{cause}, nor anywhere else: that API key is lost; "
            "register again under another name"
        )
    return CredentialsError(
        f"{said} to {path}{cause}; they are in {kept} (mode 0600): move that file to "
        f"{path}, or pass --carapace-config {kept}"
    )


def rescue(credentials: Credentials, home: Path | None) -> Path | None:
    """Where the credentials went when their own path could not take them: a new
    0600 file in the home folder (if any), else in the temporary folder; None if
    neither could."""
    # Never named after the agent id: that is the server's text ("../" and all).
    name = "carapace-credentials"
    data = {k: v for k, v in credentials._asdict().items() if v is not None}
    for folder in (f for f in (home, Path(tempfile.gettempdir())) if f is not None):
        try:
            descriptor, where = tempfile.mkstemp(dir=folder, prefix=f".{name}-", suffix=".json")
        except OSError:
            continue
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(data, indent=2) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        except OSError:  # a full disk: try the next folder
            with contextlib.suppress(OSError):
                os.unlink(where)
            continue
        return Path(where)
    return None
