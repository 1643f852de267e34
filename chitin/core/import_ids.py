"""Why an imported id is taken: by the store, or by an earlier item, maybe as the same
id in another case (one file name where the file system ignores case)."""

from __future__ import annotations

from collections.abc import Sequence

from chitin.index.cache import Problem
from chitin.model.interchange import Item


def id_taken(
    index: int,
    insight_id: str,
    earlier: int | None,
    file: Problem | None,
    held: str | None,
    items: Sequence[Item],
) -> str:
    where = f"the store has it{case_twin(insight_id, held or insight_id)}"
    if earlier is not None:
        twin = case_twin(insight_id, items[earlier].insight.id)
        where = f"items[{earlier}] uses it too{twin}"
    if file is not None and earlier is None:
        where = f"{file.path} holds it but cannot be read: {file.error}"
    return (
        f"items[{index}].id: id {insight_id} is taken ({where}); "
        "--merge skips insights that are already there"
    )


def case_twin(insight_id: str, other: str) -> str:
    if other == insight_id:
        return ""
    return f" as {other}, the same file name on macOS and Windows, which ignore case"
