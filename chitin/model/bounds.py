"""The ranges of the numbers a caller asks with (how many, how large, how far back),
shared by every front end (the CLI's flags, the MCP server's arguments) so that all
bound them alike. A number past these is a typo or an attack, never a need."""

from __future__ import annotations

# Insights or commits to show or consider: more than any store holds.
MAX_COUNT = 1_000_000
# Tokens a rendered personality may take (about 4 MB of text).
MAX_BUDGET = 1_000_000
# Days back in the history: about 270 years.
MAX_DAYS = 100_000
