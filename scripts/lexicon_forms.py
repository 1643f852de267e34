"""Make chitin/assets/lexicon-forms.txt: the stance lexicon's table, every inflected
form of its opposites to its pole, and each pole's opposites.

    python scripts/lexicon_forms.py

`chitin.retrieval.stance` reads the table from this file rather than making it on
every process's first stance read (docs/design.md §9e, seventh round). Run this after
changing chitin/retrieval/lexicon.py or how stance.py makes forms: tests/test_stance_lexicon.py
fails until then.
"""

from __future__ import annotations

from chitin.resources import asset_path
from chitin.retrieval.stance import LEXICON_FORMS, build_lexicon, format_lexicon

HEADER = (
    "# The stance lexicon's table, made by scripts/lexicon_forms.py from\n"
    "# chitin/retrieval/lexicon.py: do not edit. '= pole form...': the forms read as the\n"
    "# pole; '~ pole opposite...': its opposites. The ninth round's opposites are from\n"
    "# WordNet 3.0 (Copyright 2006 by Princeton University. All rights reserved; used\n"
    "# under its licence, quoted in chitin/retrieval/lexicon.py).\n"
)


def main() -> None:
    path = asset_path(LEXICON_FORMS)
    path.write_text(HEADER + format_lexicon(build_lexicon()), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
