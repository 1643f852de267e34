"""Make chitin/assets/lexicon-forms.txt: the stance lexicon's table, every inflected
form of its opposites to its pole, and each pole's opposites.

    python scripts/lexicon_forms.py

`chitin.retrieval.stance` reads the table from this file rather than making it on
every process's first stance read (docs/design.md §9e, seventh round). Run this after
changing chitin/retrieval/lexicon.py, chitin/assets/opposite-phrases.txt or how
stance.py and forms.py make forms: tests/test_stance_lexicon.py
fails until then.
"""

from __future__ import annotations

from chitin.resources import asset_path
from chitin.retrieval.stance import LEXICON_FORMS, Lexicon, build_lexicon

HEADER = (
    "# The stance lexicon's table, made by scripts/lexicon_forms.py from\n"
    "# chitin/retrieval/lexicon.py and chitin/assets/opposite-phrases.txt: do not edit.\n"
    "# 'pole form... ~ opposite...': the forms read as the pole, and its opposites (a\n"
    "# phrase is written with '_'); '^ first_second:n...': the longest phrase, in words,\n"
    "# that its first two words start. The ninth round's opposites are from WordNet 3.0\n"
    "# (Copyright 2006 by Princeton University. All rights reserved; used under its\n"
    "# licence, quoted in chitin/retrieval/lexicon.py).\n"
)


def format_lexicon(table: Lexicon) -> str:
    """The table's text, as ``stance.parse_lexicon`` reads it, in a stable order."""
    forms, opposite, starts = table
    grouped: dict[str, list[str]] = {}
    for form, pole in forms.items():
        grouped.setdefault(pole, []).append(form)
    lines = [" ".join(["^", *(f"{word}:{starts[word]}" for word in sorted(starts))])]
    lines += [
        " ".join([pole, *sorted(set(grouped[pole]) - {pole}), "~", *sorted(opposite[pole])])
        for pole in sorted(grouped)
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    path = asset_path(LEXICON_FORMS)
    path.write_text(HEADER + format_lexicon(build_lexicon()), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
