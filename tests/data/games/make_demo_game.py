"""Write ``demo.jsonl``: a realistic 3-player game, played to its end by a cautious policy.

The bundled demo log was made with ``python tests/data/games/make_demo_game.py``; the dice come
from a fixed seed, so running it again writes the same file. Every event goes through
``GameLog``, so the file replays legally by construction (the tests replay it too).

The policy: mark the white sum where it skips at most one number; as the active player, add the
colour mark that skips least if it skips at most two (or three when nothing else was marked this
turn); lock whenever allowed. The search over seeds keeps the first game that ends by two locks.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from pi_reader.rules import ROW_NUMBERS, Action, Game, Mark, Roll
from pi_reader.rules.log import GameLog

PLAYERS = ("Ann", "Bob", "Cid")
OUT = Path(__file__).with_name("demo.jsonl")


def skipped(game: Game, mark: Mark) -> int:
    """How many numbers the mark would cross out (a lock counts as skipping nothing)."""
    numbers = ROW_NUMBERS[mark.colour]
    marked = game.row(mark.player, mark.colour).marked
    start = numbers.index(marked[-1]) + 1 if marked else 0
    position = numbers.index(mark.number)
    return 0 if position == len(numbers) - 1 else position - start


def best(game: Game, marks: list[Mark], limit: int) -> Mark | None:
    choices = [m for m in marks if skipped(game, m) <= limit]
    return min(choices, key=lambda m: skipped(game, m), default=None)


def play(log: GameLog, rng: random.Random) -> None:
    game = log.game
    while not game.over:
        in_play = game.dice_in_play
        values = {die: rng.randint(1, 6) for die in in_play}
        log.roll(Roll.from_dict(values))
        for player in PLAYERS:
            choice = best(game, game.legal_marks(player, Action.WHITE), 1)
            if choice is not None:
                log.play(choice)
        active = game.active
        limit = 2 if game.has_marked_white(active) else 3
        choice = best(game, game.legal_marks(active, Action.COLOUR), limit)
        if choice is not None:
            log.play(choice)
        if not game.over:
            log.end_turn()


def main() -> int:
    for seed in range(1000):
        OUT.unlink(missing_ok=True)
        with GameLog.create(OUT, PLAYERS) as log:
            play(log, random.Random(seed))
            if "locked" in (log.game.end_reason or ""):
                print(f"seed {seed}: {log.game.end_reason}; winners {log.game.winners}")
                return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
