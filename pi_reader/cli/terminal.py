"""The terminal as the table's keyboard in sheet mode: typed lines in, a prompt out.

People type their marks (``ann red 7``, ``ann pass``; see :mod:`pi_reader.appliance.sheet`);
:class:`TerminalCommands` reads the lines on a background thread, so the camera loop never waits
for the keyboard, and prints whose decision the game is waiting for whenever that changes. The
prompt is English, like the typed grammar's ``pass``, ``white`` and ``colour``.
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from pi_reader.appliance.sheet import SheetGame
from pi_reader.rules import Action


def prompt(game: object) -> str | None:
    """What the game waits for from the people, as a line for the terminal (None in paper
    mode or once the game is over)."""
    if not isinstance(game, SheetGame) or game.over:
        return None
    waiting = game.undecided()
    roll = game.game.current_roll
    if not waiting or roll is None:
        return f"{game.next_roller} rolls the dice"
    whites = [player for player, action in waiting if action is Action.WHITE]
    parts = []
    if whites:
        parts.append(
            f"white sum {roll.white_sum}: {', '.join(whites)} may mark it (NAME COLOUR "
            f"{roll.white_sum}) or pass (NAME pass)"
        )
    if (game.active, Action.COLOUR) in waiting:
        parts.append(
            f"{game.active}'s colour action: a white die plus a coloured one "
            f"({game.active} COLOUR NUMBER colour) or {game.active} pass"
        )
    return "; then ".join(parts)


class TerminalCommands:
    """Lines typed at the terminal, read on a background thread, never blocking.

    Called between frames for the lines typed since; with ``prompt`` (a callable giving the
    current prompt) it first prints that prompt when it changed since last printed.
    """

    def __init__(
        self, prompt: Callable[[], str | None] | None = None, out: TextIO | None = None
    ) -> None:
        self._lines: queue.SimpleQueue[str] = queue.SimpleQueue()
        self.prompt = prompt
        self._out = out
        self._shown: str | None = None

    def put(self, line: str) -> None:
        self._lines.put(line)

    def start_reading(self, stream: Any = None) -> None:
        stream = stream or sys.stdin

        def pump() -> None:
            for line in stream:
                self._lines.put(line.rstrip("\n"))

        threading.Thread(target=pump, name="terminal-commands", daemon=True).start()

    def __call__(self) -> list[str]:
        if self.prompt is not None:
            text = self.prompt()
            if text is not None and text != self._shown:
                print(f"> {text}", file=self._out or sys.stdout, flush=True)
            self._shown = text
        lines = []
        while True:
            try:
                lines.append(self._lines.get_nowait())
            except queue.Empty:
                return lines
