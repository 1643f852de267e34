"""Whether a later shell command is another try at a failed one (issue 26's recoveries).

A shell tool (Claude Code's Bash, OpenClaw's exec, a ``bashExecution``) runs any
program, so "the same tool worked later" says nothing: a ``curl`` refused with 401 is
not recovered by an unrelated ``aws s3 ls``. Two commands are tries at one thing when
they run a program in common (a segment's first word after environment assignments,
``sudo`` and the like; a ``cd …`` or ``mkdir …`` around the work does not count), or
share one of their main words (a path, a subcommand, a name: ``pytest tests/a.py`` and
``python -m pytest tests/a.py``); or the agent says, right after the failure, that its
next call is another way ("running it directly"). Pure.
"""

from __future__ import annotations

import re

SHELL_TOOLS = frozenset({"bash", "exec", "shell"})
# Words that only start another command or set up how it runs.
_PREFIXES = frozenset({"sudo", "env", "time", "nohup", "command", "exec", "nice", "doas"})
# Segments that only set up for the work: a cd, an export, a source, a mkdir.
_SETUP = frozenset({"cd", "pushd", "popd", "export", "source", ".", "set", "unset", "mkdir"})
# Programs that prepare, show or filter around the work ("mkdir -p out && …",
# "… | head"): two commands both using one are not tries at one thing for it.
_INCIDENTAL = frozenset(
    {"echo", "printf", "ls", "cat", "head", "tail", "grep", "sort", "uniq", "wc",
     "tee", "less", "xargs", "sleep", "true", "false", "test", "[", "rm", "touch", "which"}
)  # fmt: skip
# Words any two commands may share without being tries at one thing.
_GENERIC = _INCIDENTAL | {"run", "then", "null", "dev", "tmp"}
_SEGMENTS = re.compile(r"&&|\|\|?|;|\n")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@/:+-]*")
_VERSION = re.compile(r"[0-9.]+$")
# The agent saying its next call is another way to the same end ("No run target;
# running it directly."): that call is a try at the failed one whatever its words.
_ANOTHER_WAY = re.compile(
    r"\b(?:instead|directly|rather|fall(?:ing)? ?back|another (?:way|approach)|"
    r"different (?:way|approach)|differently|alternative(?:ly)?|work ?around|manually|"
    r"by hand)\b",
    re.IGNORECASE,
)


def says_another_way(text: str) -> bool:
    """Whether the agent's ``text`` says its next call is another way to the same end."""
    return bool(_ANOTHER_WAY.search(text))


def is_shell(tool: str) -> bool:
    """Whether ``tool`` (a call's tool name) runs shell commands."""
    return tool.casefold() in SHELL_TOOLS


def same_attempt(failed: str, worked: str) -> bool:
    """Whether the shell command ``worked`` is another try at ``failed``: the same
    program first ("cat a.txt", then "cat b.txt"), another program in common, or a
    main word in common."""
    first, second = _work(failed), _work(worked)
    if not first or not second:
        return False
    if _program(first[0]) == _program(second[0]):
        return True
    if _programs(first) & _programs(second):
        return True
    return bool(_main_words(first) & _main_words(second))


def _work(command: str) -> list[list[str]]:
    """The words of each segment of ``command`` (split at ``&&``, ``;``, pipes, lines)
    that does work (a ``cd`` or an ``export`` does not), without environment
    assignments and prefixes like ``sudo``."""
    found = []
    for segment in _SEGMENTS.split(command):
        words = [w.strip("\"'`()") for w in segment.split()]
        while words and (_ASSIGNMENT.match(words[0]) or words[0] in _PREFIXES):
            words.pop(0)
        if words and words[0] not in _SETUP:
            found.append(words)
    return found


def _programs(segments: list[list[str]]) -> set[str]:
    """The programs the segments run, by name without folder or version
    ("/usr/bin/python3.13" is "python"), the incidental ones left out."""
    names = {_program(words) for words in segments}
    return {name for name in names if name and name not in _INCIDENTAL}


def _program(words: list[str]) -> str:
    return _VERSION.sub("", words[0].rsplit("/", 1)[-1].casefold())


def _main_words(segments: list[list[str]]) -> set[str]:
    """The words that name what a command works on: not flags, redirections or short
    or generic words; a path counts by its last part too."""
    found: set[str] = set()
    for word in (word for words in segments for word in words):
        if word.startswith(("-", ">", "<", "2>", "&")):
            continue
        for part in _WORD.findall(word.casefold()):
            for name in {part, part.rstrip("/").rsplit("/", 1)[-1]}:
                if len(name) >= 3 and name not in _GENERIC:
                    found.add(name)
    return found
