"""The lock LEDs and the buttons, through gpiozero, with fakes that record what happened.

Four LEDs (red, yellow, green, blue) show which coloured dice a lock removed. Six buttons: one
beside each LED that a player presses when they lock that row, ``penalty`` and ``undo``. Buttons
wire to ground and use the Pi's internal pull-ups, so pressed means the pin reads low.

Button callbacks are plain attributes, as gpiozero's ``when_pressed``:
``buttons.on_lock = lambda colour: ...``, ``buttons.on_penalty = ...``, ``buttons.on_undo = ...``.
On the real :class:`Buttons` they run on gpiozero's event thread, not the caller's: the appliance
should only put the event on a queue there. :class:`FakeButtons` calls them on the caller's
thread from :meth:`FakeButtons.press`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, TextIO, runtime_checkable

from pi_reader.devices.errors import DeviceClosed, GpioUnavailable, UnknownButton, UnknownColour
from pi_reader.rules import COLOURS

# One LED and one lock button per row colour of the rules.
LOCK_COLOURS: tuple[str, ...] = tuple(colour.value for colour in COLOURS)
BUTTON_NAMES: tuple[str, ...] = (*LOCK_COLOURS, "penalty", "undo")
# Seconds: longer than a cheap tactile switch bounces, shorter than two deliberate presses.
DEFAULT_BOUNCE_TIME = 0.05

LockCallback = Callable[[str], None]
PlainCallback = Callable[[], None]


def _check_colour(colour: str) -> str:
    if colour not in LOCK_COLOURS:
        raise UnknownColour(
            f"no lock LED for {colour!r}; the colours are {', '.join(LOCK_COLOURS)}"
        )
    return colour


def _check_pins(pins: Mapping[str, int], names: Iterable[str], what: str) -> None:
    expected = set(names)
    if set(pins) != expected:
        missing = sorted(expected - set(pins))
        extra = sorted(set(pins) - expected)
        raise ValueError(f"{what} pins: missing {missing}, unexpected {extra}")


@runtime_checkable
class Leds(Protocol):
    """The four lock LEDs."""

    def set(self, colour: str, on: bool) -> None:
        """Light (``on=True``) or put out one colour's LED. UnknownColour for other colours."""

    def set_removed(self, colours: Iterable[str]) -> None:
        """Light exactly the LEDs of ``colours`` (the removed dice), put out the others."""

    def states(self) -> dict[str, bool]:
        """Each colour's LED: True when lit."""
        ...

    def close(self) -> None:
        """Put every LED out and release the pins."""


class LockLeds:
    """The four LEDs on GPIO pins (BCM numbers), through gpiozero ``LED``.

    ``pins`` maps each of red, yellow, green, blue to a BCM pin. ``pin_factory`` defaults to
    gpiozero's choice (lgpio on a Pi; ``MockFactory`` in tests). GpioUnavailable when no factory
    can drive the pins, or a pin is already in use.
    """

    def __init__(self, pins: Mapping[str, int], *, pin_factory: Any = None) -> None:
        _check_pins(pins, LOCK_COLOURS, "LED")
        from gpiozero import LED
        from gpiozero.exc import GPIOZeroError

        self._leds: dict[str, Any] = {}
        self.closed = False
        try:
            for colour in LOCK_COLOURS:
                self._leds[colour] = LED(pins[colour], pin_factory=pin_factory)
        except (GPIOZeroError, OSError, RuntimeError) as error:
            self.close()
            raise GpioUnavailable(f"cannot drive the LED pins {dict(pins)}: {error}") from error

    def set(self, colour: str, on: bool) -> None:
        led = self._led(colour)
        if on:
            led.on()
        else:
            led.off()

    def set_removed(self, colours: Iterable[str]) -> None:
        removed = {_check_colour(colour) for colour in colours}
        for colour in LOCK_COLOURS:
            self.set(colour, colour in removed)

    def states(self) -> dict[str, bool]:
        return {colour: bool(self._led(colour).is_lit) for colour in LOCK_COLOURS}

    def close(self) -> None:
        for led in self._leds.values():
            led.close()
        self._leds = {}
        self.closed = True

    def _led(self, colour: str) -> Any:
        _check_colour(colour)
        if self.closed:
            raise DeviceClosed("LEDs are closed")
        return self._leds[colour]


class FakeLeds:
    """LEDs in memory; ``history`` holds the state of all four after every change."""

    def __init__(self) -> None:
        self._states = dict.fromkeys(LOCK_COLOURS, False)
        self.history: list[dict[str, bool]] = []
        self.closed = False

    def set(self, colour: str, on: bool) -> None:
        self._update({_check_colour(colour): bool(on)})

    def set_removed(self, colours: Iterable[str]) -> None:
        removed = {_check_colour(colour) for colour in colours}
        self._update({colour: colour in removed for colour in LOCK_COLOURS})

    def states(self) -> dict[str, bool]:
        return dict(self._states)

    def close(self) -> None:
        self.closed = True

    def _update(self, changes: Mapping[str, bool]) -> None:
        if self.closed:
            raise DeviceClosed("LEDs are closed")
        new_states = {**self._states, **changes}
        if new_states != self._states or not self.history:
            self._states = new_states
            self.history.append(dict(new_states))
            self._changed()

    def _changed(self) -> None:
        """Hook for subclasses that show the new state."""


class ConsoleLeds(FakeLeds):
    """For ``--no-hardware`` and as the stand-in for missing GPIO: prints ``LEDS: red=on ...``."""

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__()
        self._stream = stream

    def _changed(self) -> None:
        text = " ".join(
            f"{colour}={'on' if lit else 'off'}" for colour, lit in self._states.items()
        )
        print(f"LEDS: {text}", file=self._stream or sys.stdout, flush=True)


class ButtonCallbacks:
    """The three callback attributes shared by the real and the fake buttons."""

    def __init__(self) -> None:
        self.on_lock: LockCallback | None = None
        self.on_penalty: PlainCallback | None = None
        self.on_undo: PlainCallback | None = None

    def _dispatch(self, name: str) -> None:
        if name in LOCK_COLOURS:
            if self.on_lock is not None:
                self.on_lock(name)
        elif name == "penalty":
            if self.on_penalty is not None:
                self.on_penalty()
        elif name == "undo":
            if self.on_undo is not None:
                self.on_undo()
        else:
            raise UnknownButton(f"no button {name!r}; the buttons are {', '.join(BUTTON_NAMES)}")


@runtime_checkable
class ButtonPanel(Protocol):
    """The six buttons: set ``on_lock``, ``on_penalty``, ``on_undo``; see the module docstring."""

    on_lock: LockCallback | None
    on_penalty: PlainCallback | None
    on_undo: PlainCallback | None

    def close(self) -> None:
        """Stop reporting presses and release the pins."""


class Buttons(ButtonCallbacks):
    """The six buttons on GPIO pins (BCM numbers), through gpiozero ``Button``.

    ``pins`` maps red, yellow, green, blue, penalty and undo to BCM pins; each button closes to
    ground against the internal pull-up. ``bounce_time`` (seconds) makes gpiozero ignore the
    contact bounce after a press so one press is one event. GpioUnavailable as for the LEDs.
    """

    def __init__(
        self,
        pins: Mapping[str, int],
        *,
        bounce_time: float | None = DEFAULT_BOUNCE_TIME,
        pin_factory: Any = None,
    ) -> None:
        super().__init__()
        _check_pins(pins, BUTTON_NAMES, "button")
        from gpiozero import Button
        from gpiozero.exc import GPIOZeroError

        self._buttons: dict[str, Any] = {}
        try:
            for name in BUTTON_NAMES:
                button = Button(
                    pins[name], pull_up=True, bounce_time=bounce_time, pin_factory=pin_factory
                )
                button.when_pressed = self._handler(name)
                self._buttons[name] = button
        except (GPIOZeroError, OSError, RuntimeError) as error:
            self.close()
            raise GpioUnavailable(f"cannot read the button pins {dict(pins)}: {error}") from error

    def is_pressed(self, name: str) -> bool:
        """Whether a button is held down now. DeviceClosed after close()."""
        if name in BUTTON_NAMES and not self._buttons:
            raise DeviceClosed("buttons are closed")
        if name not in self._buttons:
            raise UnknownButton(f"no button {name!r}; the buttons are {', '.join(BUTTON_NAMES)}")
        return bool(self._buttons[name].is_pressed)

    def close(self) -> None:
        for button in self._buttons.values():
            button.close()
        self._buttons = {}

    def _handler(self, name: str) -> PlainCallback:
        return lambda: self._dispatch(name)


class FakeButtons(ButtonCallbacks):
    """Buttons pressed by code: ``press("red")`` calls ``on_lock("red")``; ``pressed`` records."""

    def __init__(self) -> None:
        super().__init__()
        self.pressed: list[str] = []
        self.closed = False

    def press(self, name: str) -> None:
        if self.closed:
            raise DeviceClosed("buttons are closed")
        if name not in BUTTON_NAMES:
            raise UnknownButton(f"no button {name!r}; the buttons are {', '.join(BUTTON_NAMES)}")
        self.pressed.append(name)
        self._dispatch(name)

    def close(self) -> None:
        self.closed = True
