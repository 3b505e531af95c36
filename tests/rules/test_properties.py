"""Property test: thousands of random games played through legal-move generation, with the rules'
invariants checked after every event and the game's own log replayed at the end.

Each hypothesis example is a seed and a number of players; the seed drives the dice and every
choice (which legal move, the order in which players make their white marks, whether the active
player's colour mark comes early). The default suite plays a few thousand games; the ``slow``
variant many more.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_reader.rules import (
    COLOURS,
    DICE,
    LOCK_NUMBER,
    ROW_NUMBERS,
    Action,
    Game,
    IllegalMove,
    Mark,
    Pass,
    Phase,
    Roll,
    row_points,
)
from pi_reader.rules.log import EndTurn, NewGame, event_to_json, replay_lines

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve")
GAMES_PER_EXAMPLE = 10


@dataclass
class Checker:
    """Plays one random game and checks the invariants after every event."""

    game: Game
    rng: random.Random
    deep: bool  # also compare generated moves with a brute-force filter through is_legal
    events: list[object] = field(default_factory=list)
    marked_this_turn: set[str] = field(default_factory=set)
    state: dict[str, Any] = field(default_factory=dict)  # checked at the start of the turn
    turn_marks: list[Mark] = field(default_factory=list)
    ended_by_locks: bool = False

    def check_state(self) -> dict[str, Any]:
        """Check the whole state (as ``to_json`` shows it) and return it."""
        game = self.game
        state = game.to_json()
        totals = {}
        for player in state["players"]:
            assert 0 <= player["penalties"] <= 4
            total = -5 * player["penalties"]
            for colour in COLOURS:
                marked = player["marks"][colour.value]
                positions = [ROW_NUMBERS[colour].index(n) for n in marked]
                assert positions == sorted(set(positions)), "marks strictly left to right"
                locked_here = colour.value in player["locks"]
                assert locked_here == (LOCK_NUMBER[colour] in marked)
                if locked_here:
                    assert len(marked) >= 6  # five marks before the lock number
                marks = len(marked) + locked_here
                assert marks <= 12
                assert player["score"][colour.value] == row_points(marks)
                total += row_points(marks)
            assert player["score"]["total"] == total
            totals[player["name"]] = total
        penalties_end = any(p["penalties"] >= 4 for p in state["players"])
        assert state["over"] == (penalties_end or len(state["locked"]) >= 2), "ends when due"
        assert state["removed_dice"] == state["locked"]
        assert game.dice_in_play == DICE[:2] + tuple(
            c.value for c in COLOURS if c.value not in state["locked"]
        )
        best = max(totals.values())
        winners = [p for p, total in totals.items() if total == best] if state["over"] else []
        assert state["winners"] == winners
        return state

    def check_generation(self) -> None:
        game = self.game
        for player in game.players:
            for action in Action:
                generated = game.legal_marks(player, action)
                assert len(set(generated)) == len(generated)
                brute = [
                    mark
                    for colour in COLOURS
                    for number in ROW_NUMBERS[colour]
                    if game.is_legal(mark := Mark(player, action, colour, number))
                ]
                assert set(generated) == set(brute), (player, action)
                assert game.is_legal(Pass(player, action)) == (
                    Pass(player, action) in game.legal_moves(player)
                )

    def apply(self, event: Roll | Mark | EndTurn) -> None:
        """Apply one event and check what it may change; the whole state is checked per turn."""
        game = self.game
        locked_before = game.locked
        if isinstance(event, Roll):
            game.roll(event)
            assert (game.phase, game.current_roll) == (Phase.WHITE_ACTION, event)
        elif isinstance(event, Mark):
            row_before = game.row(event.player, event.colour).marked
            game.play(event)
            assert game.row(event.player, event.colour).marked == (*row_before, event.number)
            assert event.colour not in locked_before, "a locked row takes no more marks"
            self.turn_marks.append(event)
            assert game.over == (len(game.locked) >= 2), "a mark ends the game by locks only"
        else:
            self.ended_by_locks = len(locked_before) + len(game.pending_locks) >= 2
            game.end_turn()
        self.events.append(event_to_json(event))
        if self.deep and not game.over and self.rng.random() < 0.25:
            self.check_generation()

    def close_turn(self, active: str, ended: bool) -> None:
        """After a turn: the sheets changed by exactly the turn's marks, and the active player
        alone took a penalty if they marked nothing and the turn ended normally (``ended``: by
        end_turn, and not with the white action's second lock)."""
        before, after = self.state, self.check_state()
        self.state = after
        for old, new in zip(before["players"], after["players"], strict=True):
            for colour in COLOURS:
                added = [
                    m.number
                    for m in self.turn_marks
                    if (m.player, m.colour) == (new["name"], colour)
                ]
                assert new["marks"][colour.value] == old["marks"][colour.value] + added
            marked = any(m.player == active for m in self.turn_marks)
            due = new["name"] == active and ended and not marked and not self.ended_by_locks
            assert new["penalties"] == old["penalties"] + int(due), "penalty only for the active"
        self.turn_marks.clear()
        self.ended_by_locks = False

    def choose(self, player: str, action: Action) -> Mark | None:
        marks = self.game.legal_marks(player, action)
        pick = self.rng.randrange(len(marks) + 1)
        return marks[pick] if pick < len(marks) else None

    def play(self) -> Game:
        game, rng = self.game, self.rng
        self.events.append(event_to_json(NewGame(game.players)))
        self.state = self.check_state()
        while not game.over:
            in_play = game.dice_in_play
            self.apply(Roll.from_dict({die: rng.randint(1, 6) for die in in_play}))
            order = list(game.players)
            rng.shuffle(order)
            colour_at = rng.randrange(len(order) + 1)  # the colour mark may cut the white action
            for n, player in enumerate([*order, None]):
                if n == colour_at and (mark := self.choose(game.active, Action.COLOUR)):
                    self.apply(mark)
                    for late in order[n:]:
                        assert game.legal_marks(late, Action.WHITE) == []
                    break
                if player is not None and (mark := self.choose(player, Action.WHITE)):
                    self.apply(mark)
            active = game.active
            ended = not game.over
            if ended:
                self.apply(EndTurn())
            self.close_turn(active, ended)
        for refused in (lambda: game.roll(Roll(1, 1)), game.end_turn):
            with pytest.raises(IllegalMove, match="the game is over"):
                refused()
        assert game.phase is Phase.OVER
        return game


def play_and_replay(seed: int, players: int, deep: bool) -> None:
    rng = random.Random(seed)
    for n in range(GAMES_PER_EXAMPLE):
        checker = Checker(Game(NAMES[:players]), rng, deep=deep and n == 0)
        game = checker.play()
        if players < 2:
            continue  # the log holds 2 to 5 players; solo games are Python-only
        replayed = replay_lines(json.dumps(event) + "\n" for event in checker.events).game
        assert replayed is not None
        assert replayed.to_json() == game.to_json()
        assert (replayed.phase, replayed.active, replayed.end_reason) == (
            game.phase,
            game.active,
            game.end_reason,
        )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 5))
def test_random_games_keep_every_invariant_and_replay_from_their_log(
    seed: int, players: int
) -> None:
    play_and_replay(seed, players, deep=True)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 5))
def test_many_more_random_games_keep_every_invariant(seed: int, players: int) -> None:
    play_and_replay(seed, players, deep=True)
