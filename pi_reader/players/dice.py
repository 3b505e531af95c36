"""Seeded dice for computer games: the same seed gives the same rolls, whatever the players do.

Every turn draws all six dice, in a fixed order, and then drops the dice that have left the
game. So turn k shows the same faces under every strategy that reaches it, which makes two
strategies' solo results on one seed a paired comparison (common random numbers) and a whole
tournament reproducible from its seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from pi_reader.rules import DICE as DIE_NAMES  # white1, white2, red, yellow, green, blue


class SeededDice:
    """A reproducible stream of rolls in the game log's spelling."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def roll(self, dice_in_play: Iterable[str] = DIE_NAMES) -> dict[str, int]:
        """The next roll: ``{"white1": 3, ...}`` naming exactly the dice in play."""
        in_play = set(dice_in_play)
        unknown = in_play.difference(DIE_NAMES)
        if unknown:
            raise ValueError(f"unknown dice {sorted(unknown)} (dice are {', '.join(DIE_NAMES)})")
        faces = [self._random.randint(1, 6) for _ in DIE_NAMES]
        return {name: face for name, face in zip(DIE_NAMES, faces, strict=True) if name in in_play}


def game_seed(seed: int, game_number: int) -> int:
    """The seed of one game in a series, so any single game can be replayed on its own."""
    return seed * 1_000_003 + game_number
