"""One exception family. The CLI turns these into a one-line message and an exit code."""

from __future__ import annotations


class ChitinError(Exception):
    """Base class: the message tells the user what went wrong and what to do."""

    exit_code = 1
    prefix = "Error"  # how the command line introduces the message
    # What `promote --force` lifted, when it failed once the text could have been sent:
    # the user learns what left with it even though the promotion did not succeed.
    overridden: tuple[str, ...] = ()


class ValidationError(ChitinError):
    """A value given by the user (or found in a file) is not allowed.

    ``field`` names the offending field for programs; the message names it for people.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class InvisibleCharacter(ValidationError):
    """A text holds a character that shows nothing yet hides or reorders what a reader
    sees (model/insight.py); ``fix`` says which to delete, where."""

    def __init__(self, field: str, message: str, fix: str) -> None:
        super().__init__(field, message)
        self.fix = fix


class NotFoundError(ChitinError):
    """No insight has the given id or id prefix."""


class AmbiguousIdError(ChitinError):
    """An id prefix matches more than one insight."""

    def __init__(self, prefix: str, matches: list[str]) -> None:
        shown = ", ".join(matches[:10]) + (", …" if len(matches) > 10 else "")
        super().__init__(f"Ambiguous ID prefix: {prefix} matches {len(matches)} insights: {shown}")
        self.matches = matches


class DuplicateError(ChitinError):
    """The insight is already stored: ``existing`` is the id of the stored one."""

    def __init__(self, existing: str, message: str) -> None:
        super().__init__(message)
        self.existing = existing


class StateError(ChitinError):
    """The operation does not fit the insight's current state (e.g. archived)."""


class StoreError(ChitinError):
    """The store on disk cannot be used as asked (not a directory, lock timeout, …)."""


class GitError(StoreError):
    """A git command failed; the message carries git's own explanation."""
