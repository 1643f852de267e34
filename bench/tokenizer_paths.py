"""Which tokenizer real texts take: the plain-Python one (ASCII, and the em dash) or the
``tokenizers`` library (everything else). See chitin/providers/wordpiece.py.

    python bench/tokenizer_paths.py

Counts, per source: the queries of the three evaluation sets (bench/eval/*.yaml), the
session-start queries the Claude Code hook makes for the recorded sessions
(bench/reflect/sessions, from each one's first event with a folder and a source), the
first prompt of each recorded session (a query an agent asks mid-session), and the
embedded texts of the evaluation sets' insights (what contribute's check and a small
background embedding tokenize).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

import yaml

from chitin.core.claude_code import coding_session_query
from chitin.providers.wordpiece import answers

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "eval"))
import run as evaluation  # noqa: E402

from chitin.model.insight import embedding_texts  # noqa: E402

SETS = ("dataset.yaml", "agent-store.yaml", "heldout.yaml")


def eval_queries() -> list[str]:
    texts: list[str] = []
    for name in SETS:
        data = yaml.safe_load((HERE / "eval" / name).read_text(encoding="utf-8"))
        texts += [str(q["query"]) for q in data["queries"]]
    return texts


def eval_documents() -> list[str]:
    texts: list[str] = []
    for name in SETS:
        insights, _ = evaluation.load(HERE / "eval" / name)
        texts += [t for i in insights for t in embedding_texts(i)]
    return texts


def _events(path: Path) -> Iterable[dict[str, object]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            yield event


def session_texts() -> tuple[list[str], list[str]]:
    """(session-start queries, first prompts) of the recorded sessions."""
    starts: list[str] = []
    prompts: list[str] = []
    for path in sorted((HERE / "reflect" / "sessions").rglob("*.jsonl")):
        events = list(_events(path))
        cwd = next((e["cwd"] for e in events if isinstance(e.get("cwd"), str)), None)
        starts.append(coding_session_query({"cwd": cwd, "source": "startup"}))
        prompt = next((_text(e) for e in events if e.get("type") == "user" and _text(e)), "")
        if prompt:
            prompts.append(prompt)
    return starts, prompts


def _text(event: dict[str, object]) -> str:
    message = event.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def main() -> None:
    starts, prompts = session_texts()
    sources = {
        "evaluation queries": eval_queries(),
        "session-start queries": starts,
        "first prompts of sessions": prompts,
        "embedded insight texts": eval_documents(),
    }
    print("| texts | count | plain (ASCII, em dash) | library |\n|---|---:|---:|---:|")
    for name, texts in sources.items():
        plain = sum(1 for t in texts if answers(t))
        share = plain / len(texts) if texts else 0.0
        print(f"| {name} | {len(texts)} | {plain} ({share:.1%}) | {len(texts) - plain} |")
    for name, texts in sources.items():
        others = sorted({c for t in texts if not answers(t) for c in t if ord(c) > 127})
        if others:
            print(f"{name}, characters beyond: {' '.join(others[:40])}")


if __name__ == "__main__":
    main()
