"""Seating computer players: the adapter over the players package's strategies."""

from __future__ import annotations

import types

import pytest

from pi_reader.appliance import bots as bots_module
from pi_reader.appliance.bots import BotsUnavailable, StrategyPlayer, bot_name, seat_bots
from pi_reader.rules import Action, Game, Pass


class Passive:
    """A stand-in strategy that always passes (None), as the players package spells a pass."""

    name = "passive"

    def choose(self, game: Game, player: str, action: Action) -> None:
        return None


def test_a_strategy_that_passes_becomes_a_pass() -> None:
    game = Game(["ann", "robo"])
    game.roll({"white1": 1, "white2": 2, "red": 3, "yellow": 4, "green": 5, "blue": 6})
    assert StrategyPlayer(Passive()).choose(game, "robo", Action.WHITE) == Pass(
        "robo", Action.WHITE
    )


def test_names_and_strategies_from_the_option() -> None:
    assert bot_name("robo:cautious") == "robo"
    assert seat_bots([]) == {}


def test_strategies_come_from_the_players_package(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def strategy(name: str) -> Passive:
        asked.append(name)
        if name == "nonsense":
            raise ValueError("unknown strategy 'nonsense'")
        return Passive()

    package = types.SimpleNamespace(strategy=strategy, STRONGEST="lookahead")
    monkeypatch.setattr(bots_module.importlib, "import_module", lambda name: package)
    seated = seat_bots(["robo", "max:cautious"])
    assert sorted(seated) == ["max", "robo"] and asked == ["lookahead", "cautious"]
    with pytest.raises(BotsUnavailable, match="--bot x:nonsense: unknown strategy"):
        seat_bots(["x:nonsense"])


def test_without_the_players_package_the_reason_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        bots_module.importlib, "import_module", lambda name: types.SimpleNamespace()
    )
    with pytest.raises(BotsUnavailable, match="play without --bot"):
        seat_bots(["robo"])
