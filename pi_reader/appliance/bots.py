"""Seating computer players (``--bot NAME`` or ``--bot NAME:STRATEGY``) from pi_reader.players.

Sheet mode asks a computer player ``choose(game, player, action)`` for a Mark or a Pass; the
players package's strategies answer a Mark or ``None`` (pass). Which strategy plays, and how well,
is that package's business; the default is its strongest.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from pi_reader.appliance.sheet import ComputerPlayer
from pi_reader.rules import Action, Game, Mark, Pass


class BotsUnavailable(RuntimeError):
    """Computer players were asked for but cannot be made (names the reason)."""


class StrategyPlayer:
    """A players-package strategy seated at the table."""

    def __init__(self, strategy: Any) -> None:
        self.strategy = strategy

    def choose(self, game: Game, player: str, action: Action) -> Mark | Pass:
        mark = self.strategy.choose(game, player, action)
        return mark if mark is not None else Pass(player, action)


def bot_name(spec: str) -> str:
    """The seat name of ``NAME`` or ``NAME:STRATEGY``."""
    return spec.partition(":")[0].strip()


def seat_bots(specs: Sequence[str]) -> dict[str, ComputerPlayer]:
    """A computer player per ``NAME[:STRATEGY]``; BotsUnavailable says why one cannot be made."""
    if not specs:
        return {}
    try:
        players = importlib.import_module("pi_reader.players")
        make = players.strategy
        default = players.STRONGEST
    except (ImportError, AttributeError):
        raise BotsUnavailable(
            "computer players are not available in this build (pi_reader.players has no "
            "strategies yet); play without --bot"
        ) from None
    bots: dict[str, ComputerPlayer] = {}
    for spec in specs:
        name, _, strategy_name = spec.partition(":")
        try:
            bots[name.strip()] = StrategyPlayer(make(strategy_name.strip() or default))
        except ValueError as error:
            raise BotsUnavailable(f"--bot {spec}: {error}") from None
    return bots
