"""Advice for a roll on the table: the look-ahead strategy's best mark or pass, with its gain.

For the position with a roll pending, every player who may still mark in the white action gets
each of their choices (every legal white mark and the pass) with the look-ahead's rating, best
first; the active player's white choices are rated together with the best colour mark that can
follow them. The active player also gets the colour action's choices, given their best white
choice (or the white mark already made). The gain of a choice is its rating less the pass's, so a
positive gain says "better than letting it go" in expected points.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_reader.players.lookahead import Lookahead
from pi_reader.players.plans import Plan, turn_plans
from pi_reader.rules import Action, Game, Mark, Pass, Phase


class NothingToAdvise(ValueError):
    """The position has no decision waiting (no game, game over, before the roll, or every
    mark and pass of the roll already made)."""


@dataclass(frozen=True)
class Option:
    """One choice (a mark, or ``None`` for the pass) with its rating and its gain over passing."""

    mark: Mark | None
    value: float
    gain: float

    def describe(self) -> str:
        if self.mark is None:
            return "pass"
        return f"mark {self.mark.number} in {self.mark.colour.value}"


@dataclass(frozen=True)
class ActionAdvice:
    """One player's choices in one action, best first."""

    player: str
    action: Action
    options: tuple[Option, ...]

    @property
    def best(self) -> Option:
        return self.options[0]


def _options(values: dict[Mark | None, float]) -> tuple[Option, ...]:
    pass_value = values[None]
    ranked = sorted(values.items(), key=lambda item: -item[1])
    return tuple(Option(mark, value, value - pass_value) for mark, value in ranked)


def _rate(game: Game, player: str, action: Action) -> list[tuple[Plan, float]]:
    plans = turn_plans(game, player, action)
    return list(zip(plans, Lookahead().rate_all(game, player, plans), strict=True))


def advise(game: Game) -> list[ActionAdvice]:
    """The advice for every decision open in ``game``: white action first, then colour."""
    if game.over:
        raise NothingToAdvise(f"the game is over: {game.end_reason}")
    if game.phase is Phase.AWAITING_ROLL:
        raise NothingToAdvise(f"no roll is pending: {game.active} must roll first")
    advice = []
    active = game.active
    colour_plans: list[tuple[Plan, float]] | None = None
    for player in game.players:
        if not game.is_legal(Pass(player, Action.WHITE)):
            continue  # this player's white action is done
        rated = _rate(game, player, Action.WHITE)
        values: dict[Mark | None, float] = {}
        for plan, value in rated:
            values[plan.white] = max(value, values.get(plan.white, float("-inf")))
        white = ActionAdvice(player, Action.WHITE, _options(values))
        advice.append(white)
        if player == active:
            chosen = white.best.mark
            colour_plans = [(plan, value) for plan, value in rated if plan.white == chosen]
    if game.is_legal(Pass(active, Action.COLOUR)):
        if colour_plans is None:
            colour_plans = _rate(game, active, Action.COLOUR)
        values = {plan.colour: value for plan, value in colour_plans}
        advice.append(ActionAdvice(active, Action.COLOUR, _options(values)))
    if not advice:
        raise NothingToAdvise(
            "every decision on this roll is made; the turn ends when the next roll is read"
        )
    return advice


def _gain_words(option: Option) -> str:
    return f"expected gain {option.gain:+.1f}"


def render_advice(game: Game, advice: list[ActionAdvice]) -> str:
    """The advice for a person: one line per decision, the best choice and its expected gain.

    When the best choice is the pass, the line also names the best mark and what it would cost,
    so the table hears why letting the roll go is right.
    """
    roll = game.current_roll
    assert roll is not None  # advise() only answers with a roll pending
    dice = ", ".join(f"{die} {value}" for die, value in roll.to_dict().items())
    lines = [f"Roll: {dice} (white sum {roll.white_sum}); {game.active} is active"]
    for item in advice:
        best = item.best
        line = f"{item.action.value:>6} action, {item.player}: {best.describe()}"
        if best.mark is not None:
            line += f" ({_gain_words(best)} over passing)"
        else:
            marks = [option for option in item.options if option.mark is not None]
            if marks:
                line += f" (best mark: {marks[0].describe()}, {_gain_words(marks[0])})"
        lines.append(line)
    return "\n".join(lines)


def advice_to_json(advice: list[ActionAdvice]) -> list[dict[str, object]]:
    """The advice as JSON-ready objects: per decision the best choice and every option."""

    def option_json(option: Option) -> dict[str, object]:
        mark = option.mark
        return {
            "mark": None if mark is None else {"colour": mark.colour.value, "number": mark.number},
            "value": round(option.value, 3),
            "expected_gain": round(option.gain, 3),
        }

    return [
        {
            "player": item.player,
            "action": item.action.value,
            "best": option_json(item.best),
            "options": [option_json(option) for option in item.options],
        }
        for item in advice
    ]
