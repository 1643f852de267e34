"""What a merge carries of the folded file's layout into the target's: the frontmatter
keys a person added that the target lacks, and the text of the body chitin does not
know (a hand-written ``## Notes``), so that a merge loses none of it."""

from __future__ import annotations

from typing import NamedTuple

from chitin.format.markdown import Layout


class Carried(NamedTuple):
    """The target's layout with the source's hand-added parts, and those parts."""

    layout: Layout
    keys: tuple[str, ...]
    texts: tuple[str, ...]

    def placed(self) -> list[tuple[str, str]]:
        """Each carried part with where it goes in the file, as a refusal names it."""
        return [("frontmatter", k) for k in self.keys] + [("body", t) for t in self.texts]


def folded_layout(target: Layout, source: Layout) -> Carried:
    """``target`` with the source's hand-added keys it lacks (by key name) and its
    body texts it does not hold already, appended after its own."""
    held = {_chunk_key(chunk) for chunk in target.extra_keys}
    keys = tuple(chunk for chunk in source.extra_keys if _chunk_key(chunk) not in held)
    # the source's parts in its order: its texts, and the places of the sections the
    # target's file had none of (the merge may give it their text), so that a section
    # the merge brings does not land below the hand-written notes that followed it
    added = tuple(part for part in source.body if part[0] != "claim" and part not in target.body)
    texts = tuple(value for kind, value in added if kind == "text")
    body = (*target.body, *added)
    return Carried(target._replace(extra_keys=target.extra_keys + keys, body=body), keys, texts)


def _chunk_key(chunk: str) -> str:
    """The key a hand-added chunk holds: its first line that is not a comment."""
    for line in chunk.split("\n"):
        if line.strip() and not line.lstrip().startswith("#"):
            key = line[1:] if line.startswith("?") else line.split(":", 1)[0]
            return key.strip().strip("'\"")
    return chunk
