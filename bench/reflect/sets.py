"""The labelled sets of issue 26's bench, by name: which scenario module, and where its
sessions are kept.

- ``tuning``: bench/reflect/scenarios.py, whose sessions the rules were adjusted on;
  sessions in bench/reflect/sessions/.
- ``heldout``: bench/reflect/heldout_scenarios.py, written blind by another engineer
  and scored once; sessions in bench/reflect/sessions-heldout/.
- ``heldout2``: bench/reflect/heldout2_scenarios.py, a second set written blind (the first
  had been scored); sessions in bench/reflect/sessions-heldout2/.

A session folder holds one folder per way its sessions were made: ``claude-code`` and
``openclaw-real`` written by the real hosts, and ``openclaw`` (tuning set only) the
Claude Code sessions converted into OpenClaw's format by make.py, not written by
OpenClaw.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
MODULES = {
    "tuning": ("scenarios", "sessions"),
    "heldout": ("heldout_scenarios", "sessions-heldout"),
    "heldout2": ("heldout2_scenarios", "sessions-heldout2"),
}
# How each folder's sessions were made; the headline figures are on the real ones.
REAL = {"claude-code": "the real Claude Code", "openclaw-real": "the real OpenClaw"}
CONVERTED = {"openclaw": "converted from Claude Code's into OpenClaw's format"}


class ScenarioSet(NamedTuple):
    name: str
    scenarios: list[dict[str, Any]]
    secrets: tuple[str, ...]  # the module's SECRET* strings: never to be shown
    folder: Path


def load(name: str) -> ScenarioSet:
    module_name, folder = MODULES[name]
    module = importlib.import_module(module_name)
    secrets = tuple(
        value
        for key, value in sorted(vars(module).items())
        if key.startswith("SECRET") and isinstance(value, str)
    )
    return ScenarioSet(name, module.SCENARIOS, secrets, HERE / folder)


def add_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scenarios",
        choices=sorted(MODULES),
        default="tuning",
        help="which labelled set (default: tuning, the set the rules were adjusted on)",
    )
