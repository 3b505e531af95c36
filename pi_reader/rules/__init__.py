"""The Qwixx rules engine: sheets, rows, turns, legality, scoring and the game log.

Pure Python with no hardware and no I/O beyond reading and writing the game log. The public API::

    from pi_reader.rules import Game, Roll, Mark, Pass, Colour, Action, IllegalMove, GameLog

    game = Game(["Ann", "Bob"], first="Ann")
    game.roll({"white1": 3, "white2": 4, "red": 2, "yellow": 5, "green": 6, "blue": 1})
    game.legal_marks("Bob", Action.WHITE)      # [Mark('Bob', white, red, 7), ...]
    game.mark("Bob", "white", "red", 7)        # or game.play(Mark(...)); IllegalMove if not legal
    game.end_turn()                            # penalty if the active player marked nothing
    game.to_json()                             # the ``pi-reader game replay --json`` state
    game.copy()                                # cheap clone for searching ahead

    with GameLog.create("game.jsonl", ["Ann", "Bob"]) as log:  # checked, appended, fsynced
        log.roll(...); log.mark("Bob", "white", "red", 7); log.end_turn(); log.game
    log = GameLog.resume("game.jsonl")         # after a restart; a torn last line is cut
    replay("game.jsonl").game                  # strict: GameLogError(line, reason, game)

:class:`Game` is the one place that decides legality (see :mod:`pi_reader.rules.game`); the game
log (:mod:`pi_reader.rules.log`) and every player ask it.
"""

from pi_reader.rules.game import Game, Phase
from pi_reader.rules.log import GameLog, GameLogError, Replay, replay, replay_lines
from pi_reader.rules.sheet import Row, Score, Sheet, row_points
from pi_reader.rules.types import (
    COLOURS,
    DICE,
    LOCK_NUMBER,
    ROW_NUMBERS,
    Action,
    Colour,
    IllegalMove,
    InvalidRoll,
    Mark,
    Move,
    Pass,
    Roll,
    RulesError,
)

__all__ = [
    "COLOURS",
    "DICE",
    "LOCK_NUMBER",
    "ROW_NUMBERS",
    "Action",
    "Colour",
    "Game",
    "GameLog",
    "GameLogError",
    "IllegalMove",
    "InvalidRoll",
    "Mark",
    "Move",
    "Pass",
    "Phase",
    "Replay",
    "Roll",
    "Row",
    "RulesError",
    "Score",
    "Sheet",
    "replay",
    "replay_lines",
    "row_points",
]
