"""Whether two triggers' responses have a word in common: what stands in for the
cosine of the two responses alone where no one has it (check and dedupe; the door
embeds the responses, and no sidecar stores them).

Two triggers of one situation embed close whatever each answers it with, so their
alignment needs only clear the veto (``judgement.ALIGN_VETO``) when their responses
are alike: by that cosine (``RESPONSE_FLOOR``), else by a shared word. Without it,
"When a deployment fails: roll back before anything else" joined "When a deploy
fails: page the on-call engineer" in check and dedupe (qa55)."""

from __future__ import annotations

from typing import Protocol

from chitin.retrieval.stance import stance


class Said(Protocol):
    @property
    def claim(self) -> str: ...


def share_words(first: Said, second: Said) -> bool:
    """Whether the two claims share a word, poles included ("roll back first" holds
    only the poles "roll back" and "first"): "Take a snapshot first" / "Snapshot the
    database before applying it" do, "roll back before anything else" / "page the
    on-call engineer" do not."""
    one, other = stance(first.claim), stance(second.claim)
    return bool((one.topic | one.poles) & (other.topic | other.poles))
