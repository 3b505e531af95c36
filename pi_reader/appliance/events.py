"""The appliance's seam for other ways in (the web app): changes out, entries in.

The loop tells each :class:`Listener` once per loop iteration that changed the table (a roll
read, a mark, a button, a problem said), in the loop's own thread, and hands it every frame. A
listener must return at once: it copies what it needs and passes it to its own thread, because
the camera loop never waits on a client. What a listener wants done goes the other way through
``Appliance.submit``: a job queued like a button press and run between frames in the loop's
thread, where the game lives, so the game has one owner and no lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from pi_reader.rules import Action, Colour
from pi_reader.vision.types import RollReading

if TYPE_CHECKING:
    from pi_reader.appliance.catalogue import Catalogue
    from pi_reader.appliance.table import Table


@dataclass(frozen=True)
class StillRead:
    """The still frame a roll was read from, and what the reader found on it."""

    frame: np.ndarray
    reading: RollReading


@dataclass(frozen=True)
class TableChange:
    """The table after a change: read it in the listener's call, it changes after it returns.

    ``said`` is what the appliance said since the last change, in the table's language; ``still``
    the frame of the roll just read (None when no roll was read in this change).
    """

    table: Table
    catalogue: Catalogue
    said: tuple[str, ...]
    still: StillRead | None


class Listener(Protocol):
    """Something that shows the table elsewhere (the web app)."""

    def changed(self, change: TableChange) -> None:
        """The table changed; called in the loop's thread, must not block."""

    def frame(self, frame: np.ndarray) -> None:
        """Every frame the camera gave (keep a reference at most: it is never written to)."""


@dataclass(frozen=True)
class MarkEntry:
    """A player marks ``number`` in the ``colour`` row in ``action`` (sheet mode)."""

    player: str
    colour: Colour
    number: int
    action: Action


@dataclass(frozen=True)
class PassEntry:
    """A player lets the action they are in go by (sheet mode)."""

    player: str


@dataclass(frozen=True)
class UndoEntry:
    """Take back ``player``'s last mark of this turn (sheet mode); the last event if None."""

    player: str | None = None


@dataclass(frozen=True)
class ButtonEntry:
    """A table button from a page: a lock colour, ``penalty`` or ``undo`` (paper mode)."""

    button: str


Entry = MarkEntry | PassEntry | UndoEntry | ButtonEntry
