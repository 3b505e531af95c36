"""Seating computer players (``--bot NAME``): the strategies come from :mod:`pi_reader.players`.

Sheet mode only needs something with ``choose(game, player, action) -> Mark | Pass``; which
strategy plays and how strong it is, is the players package's business.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from pi_reader.appliance.sheet import ComputerPlayer


class BotsUnavailable(RuntimeError):
    """Computer players were asked for but cannot be made (names the reason)."""


def seat_bots(names: Sequence[str]) -> dict[str, ComputerPlayer]:
    """A computer player for each name, with the players package's default strategy."""
    if not names:
        return {}
    try:
        players = importlib.import_module("pi_reader.players")
        make = players.computer_player
    except (ImportError, AttributeError):
        raise BotsUnavailable(
            "computer players are not available in this build (pi_reader.players has no "
            "computer_player yet); play without --bot"
        ) from None
    return {name: make(name) for name in names}
