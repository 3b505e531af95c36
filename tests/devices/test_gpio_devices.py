"""LEDs and buttons: the real gpiozero classes on gpiozero's mock pins, and the fakes."""

from __future__ import annotations

import io

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from pi_reader.devices.errors import DeviceClosed, GpioUnavailable, UnknownButton, UnknownColour
from pi_reader.devices.gpio import (
    ButtonPanel,
    Buttons,
    ConsoleLeds,
    FakeButtons,
    FakeLeds,
    Leds,
    LockLeds,
)

LED_PINS = {"red": 5, "yellow": 6, "green": 13, "blue": 19}
BUTTON_PINS = {"red": 17, "yellow": 27, "green": 22, "blue": 23, "penalty": 24, "undo": 25}


def test_leds_drive_their_pins(factory: MockFactory) -> None:
    leds = LockLeds(LED_PINS)
    leds.set("green", True)
    assert factory.pin(13).state is True
    assert leds.states() == {"red": False, "yellow": False, "green": True, "blue": False}
    leds.set_removed(["red", "blue"])
    assert [factory.pin(pin).state for pin in (5, 6, 13, 19)] == [True, False, False, True]
    factory.pin(13).assert_states([False, True, False])
    assert isinstance(leds, Leds)
    leds.close()
    with pytest.raises(DeviceClosed):
        leds.set("red", False)


def test_leds_refuse_white_and_unknown_colours(factory: MockFactory) -> None:
    leds = LockLeds(LED_PINS)
    for colour in ("white", "purple"):
        with pytest.raises(UnknownColour, match="red, yellow, green, blue"):
            leds.set(colour, True)
        with pytest.raises(UnknownColour):
            leds.set_removed([colour])


def test_led_pin_map_must_name_all_four(factory: MockFactory) -> None:
    with pytest.raises(ValueError, match=r"missing \['blue'\]"):
        LockLeds({"red": 5, "yellow": 6, "green": 13})


def test_a_pin_in_use_is_gpio_unavailable_and_releases_the_others(factory: MockFactory) -> None:
    with pytest.raises(GpioUnavailable, match="LED pins"):
        LockLeds({"red": 5, "yellow": 6, "green": 13, "blue": 5})
    leds = LockLeds(LED_PINS)  # the pins taken before the failure were given back
    assert leds.states() == dict.fromkeys(("red", "yellow", "green", "blue"), False)
    leds.close()


def test_no_pin_factory_is_gpio_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpiozero.exc import BadPinFactory

    def no_factory(*_args: object, **_kwargs: object) -> None:
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_factory))
    with pytest.raises(GpioUnavailable, match="Unable to load any default pin factory"):
        LockLeds(LED_PINS)
    with pytest.raises(GpioUnavailable, match="button pins"):
        Buttons(BUTTON_PINS)


def test_buttons_pressed_through_mock_pins_call_back(factory: MockFactory) -> None:
    buttons = Buttons(BUTTON_PINS, bounce_time=0.05)
    events: list[str] = []
    buttons.on_lock = lambda colour: events.append(f"lock {colour}")
    buttons.on_penalty = lambda: events.append("penalty")
    buttons.on_undo = lambda: events.append("undo")
    for pin in (22, 24, 25, 17):
        factory.pin(pin).drive_low()  # pressed: the switch pulls the pin to ground
        factory.pin(pin).drive_high()  # released: nothing more happens
    assert events == ["lock green", "penalty", "undo", "lock red"]
    assert isinstance(buttons, ButtonPanel)


def test_buttons_use_pull_ups_and_bounce_time(factory: MockFactory) -> None:
    buttons = Buttons(BUTTON_PINS, bounce_time=0.08)
    pin = factory.pin(23)
    assert pin.pull == "up"
    assert pin.bounce == pytest.approx(0.08)
    assert buttons.is_pressed("blue") is False
    pin.drive_low()
    assert buttons.is_pressed("blue") is True
    with pytest.raises(UnknownButton):
        buttons.is_pressed("start")


def test_a_press_without_a_callback_is_ignored(factory: MockFactory) -> None:
    buttons = Buttons(BUTTON_PINS)
    factory.pin(17).drive_low()  # nothing to call: no error on gpiozero's side either
    assert buttons.is_pressed("red") is True
    assert (buttons.on_lock, buttons.on_penalty, buttons.on_undo) == (None, None, None)


def test_closed_buttons_release_their_pins(factory: MockFactory) -> None:
    buttons = Buttons(BUTTON_PINS)
    buttons.close()
    with pytest.raises(DeviceClosed):
        buttons.is_pressed("penalty")
    again = Buttons(BUTTON_PINS)  # would be GpioUnavailable (pin in use) had close kept them
    factory.pin(24).drive_low()
    assert again.is_pressed("penalty") is True
    again.close()


def test_fake_leds_record_every_change() -> None:
    leds = FakeLeds()
    leds.set("red", True)
    leds.set("red", True)  # no change: not recorded again
    leds.set_removed(["red", "blue"])
    assert leds.history == [
        {"red": True, "yellow": False, "green": False, "blue": False},
        {"red": True, "yellow": False, "green": False, "blue": True},
    ]
    assert leds.states()["blue"] is True
    with pytest.raises(UnknownColour):
        leds.set("white", True)
    assert isinstance(leds, Leds)


def test_console_leds_print_each_change() -> None:
    stream = io.StringIO()
    leds = ConsoleLeds(stream)
    leds.set("yellow", True)
    assert stream.getvalue() == "LEDS: red=off yellow=on green=off blue=off\n"


def test_fake_buttons_call_the_same_callbacks() -> None:
    buttons = FakeButtons()
    events: list[str] = []
    buttons.on_lock = events.append
    buttons.on_undo = lambda: events.append("undo")
    buttons.press("yellow")
    buttons.press("penalty")  # no callback set: recorded, nothing called
    buttons.press("undo")
    assert events == ["yellow", "undo"]
    assert buttons.pressed == ["yellow", "penalty", "undo"]
    with pytest.raises(UnknownButton, match="red, yellow, green, blue, penalty, undo"):
        buttons.press("start")
    buttons.close()
    with pytest.raises(DeviceClosed):
        buttons.press("red")
    assert isinstance(buttons, ButtonPanel)
