"""Every command's help reads as plain text, and every group lists its commands.

Before: ``game replay --help`` showed its module docstring with Sphinx markup (``--json``,
:meth:`...`), ``calibrate`` had no description and ``game``'s help did not mention ``advise``.
"""

from __future__ import annotations

import argparse
import re

import pytest

from pi_reader.cli import build_parser

MARKUP = re.compile(r"``|:(mod|meth|class|func|attr):`")


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*path, name))


ALL = list(commands(build_parser()))


@pytest.mark.parametrize(("path", "parser"), ALL, ids=[" ".join(p) or "pi-reader" for p, _ in ALL])
def test_help_has_no_sphinx_markup(path, parser):
    assert not MARKUP.search(parser.format_help()), parser.format_help()


def test_calibrate_has_a_description():
    calibrate = dict(ALL)[("calibrate",)]
    assert calibrate.description and "six dice" in calibrate.description


def test_the_game_group_names_advise():
    top = build_parser().format_help()
    game_line = next(line for line in top.splitlines() if line.strip().startswith("game "))
    assert "advise" in game_line
