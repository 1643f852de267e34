"""Texts sent to the resident embedder before anyone needs their vectors.

A ``contribute`` knows the new insight's text from the start, but its door asks for
the text's vector only once the candidates are ranked, beside theirs, while git
stages and commits; the resident then embeds three texts where the commit leaves it
time for two, and the command waits for the rest. Sent ahead (``LocalProvider.
ask_ahead``, once the exact refusal has passed and where the door will want the
vector: search/door.py ``ask_ahead``), the resident embeds the text while the file
is written and staged, and the door's question holds only the candidates
(docs/design.md §9r). Where the door wants no vector (nothing shares the new text's
words and no vector is stored), nothing is sent: the resident's work beside the
commit would only slow it.

An answer sent ahead is read when a later question of the same provider wants one of
its texts (``take``); one that never comes is closed unread with the provider. A
question that failed leaves its texts unknown: the caller embeds them as it would
have, so nothing but the time depends on it.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the client is the provider's: naming the provider imports no socket
    from chitin.providers.resident import Asked

Rows = list["array[float]"]


class Ahead:
    """The questions a provider sent ahead, and the rows their answers gave."""

    def __init__(self) -> None:
        self._asked: list[tuple[tuple[str, ...], Asked]] = []
        self._rows: dict[str, array[float]] = {}

    def __bool__(self) -> bool:
        return bool(self._asked or self._rows)

    def send(self, asked: Asked | None, texts: Sequence[str]) -> None:
        """Keep ``asked``, the question just sent for ``texts`` (None: not sent)."""
        if asked is not None:
            self._asked.append((tuple(texts), asked))

    def covers(self, text: str) -> bool:
        """Whether ``text`` was sent ahead (answered or not yet)."""
        return text in self._rows or any(text in texts for texts, _ in self._asked)

    def take(
        self, texts: Sequence[str], read: Callable[[Asked], Rows | None]
    ) -> dict[str, array[float]]:
        """The rows of those of ``texts`` that an answer sent ahead gives, waiting for
        the answers that cover them (``read`` reads one: None if it failed)."""
        wanted = set(texts)
        waiting = []
        for asked_texts, asked in self._asked:
            if wanted.isdisjoint(asked_texts):
                waiting.append((asked_texts, asked))
                continue
            rows = read(asked)
            if rows is not None:
                self._rows.update(zip(asked_texts, rows, strict=True))
        self._asked = waiting
        return {text: self._rows[text] for text in wanted if text in self._rows}

    def close(self) -> None:
        """Let the answers nobody read go."""
        for _, asked in self._asked:
            asked.sock.close()
        self._asked = []
