"""Who sits at the table: the one check of the players, computer players and mode.

``pi-reader run`` (names from its options or from the config), ``pi-reader config check`` (the
config's ``[game]`` section) and the web app's setup page (its form) all seat players through
:func:`seating_problems`, so a config that ``config check`` calls good is one that ``run``
accepts. Each problem names where the value came from (``--players`` or ``[game] players``),
never an option the user did not type.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_reader.appliance.bots import bot_name
from pi_reader.appliance.sheet import typed_name_problems
from pi_reader.players.registry import STRATEGIES, STRONGEST
from pi_reader.rules.types import MAX_PLAYERS

MIN_SEATS = 2
MAX_NAME_LENGTH = 20
MODES = ("paper", "sheet")


@dataclass(frozen=True)
class Source:
    """Where each part of a seating was given, as the user would recognise it."""

    players: str
    bots: str
    mode: str


FROM_OPTIONS = Source("--players", "--bot", "--mode")
FROM_CONFIG = Source("[game] players", "[game] bots", "[game] mode")


def table_mode(option: str | None, bots: Sequence[str], configured: str) -> str:
    """The mode a table plays in: as asked, else sheet when computer players sit at it (they
    need the engine's sheets), else the configured one."""
    return option or ("sheet" if bots else configured)


def seating_problems(
    people: Sequence[str], bots: Sequence[str], mode: str, source: Source
) -> list[str]:
    """Every reason the table cannot be seated so, one sentence each (empty: it can).

    ``people`` are the names as given (an empty one is a mistake, never dropped); ``bots`` are
    ``NAME[:STRATEGY]`` specs; ``source`` says where each came from.
    """
    problems: list[str] = []
    if any(not name.strip() for name in people):
        problems.append(
            f"{source.players}: an empty name (two commas together, or one at an end)"
        )
    for name in people:
        if len(name.strip()) > MAX_NAME_LENGTH or not name.isprintable() or "," in name:
            problems.append(
                f"{source.players}: {name!r} is not a usable name (1 to {MAX_NAME_LENGTH} "
                "printable characters, no commas)"
            )
    for spec in bots:
        name, _, strategy = spec.partition(":")
        if not name.strip():
            problems.append(
                f"{source.bots} {spec}: a computer player needs a name before the colon, "
                f"such as cid:{strategy.strip() or STRONGEST}"
            )
        if strategy.strip() and strategy.strip().lower() not in STRATEGIES:
            problems.append(
                f"{source.bots} {spec}: unknown strategy {strategy.strip()!r} "
                f"(strategies: {', '.join(STRATEGIES)})"
            )
    if mode not in MODES:
        problems.append(f"{source.mode}: {mode!r} is not one of {', '.join(MODES)}")
    if bots and mode == "paper":
        problems.append(
            f"{source.bots}: computer players keep their sheets in the engine, which needs sheet "
            f"mode, but {source.mode} is paper"
        )
    where = " and ".join(
        label for label, given in ((source.players, people), (source.bots, bots)) if given
    )
    names = [name.strip() for name in people if name.strip()]
    names += [bot_name(spec) for spec in bots if bot_name(spec)]
    if (people or bots) and not MIN_SEATS <= len(names) <= MAX_PLAYERS:
        given = f"{len(names)} ({', '.join(names)})" if names else "none"
        problems.append(
            f"{where}: Qwixx needs {MIN_SEATS} to {MAX_PLAYERS} "
            f"players, these give {given}"
        )
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        problems.append(f"{where}: the same name twice: {', '.join(twice)}")
    if mode == "sheet":
        problems += [f"{source.players}: {problem}" for problem in typed_name_problems(names)]
    return problems
