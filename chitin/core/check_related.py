"""``chitin check``'s warnings across files: live insights that duplicate or contradict
one another, judged as ``contribute`` judges them (``chitin dedupe`` groups by the same
judgement)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from chitin.errors import ChitinError
from chitin.format import lint
from chitin.format.lint import Checked, Finding
from chitin.model.insight import Insight
from chitin.model.search_text import embedding_text
from chitin.render.text import counted
from chitin.retrieval.clusters import WORDS_ONLY, Cluster, Grouping, Meaning, group
from chitin.retrieval.judgement import exact_key, sentence_key, side_of
from chitin.search import aligned, semantic, stored
from chitin.search.door import strength
from chitin.store.config import CONFIG_FILE, parse_config


def related_findings(
    valid: Sequence[Checked],
    focus: Collection[str] | None,
    root: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[list[Finding], int, int]:
    """Warnings for live insights that duplicate or contradict one another, judged as
    ``contribute`` judges them: by meaning where the store's sidecar holds a current
    vector of both (read, never made: see ``judged_grouping``), else by words. One line
    per cluster of duplicates, on its strongest file, and one per conflicting pair of
    clusters. With ``focus``, only those touching a file of the focus, on that file.
    Also how many of those insights (of the focus) had no current vector, and how many
    pairs were judged without the alignment their verdict depends on."""

    items = [i for i in valid if i.insight is not None and not i.insight.archived]
    insights = [item.insight for item in items if item.insight is not None]
    paths = [item.path for item in items]
    lacking: list[int] = []
    if root is not None:
        found_groups, lacking = judged_grouping(root, insights, env)
    else:
        found_groups = aligned.Grouped(_group(insights, WORDS_ONLY), 0)
    by_words = sum(1 for k in lacking if focus is None or paths[k] in focus)
    grouping = found_groups.grouping
    found = []
    for cluster in grouping.clusters:
        here = _reported_on(cluster.members, paths, focus)
        if here is not None:
            found.append(_cluster_finding(cluster, here, insights, paths))
    # A clash is between the strongest members of two clusters: a file named is told
    # of its cluster's (fix100: only the strongest member's file was).
    members = {cluster.members[0]: cluster.members for cluster in grouping.clusters}
    for clash in grouping.clashes:
        ends = (clash.second, clash.first)
        here = _reported_on(ends, paths, focus)
        if here is None:
            inside = (_reported_on(members.get(end, ()), paths, focus) for end in ends)
            here = next((m for m in inside if m is not None), None)
        if here is not None:
            with_first = here == clash.first or here in members.get(clash.first, ())
            there = clash.said[1] if with_first else clash.said[0]  # whose words it quotes
            message = f"claim conflicts with {paths[there]} ({clash.reason})"
            fix = "reconcile them: reword one, give each its context or limitations, or archive one"
            found.append(Finding(paths[here], "claim", message, fix, lint.WARNING, "conflict"))
    return found, by_words, found_groups.without_alignment


def _group(insights: Sequence[Insight], meaning: Meaning) -> Grouping:
    return group([side_of(i) for i in insights], [strength(i) for i in insights], meaning)


def judged_grouping(
    root: Path, insights: Sequence[Insight], env: Mapping[str, str] | None
) -> tuple[aligned.Grouped, list[int]]:
    """The clusters and conflicts of ``insights`` of the store at ``root``, judged by
    the stored vectors of the provider chitin.yaml names (read, never made) and, with
    ``env``, the alignment where a verdict depends on it (chitin.search.aligned); and
    the positions of the insights without a current vector (judged by words; none
    where chitin.yaml turns embedding off: no `chitin embed` would make them)."""
    try:
        picked = semantic.choice(parse_config(root / CONFIG_FILE))
    except ChitinError:  # check reports a bad chitin.yaml itself
        picked = semantic.Choice("local", None)
    if picked.provider == semantic.NO_PROVIDER:
        return aligned.Grouped(_group(insights, WORDS_ONLY), 0), []
    meaning, lacking = stored.meaning(root / ".chitin", insights, picked.provider)
    source = None if env is None else aligned.token_source(picked.provider, picked.model, env)
    try:
        found = aligned.grouped(
            [side_of(i) for i in insights],
            [strength(i) for i in insights],
            meaning,
            lambda k: embedding_text(insights[k]),
            source,
        )
    finally:
        if source is not None:
            source.close()
    return found, lacking


def _reported_on(
    members: Sequence[int], paths: Sequence[str], focus: Collection[str] | None
) -> int | None:
    """The member whose file a finding goes on: the first, or the first in the focus
    (None if none is)."""
    if focus is None:
        return members[0]
    return next((m for m in members if paths[m] in focus), None)


_NAMED = 3  # other files a cluster's line names


def copies_of(one: Insight, others: Sequence[Insight]) -> tuple[int, int]:
    """How many of ``others`` are exact copies of ``one`` (the same insight), and how
    many say its very claim under another type; the rest of a cluster are near
    duplicates of it (a cluster may hold all three)."""
    side = side_of(one)
    exact, sentence = exact_key(side), sentence_key(side)
    same = [exact_key(side_of(other)) == exact for other in others]
    said = [
        sentence is not None and sentence_key(side_of(other)) == sentence and not copy
        for other, copy in zip(others, same, strict=True)
    ]
    return sum(same), sum(said)


def _cluster_finding(
    cluster: Cluster, here: int, insights: Sequence[Insight], paths: Sequence[str]
) -> Finding:
    others = [m for m in cluster.members if m != here]
    named = ", ".join(paths[m] for m in others[:_NAMED])
    more = f" and {len(others) - _NAMED} more" if len(others) > _NAMED else ""
    if cluster.claim:
        how = f"repeats {counted(len(others), 'other file')}"
    else:  # near duplicates, some of them perhaps exact copies
        copies = sum(copies_of(insights[here], [insights[m] for m in others]))
        near = counted(len(others) - copies, "other file")
        how = f"repeats {counted(copies, 'other file')} and nearly duplicates {near}"
        how = how if copies else f"nearly duplicates {near}"
    message = f"claim {how}: {named}{more}"
    keep = insights[cluster.members[0]].id
    if len(cluster.members) == 2 and insights[cluster.members[1]].id == keep:
        fix = f"delete the copy: both files hold the id {keep}"  # merge takes ids, not files
    elif len(cluster.members) == 2:
        other = insights[cluster.members[1]].id
        fix = f"fold one into the other: chitin merge {other} {keep}"
    else:
        fix = f"fold them into the strongest, {keep}: chitin dedupe --apply"
    return Finding(paths[here], "claim", message, fix, lint.WARNING, "near-duplicate")
