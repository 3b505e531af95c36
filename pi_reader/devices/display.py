"""The character display: the Display interface, the I2C LCD, a console box and a fake.

Fitting policy (:func:`fit_lines`), the same for every display so tests on the fake hold for the
LCD: the first ``rows`` lines are shown and later ones dropped (put the most important line
first); a line longer than ``cols`` is cut at ``cols`` characters (no ellipsis: a 16-character
line has no room to spare); newlines inside a line become spaces. Screens are kept short by the
appliance's catalogue; fitting is the safety net, not the layout.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, Protocol, TextIO, runtime_checkable

from pi_reader.devices.errors import DeviceClosed, DisplayUnavailable

log = logging.getLogger(__name__)

SUPPORTED_SIZES: frozenset[tuple[int, int]] = frozenset({(16, 2), (20, 4), (16, 4), (20, 2)})


def fit_lines(lines: Sequence[str], cols: int, rows: int) -> tuple[str, ...]:
    """The lines as the display shows them: at most ``rows`` lines of at most ``cols`` characters.

    Trailing spaces are dropped, so ``("7", "")`` and ``("7",)`` are the same screen.
    """
    if isinstance(lines, str):
        raise TypeError("show() takes a sequence of lines, not a single string")
    fitted = [" ".join(str(line).splitlines())[:cols].rstrip() for line in lines[:rows]]
    while fitted and not fitted[-1]:
        fitted.pop()
    return tuple(fitted)


@runtime_checkable
class Display(Protocol):
    """A small text display of ``rows`` lines of ``cols`` characters."""

    cols: int
    rows: int

    def show(self, lines: Sequence[str]) -> None:
        """Replace the screen with ``lines``, fitted by :func:`fit_lines`."""

    def clear(self) -> None:
        """Blank the screen."""

    def close(self) -> None:
        """Blank the screen and release the device."""


class FakeDisplay:
    """Records every screen shown in ``screens`` (fitted; ``clear()`` records an empty tuple)."""

    def __init__(self, cols: int = 16, rows: int = 2) -> None:
        self.cols = cols
        self.rows = rows
        self.screens: list[tuple[str, ...]] = []
        self.closed = False

    @property
    def current(self) -> tuple[str, ...]:
        """What is on the screen now."""
        return self.screens[-1] if self.screens else ()

    def show(self, lines: Sequence[str]) -> None:
        self._check_open()
        self.screens.append(fit_lines(lines, self.cols, self.rows))

    def clear(self) -> None:
        self._check_open()
        self.screens.append(())

    def close(self) -> None:
        self.closed = True

    def _check_open(self) -> None:
        if self.closed:
            raise DeviceClosed("display is closed")


class ConsoleDisplay:
    """Draws each new screen as a framed box on a text stream (stdout by default).

    It stands in for the LCD and says it is ``cols`` x ``rows`` (so the appliance lays screens
    out as for the LCD), but a terminal has room: it draws every line it is given, a line longer
    than ``cols`` wrapped at spaces, the box growing to hold them, rather than cutting messages
    the way the LCD must. A screen identical to the one before is not drawn again, so a loop
    refreshing at 10 fps does not flood the terminal or the journal.
    """

    def __init__(self, cols: int = 20, rows: int = 4, stream: TextIO | None = None) -> None:
        self.cols = cols
        self.rows = rows
        self._stream = stream
        self._last: tuple[str, ...] | None = None
        self.closed = False

    def show(self, lines: Sequence[str]) -> None:
        if self.closed:
            raise DeviceClosed("display is closed")
        if isinstance(lines, str):
            raise TypeError("show() takes a sequence of lines, not a single string")
        screen = tuple(
            part
            for line in lines
            for part in textwrap.wrap(" ".join(str(line).splitlines()), self.cols) or [""]
        )
        while screen and not screen[-1]:
            screen = screen[:-1]
        if screen == self._last:
            return
        self._last = screen
        border = "+" + "-" * self.cols + "+"
        padded = [*screen, *[""] * (self.rows - len(screen))]
        body = [f"|{line.ljust(self.cols)}|" for line in padded]
        print("\n".join([border, *body, border]), file=self._stream or sys.stdout, flush=True)

    def clear(self) -> None:
        self.show(())

    def close(self) -> None:
        self.closed = True


class LcdDisplay:
    """An HD44780 LCD on a PCF8574 I2C backpack, driven by RPLCD.

    ``address`` is the backpack's I2C address (0x27 on most, 0x3F on some), ``port`` the I2C bus
    (1 on every current Pi), ``charmap`` the LCD's character ROM (``A00``: ASCII and Japanese, the
    common one; ``A02``: Western European and Cyrillic). Characters the ROM lacks show as RPLCD's
    replacement character. Only lines that changed are rewritten, which keeps I2C traffic low.

    Raises DisplayUnavailable at construction when the bus or the backpack does not answer. Once
    running, a loose wire must not stop the game: a failed write is logged (once per outage),
    counted in ``failures``, and the next ``show()`` initialises the LCD again and redraws the
    whole screen, so the display comes back by itself when the contact does.
    """

    def __init__(
        self,
        *,
        address: int = 0x27,
        port: int = 1,
        cols: int = 16,
        rows: int = 2,
        charmap: str = "A00",
    ) -> None:
        self.cols = cols
        self.rows = rows
        self.address = address
        self.port = port
        self.charmap = charmap
        self.failures = 0
        self.closed = False
        self._lcd: Any = None
        self._shown: list[str] = [""] * rows
        try:
            self._connect()
        except (OSError, ImportError) as error:
            raise DisplayUnavailable(self._describe(error)) from error

    def show(self, lines: Sequence[str]) -> None:
        if self.closed:
            raise DeviceClosed("display is closed")
        screen = fit_lines(lines, self.cols, self.rows)
        wanted = [*screen, *[""] * (self.rows - len(screen))]
        try:
            if self._lcd is None:
                self._connect()
            for row, line in enumerate(wanted):
                if line != self._shown[row]:
                    self._lcd.cursor_pos = (row, 0)
                    self._lcd.write_string(line.ljust(self.cols))
                    self._shown[row] = line
        except OSError as error:
            self._lost(error)

    def clear(self) -> None:
        self.show(())

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._lcd is not None:
            with contextlib.suppress(OSError):  # an LCD already gone has nothing left to release
                self._lcd.close(clear=True)

    def _connect(self) -> None:
        from RPLCD.i2c import CharLCD

        lcd = CharLCD(
            "PCF8574",
            self.address,
            port=self.port,
            cols=self.cols,
            rows=self.rows,
            charmap=self.charmap,
            auto_linebreaks=False,
        )
        lcd.clear()
        self._lcd = lcd
        self._shown = [""] * self.rows

    def _lost(self, error: OSError) -> None:
        if self._lcd is not None:  # the first failure of this outage
            log.warning(
                "LCD write failed, will retry on the next screen: %s", self._describe(error)
            )
            with contextlib.suppress(OSError):
                self._lcd.close(clear=False)
        self.failures += 1
        self._lcd = None

    def _describe(self, error: BaseException) -> str:
        return (
            f"no LCD answers at I2C address {self.address:#04x} on bus {self.port} ({error}): "
            "check the wiring and the address with 'i2cdetect -y 1', and that I2C is enabled "
            "('sudo raspi-config nonint do_i2c 0')"
        )
