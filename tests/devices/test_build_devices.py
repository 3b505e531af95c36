"""build_devices, through open_devices from a config: the real devices when present, stand-ins
and one warning each when missing."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import RPLCD.i2c
from gpiozero import Device
from gpiozero.exc import BadPinFactory
from gpiozero.pins.mock import MockFactory

import pi_reader.devices.speaker as speaker_module
from pi_reader.appliance.device_setup import open_devices
from pi_reader.config import Config, parse_config
from pi_reader.devices import (
    CameraSpecError,
    ConsoleDisplay,
    ConsoleLeds,
    DirectoryCamera,
    EspeakSpeaker,
    FakeButtons,
    LcdDisplay,
    LockLeds,
    PiCamera,
    PrintSpeaker,
)
from pi_reader.devices.bundle import Devices
from pi_reader.devices.gpio import Buttons


class Bus:
    """A PCF8574 that answers (or, with ``present = False``, an empty bus)."""

    present = True

    def __init__(self, port: int) -> None:
        if not Bus.present:
            raise FileNotFoundError(2, "No such file or directory", f"/dev/i2c-{port}")

    def write_byte(self, address: int, value: int) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture
def hardware(monkeypatch: pytest.MonkeyPatch, factory: MockFactory) -> MockFactory:
    """A Pi with everything attached: mock pins, an answering LCD, espeak-ng and aplay."""
    Bus.present = True
    monkeypatch.setattr(RPLCD.i2c, "SMBus", Bus)
    monkeypatch.setattr(speaker_module.shutil, "which", lambda name: f"/usr/bin/{name}")
    return factory


def test_everything_present(hardware: MockFactory, tmp_path: Path) -> None:
    devices = open_devices(Config())
    assert isinstance(devices.camera, PiCamera)
    assert isinstance(devices.speaker, EspeakSpeaker)
    assert isinstance(devices.display, LcdDisplay)
    assert isinstance(devices.leds, LockLeds)
    assert isinstance(devices.buttons, Buttons)
    assert devices.warnings == ()
    devices.leds.set("blue", True)
    assert hardware.pin(Config().pins.leds.blue).state is True
    pressed: list[str] = []
    devices.buttons.on_lock = pressed.append
    hardware.pin(Config().pins.buttons.yellow).drive_low()
    assert pressed == ["yellow"]
    devices.close()


def test_config_pins_and_camera_override(hardware: MockFactory, tmp_path: Path) -> None:
    config = parse_config("[pins.leds]\nred = 4\n[camera]\nspec = 'usb:0'\n")
    devices = open_devices(config, camera_spec=f"dir:{tmp_path}", loop=True)
    assert isinstance(devices.camera, DirectoryCamera) and devices.camera.loop
    devices.leds.set("red", True)
    assert hardware.pin(4).state is True
    devices.close()


def test_missing_lcd_speaker_and_gpio_become_stand_ins(
    monkeypatch: pytest.MonkeyPatch, hardware: MockFactory
) -> None:
    Bus.present = False
    monkeypatch.setattr(speaker_module.shutil, "which", lambda name: None)

    def no_factory(*_args: object, **_kwargs: object) -> None:
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_factory))
    stream = io.StringIO()
    devices = open_devices(Config(), stream=stream)
    assert [warning.device for warning in devices.warnings] == [
        "speaker",
        "display",
        "leds",
        "buttons",
    ]
    assert "apt install espeak-ng" in devices.warnings[0].detail
    assert "no LCD answers at I2C address 0x27" in str(devices.warnings[1])
    assert isinstance(devices.speaker, PrintSpeaker)
    assert isinstance(devices.display, ConsoleDisplay)
    assert (devices.display.cols, devices.display.rows) == (16, 2)
    assert isinstance(devices.leds, ConsoleLeds)
    assert isinstance(devices.buttons, FakeButtons)
    devices.speaker.say("seven")
    assert "SAY: seven" in stream.getvalue()
    devices.close()


def test_disabled_lcd_and_speaker_are_not_warnings(hardware: MockFactory) -> None:
    config = parse_config("[lcd]\nenabled = false\n[speaker]\nenabled = false\n")
    devices = open_devices(config)
    assert devices.warnings == ()
    assert isinstance(devices.display, ConsoleDisplay)
    assert isinstance(devices.speaker, PrintSpeaker)
    devices.close()


def test_no_hardware_uses_console_devices_and_touches_no_pins(tmp_path: Path) -> None:
    stream = io.StringIO()
    devices = open_devices(
        parse_config("[lcd]\ncols = 20\nrows = 4\n"),
        no_hardware=True,
        camera_spec=f"dir:{tmp_path}",
        stream=stream,
    )
    assert isinstance(devices, Devices)
    assert devices.warnings == ()
    assert isinstance(devices.camera, DirectoryCamera)
    assert (devices.display.cols, devices.display.rows) == (20, 4)
    devices.display.show(["white 7"])
    devices.leds.set("red", True)
    devices.speaker.say("seven")
    assert stream.getvalue().splitlines() == [
        "+" + "-" * 20 + "+",
        "|white 7" + " " * 13 + "|",
        *["|" + " " * 20 + "|"] * 3,
        "+" + "-" * 20 + "+",
        "LEDS: red=on yellow=off green=off blue=off",
        "SAY: seven",
    ]
    devices.close()


def test_a_recording_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(CameraSpecError, match="no folder"):
        open_devices(Config(), no_hardware=True, camera_spec=f"dir:{tmp_path / 'x'}")
