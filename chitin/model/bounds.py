"""The ranges of the numbers a caller asks with (how many, how large, how far back),
shared by every front end (the CLI's flags, the MCP server's arguments) so that all
bound them alike. A number past these is a typo or an attack, never a need.

And the one size limit of an insight file, which the readers enforce and every writer
checks before writing (a file over it would be committed, then never read again)."""

from __future__ import annotations

from collections.abc import Mapping

from chitin.errors import ValidationError

# Insights or commits to show or consider: more than any store holds.
MAX_COUNT = 1_000_000
# Tokens a rendered personality may take (about 4 MB of text).
MAX_BUDGET = 1_000_000
# Days back in the history: about 270 years.
MAX_DAYS = 100_000
# Tags of one filter (any of them matches): each is a term of one SQL expression, which
# SQLite refuses past a depth of 1,000.
MAX_FILTER_TAGS = 500

# Characters of an agent's name ($CHITIN_AGENT): it is written into every commit's
# author, e-mail and trailer, and into evidence lines.
MAX_AGENT = 100
# Characters of a reflection marker's session key or id: printed in every digest and
# ready command. Hosts' keys and ids are far shorter (a UUID is 36; OpenClaw's keys,
# agent:<agent>:<channel>:<peer>, well under 200).
MAX_SESSION_NAME = 1_000

# No insight file is larger (the largest chitin writes are a few KB, and 10,000
# reinforcements' evidence lines add ~600 KB). A larger file is reported, not read;
# so none is written.
MAX_INSIGHT_BYTES = 1 << 20


def refuse_oversized(size: int, parts: Mapping[str, int]) -> None:
    """Refuse a file of ``size`` bytes over MAX_INSIGHT_BYTES, naming the largest of
    ``parts`` (the bytes each field takes), which is what to shorten."""
    if size <= MAX_INSIGHT_BYTES:
        return
    field, largest = max(parts.items(), key=lambda item: item[1], default=("file", size))
    raise ValidationError(
        field,
        f"{field} is {largest:,} bytes, and an insight file may hold at most "
        f"{MAX_INSIGHT_BYTES:,} bytes in all (this one would be {size:,}): shorten the {field}",
    )
