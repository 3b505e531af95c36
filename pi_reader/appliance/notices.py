"""What the game wants said or shown, as message keys with values, rendered per language later.

The game sessions decide *what* happened (a lock, a penalty, the end); the catalogue decides how
that is said in the table's language. Values named ``row``, ``die``, ``die_object`` and ``colour``
(a colour code such as "red") and ``device`` (a device code such as "leds") become words of the
catalogue; ``players`` holds a list of names and becomes "ann and bob".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_reader.appliance.catalogue import Catalogue

_WORD_VALUES = ("row", "die", "die_object", "colour", "device")


@dataclass(frozen=True)
class Notice:
    """One thing to say (and show): a catalogue key and its values."""

    key: str
    values: Mapping[str, object] = field(default_factory=dict)


def notice(key: str, **values: object) -> Notice:
    return Notice(key, values)


@dataclass
class Outcome:
    """What a game event led to: events to append to the journal and things to say.

    ``rewrite`` asks for the whole journal to be rewritten from the game's events (after undo).
    """

    written: list[dict[str, Any]] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    rewrite: bool = False


class Refused(Exception):
    """An event the game cannot take now; ``notice`` says why to the players."""

    def __init__(self, refusal: Notice) -> None:
        super().__init__(refusal.key)
        self.notice = refusal


def render(catalogue: Catalogue, item: Notice) -> str:
    """The notice as a sentence in the catalogue's language."""
    values: dict[str, object] = {}
    for name, value in item.values.items():
        if name in _WORD_VALUES and isinstance(value, str):
            values[name] = catalogue.word(f"{name}.{value}")
        elif name == "players" and isinstance(value, list | tuple):
            values[name] = catalogue.join(str(v) for v in value)
        else:
            values[name] = value
    return catalogue.text(item.key, **values)
