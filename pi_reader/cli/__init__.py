"""The ``pi-reader`` command line.

Each command group lives in its own module with a ``register(subparsers)`` function that adds its
sub-command(s) and sets ``func`` (a callable taking the parsed ``argparse.Namespace`` and returning
the exit status). Keeping one module per group lets the groups grow without touching each other.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from pi_reader import __version__

# Modules under pi_reader.cli that contribute sub-commands, in the order shown by --help.
COMMAND_MODULES: tuple[str, ...] = ("game", "config", "doctor", "vision", "run", "players")


def build_parser() -> argparse.ArgumentParser:
    """Build the top-level parser with every command group registered."""
    parser = argparse.ArgumentParser(
        prog="pi-reader",
        description="A table-side Qwixx appliance: reads the dice, keeps the game, says the sums.",
    )
    parser.add_argument("--version", action="version", version=f"pi-reader {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"pi_reader.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except BrokenPipeError:
        # The reader of our output left (``pi-reader read --json *.jpg | head``): stop quietly,
        # and keep Python from failing again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a command ended by SIGPIPE
