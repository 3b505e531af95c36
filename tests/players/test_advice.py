import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_reader.players.advice import NothingToAdvise, advise
from pi_reader.players.dice import SeededDice
from pi_reader.players.lookahead import Lookahead
from pi_reader.players.match import play_turn
from pi_reader.players.plans import turn_plans
from pi_reader.rules import Action, Game


def _position(seed: int, players: int, turns: int) -> Game:
    """A game after ``turns`` look-ahead turns, with the next roll made."""
    names = [f"P{i + 1}" for i in range(players)]
    game = Game(names)
    dice = SeededDice(seed)
    seats = dict.fromkeys(names, Lookahead())
    for _ in range(turns):
        if game.over:
            break
        play_turn(game, seats, dice.roll(game.dice_in_play))
    if not game.over:
        game.roll(dice.roll(game.dice_in_play))
    return game


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(1, 4), turns=st.integers(0, 25))
def test_advice_never_prefers_a_move_with_a_lower_value(seed, players, turns):
    game = _position(seed, players, turns)
    if game.over:
        return
    advice = advise(game)
    for item in advice:
        position = game
        if item.action is Action.COLOUR:
            # The colour choices follow the active player's best white choice.
            white = next((i for i in advice if i.player == item.player and i is not item), None)
            if white is not None and white.best.mark is not None:
                position = game.copy()
                position.play(white.best.mark)
        legal = {None, *position.legal_marks(item.player, item.action)}
        assert {option.mark for option in item.options} == legal  # every choice is rated
        values = [option.value for option in item.options]
        assert item.best.value == max(values)
        assert values == sorted(values, reverse=True)
        assert next(o for o in item.options if o.mark is None).gain == 0


def test_advice_agrees_with_the_strategy():
    game = _position(seed=3, players=3, turns=4)
    advice = advise(game)
    whites = {item.player: item.best.mark for item in advice if item.action is Action.WHITE}
    for player, mark in whites.items():
        assert Lookahead().choose(game, player, Action.WHITE) == mark


def test_colour_advice_follows_the_best_white_choice():
    game = Game(["Ann", "Bob"])
    game.roll({"white1": 1, "white2": 2, "red": 1, "yellow": 6, "green": 6, "blue": 6})
    advice = advise(game)
    white = next(i for i in advice if i.player == "Ann" and i.action is Action.WHITE)
    colour = next(i for i in advice if i.action is Action.COLOUR)
    assert colour.player == "Ann"
    plans = [p for p in turn_plans(game, "Ann", "white") if p.white == white.best.mark]
    assert {o.mark for o in colour.options} == {p.colour for p in plans}


def test_nothing_to_advise_before_the_roll_or_after_the_end():
    game = Game(["Ann", "Bob"])
    with pytest.raises(NothingToAdvise, match="must roll"):
        advise(game)
    solo = Game(["Ann"])
    for _ in range(4):
        solo.roll({"white1": 6, "white2": 6, "red": 6, "yellow": 6, "green": 6, "blue": 6})
        solo.end_turn()
    with pytest.raises(NothingToAdvise, match="over"):
        advise(solo)
