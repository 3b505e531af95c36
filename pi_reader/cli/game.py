"""``pi-reader game replay LOG.jsonl [--json]``: replay a game log and show the state.

With ``--json`` it prints one JSON object: the state (``players``, ``locked``, ``removed_dice``,
``active``, ``over``, ``winners``; see :meth:`pi_reader.rules.Game.to_json`). Exit status 0.

At the first malformed or illegal line it exits with status 2 and prints the same object for the
state before that line with an ``"error": {"line": N, "reason": "..."}`` key in front (N counts
from 1; nothing of the file after that line is applied). When no game had started before the
bad line (line 1), the state is that of no game: no players, nothing locked, ``active`` null.

Without ``--json`` the same goes to a person: the sheets drawn as rows, then the error (if any) on
standard error. A file that cannot be read at all exits with status 1 and says why on standard
error. The replay is strict: a torn last line is an error here (the appliance, resuming, tolerates
it).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pi_reader.players.advice import NothingToAdvise, advice_to_json, advise, render_advice
from pi_reader.rules.log import GameLogError, Replay, replay
from pi_reader.rules.render import render_game

EXIT_BAD_LOG = 2
EXIT_UNREADABLE = 1

# The state printed when a log breaks before any game started.
NO_GAME: dict[str, Any] = {
    "players": [],
    "locked": [],
    "removed_dice": [],
    "active": None,
    "over": False,
    "winners": [],
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    group = subparsers.add_parser(
        "game", help="game logs: replay a game and show it, or advise on its pending roll"
    )
    commands = group.add_subparsers(dest="game_command", metavar="COMMAND", required=True)
    replay_parser = commands.add_parser(
        "replay",
        help="replay a game log (JSON Lines) and print the resulting state",
        description="Replay a game log and print the state after it: the sheets drawn for a "
        "person, or with --json one object (players with their marks, locks, penalties and "
        "scores; locked rows, removed dice, the active player, whether the game is over and "
        "who won). At the first bad line the state before it is printed and the exit status "
        "is 2 (with --json the object has an error with the line and the reason); a file "
        "that cannot be read exits with 1.",
    )
    replay_parser.add_argument("log", metavar="LOG.jsonl", help="the game log to replay")
    replay_parser.add_argument(
        "--json", action="store_true", help="print the state as one JSON object"
    )
    replay_parser.set_defaults(func=run_replay)
    advise_parser = commands.add_parser(
        "advise",
        help="the look-ahead's best mark or pass, with its expected gain, for the pending roll",
        description="For the roll at the end of a game log: every player still to decide the "
        "white action, and the active player's colour action, get the look-ahead player's best "
        "mark or pass with its expected gain over passing (--json: every option with its "
        "value). Exit status 2 for a bad log or when nothing is left to decide (with --json "
        "an object with an error holding the line, or null, and the reason), 1 for a file "
        "that cannot be read.",
    )
    advise_parser.add_argument("log", metavar="LOG.jsonl", help="a game log ending with a roll")
    advise_parser.add_argument("--json", action="store_true", help="print the advice as JSON")
    advise_parser.set_defaults(func=run_advise)


def read_log(args: argparse.Namespace, command: str) -> Replay | None:
    """The strict replay of ``args.log``; None, said on standard error, when the file cannot be
    read. A bad line (GameLogError) is left to the command, which shows it in its own way."""
    try:
        return replay(args.log)
    except OSError as error:
        reason = f"cannot read {args.log}: {error.strerror}"
        print(f"pi-reader game {command}: {reason}", file=sys.stderr)
        return None


def run_replay(args: argparse.Namespace) -> int:
    try:
        result = read_log(args, "replay")
    except GameLogError as error:
        state = error.game.to_json() if error.game is not None else dict(NO_GAME)
        if args.json:
            print(json.dumps({"error": {"line": error.line, "reason": error.reason}, **state}))
        else:
            if error.game is not None:
                print(render_game(error.game))
            print(
                f"{args.log}, line {error.line}: {error.reason}\n"
                f"(the state shown is the state before line {error.line})",
                file=sys.stderr,
            )
        return EXIT_BAD_LOG
    if result is None:
        return EXIT_UNREADABLE
    assert result.game is not None  # a strict replay without error holds a game
    if args.json:
        print(json.dumps(result.game.to_json()))
    else:
        print(render_game(result.game))
    return 0


def run_advise(args: argparse.Namespace) -> int:
    """Advice for the roll pending at the end of the log (see pi_reader.players.advice)."""
    try:
        result = read_log(args, "advise")
    except GameLogError as error:
        return _advise_error(args, error.line, error.reason)
    if result is None:
        return EXIT_UNREADABLE
    game = result.game
    assert game is not None  # a strict replay without error holds a game
    try:
        advice = advise(game)
    except NothingToAdvise as error:
        return _advise_error(args, None, f"nothing to advise: {error}")
    print(json.dumps(advice_to_json(advice)) if args.json else render_advice(game, advice))
    return 0


def _advise_error(args: argparse.Namespace, line: int | None, reason: str) -> int:
    """A log advise cannot answer: the error object with --json (as game replay --json
    gives), else a sentence on standard error; exit status 2 either way."""
    if args.json:
        print(json.dumps({"error": {"line": line, "reason": reason}}))
    else:
        where = f"{args.log}, line {line}: " if line is not None else f"{args.log}: "
        print(f"pi-reader game advise: {where}{reason}", file=sys.stderr)
    return EXIT_BAD_LOG
