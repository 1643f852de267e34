"""Make chitin/assets/synonym-forms.txt: the synonym lexicon's tables, every word and
inflected form of chitin/assets/synonyms.txt to its group's head, and every phrase.

    python scripts/synonym_forms.py

`chitin.retrieval.synonyms` reads the tables from this file rather than making them on
a process's first lookup. Run this after changing chitin/assets/synonyms.txt or how the
forms are made: tests/test_synonyms.py fails until then.
"""

from __future__ import annotations

from chitin.resources import asset_path
from chitin.retrieval.synonyms import SYNONYM_FORMS, format_tables, groups, make_tables

HEADER = (
    "# The synonym lexicon's tables, made by scripts/synonym_forms.py from\n"
    "# chitin/assets/synonyms.txt: do not edit. '= head|word...': the words and forms read\n"
    "# as the head; '+ head|phrase|...': the phrases read as the head.\n"
)


def main() -> None:
    path = asset_path(SYNONYM_FORMS)
    path.write_text(HEADER + format_tables(make_tables(groups())), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
