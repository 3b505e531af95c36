"""The config file: defaults, the shipped example, and a clear message for every kind of mistake."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import pi_reader.config as config_module
from pi_reader.config import (
    ButtonPins,
    Config,
    ConfigError,
    LedPins,
    load_config,
    parse_config,
    to_toml,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = REPO_ROOT / "hardware" / "config.example.toml"


def problems_of(text: str) -> tuple[str, ...]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="test.toml")
    return caught.value.problems


def test_the_shipped_example_loads_clean_and_equals_the_defaults() -> None:
    config = load_config(EXAMPLE)
    assert config == Config()
    assert config.source == EXAMPLE


def test_an_empty_file_means_all_defaults() -> None:
    config = parse_config("")
    assert config.pins.leds == LedPins()
    assert config.speaker.language == "en"
    assert config.camera.resolution == (1024, 768)
    assert config.paths.state_dir == Path("/var/lib/pi-reader")


def test_values_are_read() -> None:
    config = parse_config(
        """
        [pins.leds]
        red = 4
        [pins]
        bounce_time = 0.1
        [lcd]
        address = 0x3F
        cols = 20
        rows = 4
        charmap = "A02"
        [speaker]
        language = "fa"
        voice = "fa+f2"
        rate = 140
        device = "plughw:1,0"
        [camera]
        spec = "usb:1"
        resolution = [1280, 720]
        fps = 15
        [paths]
        state_dir = "/srv/pi-reader"
        [game]
        players = ["ann", "Бо"]
        bots = ["robo"]
        mode = "sheet"
        """
    )
    assert config.pins.leds.red == 4 and config.pins.bounce_time == 0.1
    assert (config.lcd.address, config.lcd.cols, config.lcd.rows) == (0x3F, 20, 4)
    assert config.speaker.voice == "fa+f2" and config.speaker.device == "plughw:1,0"
    assert config.camera.fps == 15.0 and isinstance(config.camera.fps, float)
    assert config.paths.state_dir == Path("/srv/pi-reader")
    assert config.game.players == ("ann", "Бо") and config.game.mode == "sheet"


def test_blank_voice_and_device_mean_not_set() -> None:
    config = parse_config('[speaker]\nvoice = ""\ndevice = ""\n')
    assert config.speaker.voice is None and config.speaker.device is None


def test_config_is_frozen() -> None:
    config = Config()
    with pytest.raises(AttributeError):
        config.lcd.cols = 20  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[lcd]\nadress = 0x27", "[lcd] adress: unknown key; did you mean 'address'?"),
        ("[speeker]\nrate = 100", "[speeker]: unknown section; did you mean 'speaker'?"),
        ("[pins.leds]\nwhite = 4", "[pins.leds] white: unknown key"),
        ('[lcd]\ncols = "16"', "[lcd] cols: expected a whole number, got the string '16'"),
        ("[lcd]\nenabled = 1", "[lcd] enabled: expected true or false, got the number 1"),
        ("[pins.leds]\nred = true", "[pins.leds] red: expected a whole number, got the boolean"),
        ("[pins.leds]\nred = 28", "[pins.leds] red: 28 is out of range: a GPIO (BCM) number"),
        ("[pins.buttons]\nundo = -1", "[pins.buttons] undo: -1 is out of range"),
        ("[pins.leds]\nred = 17", "[pins.buttons] red: pin 17 is already used by [pins.leds] red"),
        ("[pins.leds]\nred = 2", "[pins.leds] red: pin 2 is I2C SDA, which the LCD needs"),
        ("[pins.leds]\nred = 0", "[pins.leds] red: pin 0 is reserved for the HAT ID EEPROM"),
        ("[pins]\nbounce_time = 2", "[pins] bounce_time: 2 is out of range: 0.0 to 1.0 seconds"),
        ("pins = 3", "[pins]: expected a table"),
        ("[lcd]\naddress = 0x80", "[lcd] address: 128 is out of range: an I2C address"),
        ("[lcd]\ncols = 40", "[lcd] cols: a 40x2 LCD is not supported; use one of 16x2, 20x4"),
        ('[lcd]\ncharmap = "B00"', "[lcd] charmap: 'B00' is not one of A00, A02, ST0B"),
        ('[speaker]\nlanguage = "fr"', "[speaker] language: 'fr' is not one of en, ru, uk, es"),
        ("[speaker]\nrate = 20", "[speaker] rate: 20 is out of range: 80 to 450 words"),
        ('[camera]\nspec = "webcam"', "[camera] spec: unknown camera kind 'webcam'"),
        ('[camera]\nspec = "usb:x"', "[camera] spec: 'usb:x': the camera number must be"),
        ("[camera]\nresolution = [640]", "[camera] resolution: expected [width, height]"),
        ('[camera]\nresolution = ["a", 2]', "[camera] resolution: expected [width, height]"),
        ("[camera]\nfps = 0", "[camera] fps: 0 is out of range: 1.0 to 60.0 frames per second"),
        ('[paths]\nstate_dir = "state"', "[paths] state_dir: 'state' must be an absolute path"),
        ('[game]\nplayers = "ann,bob"', "[game] players: expected a list of names"),
        ('[game]\nplayers = ["ann", "ann"]', "[game] players: the same name twice: ann"),
        ('[game]\nplayers = ["a,b"]', "[game] players: 'a,b' is not a usable name"),
        ('[game]\nplayers = ["ann"]\nbots = ["ann"]', "[game] bots: ann is also a player's name"),
        ('[game]\nmode = "online"', "[game] mode: 'online' is not one of paper, sheet"),
        ("[lcd\ncols = 16", "not valid TOML"),
    ],
)
def test_each_mistake_is_named(text: str, expected: str) -> None:
    problems = problems_of(text)
    assert any(problem.startswith(expected) for problem in problems), problems


def test_i2c_pins_are_free_when_the_lcd_is_disabled() -> None:
    config = parse_config("[lcd]\nenabled = false\n[pins.leds]\nred = 2\n")
    assert config.pins.leds.red == 2


def test_all_problems_are_reported_together() -> None:
    problems = problems_of('[lcd]\ncols = "x"\n[speaker]\nlanguage = "fr"\n[camera]\nfps = -1\n')
    assert len(problems) == 3
    with pytest.raises(ConfigError, match=r"test.toml: 3 problems:\n  - \[lcd\] cols"):
        parse_config(
            '[lcd]\ncols = "x"\n[speaker]\nlanguage = "fr"\n[camera]\nfps = -1\n',
            source="test.toml",
        )


def test_missing_explicit_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "absent.toml")


def test_missing_default_file_means_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(config_module, "DEFAULT_CONFIG_PATH", tmp_path / "absent.toml")
    assert load_config() == Config()
    assert load_config().source is None


def test_default_file_is_read_when_present(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[speaker]\nlanguage = "de"\n')
    monkeypatch.setattr(config_module, "DEFAULT_CONFIG_PATH", path)
    assert load_config().speaker.language == "de"


def test_corrupt_files(tmp_path: Path) -> None:
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(binary)
    torn = tmp_path / "torn.toml"
    torn.write_text('[speaker]\nlanguage = "e')
    with pytest.raises(ConfigError, match=r"torn.toml: 1 problem:\n  - not valid TOML"):
        load_config(torn)
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config(tmp_path)  # a folder


def test_effective_settings_read_back_the_same() -> None:
    config = parse_config(
        '[speaker]\nvoice = "en-us"\n[game]\nplayers = ["ann", "b\\"o"]\n[lcd]\naddress = 0x3F\n'
    )
    assert parse_config(to_toml(config)) == config
    assert "address = 0x3f" in to_toml(config)


pins = st.lists(st.integers(4, 27), min_size=10, max_size=10, unique=True)


@given(pins)
def test_any_distinct_free_pins_load_and_round_trip(chosen: list[int]) -> None:
    leds = dict(zip(("red", "yellow", "green", "blue"), chosen[:4], strict=True))
    buttons = dict(
        zip(("red", "yellow", "green", "blue", "penalty", "undo"), chosen[4:], strict=True)
    )
    text = "[pins.leds]\n" + "".join(f"{k} = {v}\n" for k, v in leds.items())
    text += "[pins.buttons]\n" + "".join(f"{k} = {v}\n" for k, v in buttons.items())
    config = parse_config(text)
    assert config.pins.leds == LedPins(**leds)
    assert config.pins.buttons == ButtonPins(**buttons)
    assert parse_config(to_toml(config)) == config
