"""gpiozero devices on the mock pin factory: LED pins after locks, buttons driving the game."""

from __future__ import annotations

from pathlib import Path

from gpiozero.pins.mock import MockFactory

from pi_reader.appliance.catalogue import Catalogue
from pi_reader.appliance.loop import Appliance, CameraRetry, FrameClock
from pi_reader.appliance.table import Table
from pi_reader.config import ButtonPins, LedPins
from pi_reader.devices import Buttons, FakeCamera, FakeDisplay, FakeSpeaker, LockLeds

from .helpers import ReaderDouble, dice, reading, roll_frames

LEDS = LedPins().as_dict()
BUTTONS = ButtonPins().as_dict()
ROLLS = {1: reading(dice(3, 4, 2, 5, 6, 1)), 2: reading(dice(1, 1, 6, 3, 5, removed=["red"]))}


def play(state_dir: Path, factory: MockFactory, frames: list, presses: dict[int, list[str]]):
    """Run the appliance on real gpiozero LEDs and buttons; presses drive the mock pins low."""
    camera = FakeCamera(frames)
    leds = LockLeds(LEDS, pin_factory=factory)
    buttons = Buttons(BUTTONS, bounce_time=None, pin_factory=factory)
    speaker = FakeSpeaker()
    appliance = Appliance(
        camera=camera,
        read_roll=ReaderDouble(ROLLS),
        table=Table.open(state_dir, "paper", ["ann", "bob"]),
        catalogue=Catalogue.load("en"),
        speaker=speaker,
        display=FakeDisplay(),
        leds=leds,
        buttons=buttons,
        clock=FrameClock(10.0),
        retry=CameraRetry(sleep=lambda seconds: None),
    )
    original = camera.capture

    def capture():
        for name in presses.get(camera.frames_served, []):
            pin = factory.pin(BUTTONS[name])
            pin.drive_low()
            pin.drive_high()
        return original()

    camera.capture = capture  # type: ignore[method-assign]
    appliance.run()
    states = {colour: factory.pin(pin).state for colour, pin in LEDS.items()}
    leds.close()
    buttons.close()
    return states, speaker.spoken


def test_lock_button_lights_the_led_pin_and_it_is_lit_again_after_a_restart(
    tmp_path: Path, factory: MockFactory
) -> None:
    states, spoken = play(tmp_path, factory, roll_frames([1]), {9: ["red"]})
    assert states == {"red": True, "yellow": False, "green": False, "blue": False}
    assert "Take the red die out." in spoken
    factory.reset()
    states, spoken = play(tmp_path, factory, roll_frames([2]), {})
    assert spoken[1] == "Game resumed. bob rolls."
    assert states == {"red": True, "yellow": False, "green": False, "blue": False}


def test_penalty_and_undo_buttons_through_the_pins(tmp_path: Path, factory: MockFactory) -> None:
    states, spoken = play(tmp_path, factory, roll_frames([1]), {9: ["penalty", "blue", "undo"]})
    assert spoken[3:6] == [
        "Penalty for ann, 1 of 4.",
        "The blue row is locked.",
        "Take the blue die out.",
    ]
    assert spoken[6] == "Undone: the blue row is open again. Put the blue die back."
    assert not any(states.values())
