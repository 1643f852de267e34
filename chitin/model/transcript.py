"""One line of a session's transcript, as the turns a digest reads (issue 26).

Two hosts' formats, told apart line by line, so a file of either reads the same way:

- Claude Code's transcript (the JSONL file its hooks name as ``transcript_path``):
  ``{"type": "user" | "assistant", "message": {"role", "content"}, "timestamp", ...}``;
  content is a string or blocks (``text``, ``tool_use`` with ``name`` and ``input``,
  ``tool_result`` with ``is_error``); other line types (summaries, snapshots, system
  lines) are not messages, and neither are the user lines Claude Code writes itself:
  its notes (``isMeta``), the model's summary of a compacted conversation
  (``isCompactSummary``), a sub-agent's turns (``isSidechain``), and the echo of a
  ``!command`` the person ran in its shell (``<bash-input>``, ``<bash-stdout>``).
- OpenClaw's session file, version 4 (also the rows of its ``transcript_events``):
  ``{"type": "message", "timestamp", "message": {"role", "content"}}`` with roles
  ``user``, ``assistant`` (blocks ``text`` and ``toolCall`` with ``arguments``),
  ``toolResult`` (``isError``, or for its exec tool a non-zero ``details.exitCode``)
  and ``bashExecution`` (``command``, ``output``, ``exitCode``); the header
  (``type: "session"``) and other entries are not messages.

Pure: values in, values out.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from chitin.model.search_text import well_formed
from chitin.model.secrets import redacted

USER, AGENT, CALL, RESULT = "user", "agent", "call", "result"
# What one turn keeps of a message: enough to quote, never a whole file's output.
TURN_TEXT = 2_000
# How far past the cut the credential scan reads, so that one across the cut is seen
# whole (a JSON Web Token, a PEM key's lines) before any of it is kept.
SCAN_PAST = 2_000
# Claude Code wraps slash commands and its own notes in a user message; not the user's
# words.
_NOT_SAID = (
    "<command-",
    "<local-command",
    "<bash-",
    "Caveat:",
    "<system-reminder>",
    "[Request interrupted",
)
# Flags on a Claude Code line whose words are not the person's (nor this session's
# agent's): its own notes, a compacted conversation's summary, a sub-agent's turns.
# Claude Code's tool result when the user rejects a call and types why: the reason
# follows this, and it is the person's own words (a correction), not a tool's output.
REJECTION = "rejection"  # the tool of a USER turn that is a rejected call's reason
_REJECTED_BECAUSE = re.compile(
    r"^The user doesn't want to proceed with this tool use\..*?"
    r"To tell you how to proceed, the user said:\n(?P<reason>.+)",
    re.DOTALL,
)
# What Claude Code puts there itself when the user asked to clarify a question.
_CANNED_REASON = "The user wants to clarify these questions."
_NOT_THIS_SESSION = ("isMeta", "isCompactSummary", "isSidechain")


class Turn(NamedTuple):
    number: int  # the message's number in the transcript, from 1
    time: str | None  # as the transcript wrote it
    role: str  # USER, AGENT, CALL (a tool call) or RESULT (its result)
    text: str
    failed: bool = False  # a RESULT that reports an error
    tool: str = ""  # the tool's name, for CALL and RESULT


def turns_of(entry: Any, number: int) -> list[Turn]:
    """The turns of one parsed JSON line (empty when it is not a message), with each
    lone surrogate (a JSON escape of half a UTF-16 pair, as a host writes a message
    cut inside an emoji) made U+FFFD: as it was, no output could encode it."""
    return [_sound(turn) for turn in _turns_of(entry, number)]


def _sound(turn: Turn) -> Turn:
    text, time, tool = (well_formed(field) for field in (turn.text, turn.time or "", turn.tool))
    if (text, time, tool) == (turn.text, turn.time or "", turn.tool):
        return turn
    return turn._replace(text=text, time=time if turn.time is not None else None, tool=tool)


def _turns_of(entry: Any, number: int) -> list[Turn]:
    if not isinstance(entry, dict):
        return []
    message = entry.get("message")
    if not isinstance(message, dict):
        return []
    time = entry.get("timestamp")
    stamp = time if isinstance(time, str) else None
    kind = entry.get("type")
    if kind in ("user", "assistant"):
        if any(entry.get(flag) is True for flag in _NOT_THIS_SESSION):
            return []
        return _claude_turns(message, kind, number, stamp)
    if kind == "message":
        return _openclaw_turns(message, number, stamp)
    return []


def is_message(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("type") in ("user", "assistant", "message")


def _claude_turns(message: dict[str, Any], kind: str, number: int, time: str | None) -> list[Turn]:
    content = message.get("content")
    role = USER if kind == "user" else AGENT
    if isinstance(content, str):
        return _said(role, content, number, time)
    turns: list[Turn] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind_of = block.get("type")
        if kind_of == "text":
            turns += _said(role, str(block.get("text", "")), number, time)
        elif kind_of == "tool_use":
            name = str(block.get("name", ""))
            turns.append(Turn(number, time, CALL, _input_text(block.get("input")), tool=name))
        elif kind_of == "tool_result":
            failed = block.get("is_error") is True
            text = _clip(_content_text(block.get("content")))
            turns.append(Turn(number, time, RESULT, text, failed))
            turns += _rejection_reason(text, number, time)
    return turns


def _openclaw_turns(message: dict[str, Any], number: int, time: str | None) -> list[Turn]:
    role = message.get("role")
    content = message.get("content")
    if role in ("user", "assistant"):
        who = USER if role == "user" else AGENT
        if isinstance(content, str):
            return _said(who, content, number, time)
        turns: list[Turn] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                turns += _said(who, str(block.get("text", "")), number, time)
            elif block.get("type") == "toolCall":
                text = _input_text(block.get("arguments"))
                turns.append(Turn(number, time, CALL, text, tool=str(block.get("name", ""))))
        return turns
    if role == "toolResult":
        # OpenClaw's exec reports a command's non-zero exit in details, not isError.
        details = message.get("details")
        code = details.get("exitCode") if isinstance(details, dict) else None
        failed = message.get("isError") is True or (type(code) is int and code != 0)
        name = str(message.get("toolName", ""))
        return [Turn(number, time, RESULT, _clip(_content_text(content)), failed, name)]
    if role == "bashExecution":
        command = str(message.get("command", ""))
        code = message.get("exitCode")
        failed = isinstance(code, int) and code != 0
        output = _clip(str(message.get("output", "")))
        return [
            Turn(number, time, CALL, _clip(command), tool="bash"),
            Turn(number, time, RESULT, output, failed, "bash"),
        ]
    return []


def _rejection_reason(text: str, number: int, time: str | None) -> list[Turn]:
    """The reason the user typed when rejecting a tool call, as their own words (after
    the call's result, so no later call counts as its recovery)."""
    found = _REJECTED_BECAUSE.match(text)
    if found is None or found["reason"].lstrip().startswith(_CANNED_REASON):
        return []
    return [t._replace(tool=REJECTION) for t in _said(USER, found["reason"], number, time)]


def _said(role: str, text: str, number: int, time: str | None) -> list[Turn]:
    cleaned = text.strip()
    if not cleaned or (role == USER and cleaned.startswith(_NOT_SAID)):
        return []
    kept = _ends(cleaned) if role == USER else _clip(cleaned)
    return [Turn(number, time, role, kept)]


def _ends(text: str) -> str:
    """A person's message kept to about ``TURN_TEXT`` characters from both ends: one
    who pastes a log and then says what to do says it last. The end is masked as
    ``_clip`` masks the start, and starts at a word (never inside a mask or a token)."""
    if len(text) <= TURN_TEXT:
        return text
    half = TURN_TEXT // 2
    window, _ = redacted(text[-(half + SCAN_PAST) :])
    cut = len(window) - half
    if cut > 0 and not window[cut - 1].isspace():  # inside a word: from the next one
        space = re.search(r"\s", window[cut:])
        cut = cut + space.start() if space else len(window)
    for mask in re.finditer(r"\[redacted [^\]]*\]", window):
        if mask.start() < cut < mask.end():  # never half a mask
            cut = mask.end()
    return f"{_clip(text, half)}\n…\n{window[cut:].lstrip()}"


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [str(b.get("text", "")) for b in content if isinstance(b, dict) and "text" in b]
    return "\n".join(parts)


def _input_text(value: Any) -> str:
    """A tool call's input, as a person reads it: the command, else the JSON."""
    if isinstance(value, dict):
        for key in ("command", "cmd", "file_path", "path", "query", "pattern", "url"):
            if isinstance(value.get(key), str):
                return _clip(value[key])
        return _clip(json.dumps(value, ensure_ascii=False, sort_keys=True))
    return _clip("" if value is None else str(value))


def _clip(text: str, limit: int = TURN_TEXT) -> str:
    """``text`` kept to ``limit`` characters. A longer one is scanned for
    credentials before it is cut, and they are masked (``[redacted <kind>]``, as the
    digest's quotes are): cut first, a credential across the cut was no longer
    recognised, and its first part was quoted. A run without spaces across the cut
    and past what is scanned is left out whole, never kept in part."""
    if len(text) <= limit:
        return text
    end = limit + SCAN_PAST
    if len(text) > end and not any(c.isspace() for c in text[limit - 1 : end + 1]):
        head = text[:limit]
        end = len(head) - len(head.split()[-1])
    masked, _ = redacted(text[:end])
    cut = masked[:limit]
    opened = cut.rfind("[redacted ")
    if opened >= 0 and "]" not in cut[opened:]:  # never half a mask
        cut = cut[:opened]
    return cut
