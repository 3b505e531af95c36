"""Computer games from seeded dice: one game, a solo series, a tournament.

A turn is played as at the table: the dice are rolled; every player decides on the white action
from the same position (the white action is simultaneous), then the marks are made; the active
player decides on the colour action from the position after the white marks; the turn ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_reader.players.dice import SeededDice, game_seed
from pi_reader.players.stats import Interval, mean_interval, wilson_interval
from pi_reader.players.strategy import Strategy
from pi_reader.rules import Action, Game


def play_turn(game: Game, strategies: dict[str, Strategy], dice: dict[str, int]) -> None:
    """Play one turn of ``game`` with this roll; ``strategies`` maps each player to a strategy."""
    game.roll(dice)
    white_marks = [
        strategies[player].choose(game, player, Action.WHITE) for player in game.players
    ]
    for mark in white_marks:
        if mark is not None:
            game.play(mark)
    active = game.active
    colour_mark = strategies[active].choose(game, active, Action.COLOUR)
    if colour_mark is not None:
        game.play(colour_mark)
    if not game.over:
        game.end_turn()


def play_game(
    strategies: Sequence[Strategy], seed: int, names: Sequence[str] | None = None, first: int = 0
) -> Game:
    """Play a whole game from seeded dice; seat i plays ``strategies[i]``. Returns the game."""
    names = list(names) if names is not None else [f"P{i + 1}" for i in range(len(strategies))]
    game = Game(names, first=names[first % len(names)])
    seats = dict(zip(names, strategies, strict=True))
    dice = SeededDice(seed)
    while not game.over:
        play_turn(game, seats, dice.roll(game.dice_in_play))
    return game


@dataclass(frozen=True)
class SeatResult:
    """One seat's results over a series: mean score and win rate, each with its 95% interval."""

    seat: int
    strategy: str
    games: int
    score: Interval
    win_rate: Interval


@dataclass(frozen=True)
class TableResult:
    """One game of a series: each seat's final score and share of the win (1/k for a k-way tie)."""

    scores: tuple[int, ...]
    win_shares: tuple[float, ...]


def table_game(strategies: Sequence[Strategy], seed: int, number: int) -> TableResult:
    """Game ``number`` of the series seeded ``seed``; the first player rotates with the number so
    that no seat always starts (the first player has an edge in the race to lock)."""
    names = [f"P{i + 1}" for i in range(len(strategies))]
    game = play_game(strategies, game_seed(seed, number), names, first=number)
    winners = game.winners
    return TableResult(
        scores=tuple(game.score(name).total for name in names),
        win_shares=tuple(1 / len(winners) if name in winners else 0.0 for name in names),
    )


def summarize(strategies: Sequence[Strategy], results: Sequence[TableResult]) -> list[SeatResult]:
    """Per seat: mean score and win rate over the games, each with its 95% interval."""
    if not results:
        raise ValueError("a tournament needs at least one game")
    return [
        SeatResult(
            seat=seat + 1,
            strategy=strategy.name,
            games=len(results),
            score=mean_interval([float(result.scores[seat]) for result in results]),
            win_rate=wilson_interval(sum(r.win_shares[seat] for r in results), len(results)),
        )
        for seat, strategy in enumerate(strategies)
    ]


def tournament(strategies: Sequence[Strategy], games: int, seed: int = 0) -> list[SeatResult]:
    """Play ``games`` seeded games (see :func:`table_game`) and summarize them per seat."""
    if games <= 0:
        raise ValueError("a tournament needs at least one game")
    return summarize(strategies, [table_game(strategies, seed, n) for n in range(games)])


def solo_game(strategy: Strategy, seed: int, number: int) -> int:
    """The final score of game ``number`` of the solo series seeded ``seed``."""
    return play_game([strategy], game_seed(seed, number), ["Solo"]).score("Solo").total


def solo_scores(strategy: Strategy, games: int, seed: int = 0) -> list[int]:
    """Final scores of ``games`` seeded solo games (one player, always active)."""
    if games <= 0:
        raise ValueError("a solo series needs at least one game")
    return [solo_game(strategy, seed, number) for number in range(games)]
