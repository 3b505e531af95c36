"""The config file's sections turned into the devices' own settings, key for key."""

from __future__ import annotations

from pi_reader.appliance.device_setup import device_settings
from pi_reader.config import Config, parse_config
from pi_reader.devices.settings import (
    CameraSettings,
    GpioSettings,
    LcdSettings,
    SpeakerSettings,
)


def test_every_setting_comes_from_its_key() -> None:
    config = parse_config(
        '[camera]\nspec = "usb:2"\nresolution = [640, 480]\nfps = 15.0\n'
        '[speaker]\nenabled = false\nlanguage = "de"\nvoice = "de+f3"\nrate = 120\n'
        'device = "plughw:1,0"\n'
        '[lcd]\nenabled = false\naddress = 0x3F\nport = 3\ncols = 20\nrows = 4\n'
        'charmap = "A02"\n'
        "[pins]\nbounce_time = 0.1\n[pins.leds]\nred = 4\n[pins.buttons]\nundo = 7\n"
    )
    settings = device_settings(config)
    assert settings.camera == CameraSettings("usb:2", (640, 480), 15.0)
    assert settings.speaker == SpeakerSettings(False, "de", "de+f3", 120, "plughw:1,0")
    assert settings.speaker.espeak_voice == "de+f3"
    assert settings.lcd == LcdSettings(False, 0x3F, 3, 20, 4, "A02")
    assert settings.gpio == GpioSettings(
        {"red": 4, "yellow": 6, "green": 13, "blue": 26},
        {"red": 17, "yellow": 27, "green": 22, "blue": 23, "penalty": 24, "undo": 7},
        0.1,
    )


def test_the_camera_option_overrides_the_spec_and_no_debounce_is_none() -> None:
    settings = device_settings(parse_config("[pins]\nbounce_time = 0\n"), camera_spec="dir:/x")
    assert settings.camera.spec == "dir:/x"
    assert settings.gpio.bounce_time is None
    assert device_settings(Config()).speaker.espeak_voice == "en"
