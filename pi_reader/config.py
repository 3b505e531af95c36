"""The appliance's one configuration file: TOML read with tomllib, validated into frozen values.

Default location ``/etc/pi-reader/config.toml`` (``--config PATH`` overrides). Every key is
optional: a missing key takes the default documented in ``hardware/config.example.toml``, which
loads to exactly :class:`Config()`. A wrong file is never half-used: every problem found (unknown
section or key, wrong type, pin out of range or used twice, unsupported language, bad camera
spec...) is collected into one :class:`ConfigError` that names the key and what is wrong, so
``pi-reader config check`` can list them all at once.

Pins are BCM GPIO numbers (what gpiozero takes), not header pin positions.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath
from typing import Any

from pi_reader.camera_spec import CameraSpecError, parse_camera_spec

DEFAULT_CONFIG_PATH = Path("/etc/pi-reader/config.toml")
DEFAULT_STATE_DIR = Path("/var/lib/pi-reader")

# Languages the announcements exist in (the appliance's message catalogues) and espeak-ng speaks.
LANGUAGES: tuple[str, ...] = ("en", "ru", "uk", "es", "de", "fa")
LCD_SIZES: tuple[tuple[int, int], ...] = ((16, 2), (20, 4), (16, 4), (20, 2))
LCD_CHARMAPS: tuple[str, ...] = ("A00", "A02", "ST0B")
MODES: tuple[str, ...] = ("paper", "sheet")

# GPIO numbers on the 40-pin header are BCM 0-27. 0 and 1 belong to the HAT ID EEPROM; 2 and 3
# are the I2C bus the LCD sits on.
GPIO_RANGE = range(0, 28)
RESERVED_PINS = {0: "reserved for the HAT ID EEPROM (ID_SD)", 1: "reserved for the HAT ID EEPROM"}
I2C_PINS = {2: "I2C SDA", 3: "I2C SCL"}
MAX_NAME_LENGTH = 20


class _PinMap:
    """A group of named pins, given to the devices as a plain ``{name: pin}`` mapping."""

    def as_dict(self) -> dict[str, int]:
        # fields() wants a dataclass: every subclass is one, this base is not.
        return {item.name: getattr(self, item.name) for item in fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True)
class LedPins(_PinMap):
    """BCM pins of the four lock LEDs."""

    red: int = 5
    yellow: int = 6
    green: int = 13
    blue: int = 26


@dataclass(frozen=True)
class ButtonPins(_PinMap):
    """BCM pins of the six buttons (each closes to ground; internal pull-ups)."""

    red: int = 17
    yellow: int = 27
    green: int = 22
    blue: int = 23
    penalty: int = 24
    undo: int = 25


@dataclass(frozen=True)
class PinsConfig:
    leds: LedPins = field(default_factory=LedPins)
    buttons: ButtonPins = field(default_factory=ButtonPins)
    bounce_time: float = 0.05  # seconds a button is ignored after a press (contact bounce)


@dataclass(frozen=True)
class LcdConfig:
    enabled: bool = True
    address: int = 0x27  # PCF8574 backpacks: 0x27 (PCF8574T) or 0x3F (PCF8574AT)
    port: int = 1
    cols: int = 16
    rows: int = 2
    charmap: str = "A00"


@dataclass(frozen=True)
class SpeakerConfig:
    enabled: bool = True
    language: str = "en"
    voice: str | None = None  # an espeak-ng voice such as "en-us" or "de+f3"; None: the language
    rate: int = 150  # words per minute
    device: str | None = None  # ALSA device for aplay -D; None: the default card


@dataclass(frozen=True)
class CameraConfig:
    spec: str = "picamera"
    resolution: tuple[int, int] = (1024, 768)
    fps: float = 10.0


@dataclass(frozen=True)
class PathsConfig:
    state_dir: Path = DEFAULT_STATE_DIR  # game logs and the calibration file


@dataclass(frozen=True)
class GameConfig:
    """Who plays when the service starts the game (``pi-reader run`` options override it)."""

    players: tuple[str, ...] = ()
    bots: tuple[str, ...] = ()
    mode: str = "paper"


@dataclass(frozen=True)
class WebConfig:
    """The web app (``pi-reader run --web``): where it listens, and the setup page's PIN.

    ``bind`` empty: every address (on a Pi), or only localhost with ``--no-hardware``; ``pin``
    empty: a new PIN is made and printed at every start.
    """

    port: int = 8080
    bind: str = ""
    pin: str = ""


@dataclass(frozen=True)
class Config:
    pins: PinsConfig = field(default_factory=PinsConfig)
    lcd: LcdConfig = field(default_factory=LcdConfig)
    speaker: SpeakerConfig = field(default_factory=SpeakerConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)
    game: GameConfig = field(default_factory=GameConfig)
    web: WebConfig = field(default_factory=WebConfig)
    source: Path | None = field(default=None, compare=False)  # the file read; None: defaults


class ConfigError(Exception):
    """The config file cannot be used; ``problems`` lists every reason, one sentence each."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = tuple(problems)
        count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
        listing = "\n".join(f"  - {problem}" for problem in problems)
        super().__init__(f"{source}: {count}:\n{listing}")


def load_config(path: Path | str | None = None) -> Config:
    """Read and validate a config file.

    ``path=None`` means the default location, and a missing default file means "all defaults"
    (a laptop has no /etc/pi-reader). A path given explicitly must exist.
    """
    if path is None:
        if not DEFAULT_CONFIG_PATH.exists():
            return Config()
        path = DEFAULT_CONFIG_PATH
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(str(path), ["no such file"]) from None
    except OSError as error:
        raise ConfigError(str(path), [f"cannot be read: {error.strerror or error}"]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(str(path), [f"not UTF-8 text (byte {error.start})"]) from None
    return parse_config(text, source=path)


def parse_config(text: str, source: Path | str = "<config>") -> Config:
    """Validate TOML text into a Config; ConfigError lists everything wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(str(source), [f"not valid TOML: {error}"]) from None
    except RecursionError:
        raise ConfigError(str(source), ["arrays or tables nested too deeply"]) from None
    problems: list[str] = []
    root = _Table("", data, problems)
    config = Config(
        pins=_read_pins(root.table("pins")),
        lcd=_read_lcd(root.table("lcd")),
        speaker=_read_speaker(root.table("speaker")),
        camera=_read_camera(root.table("camera")),
        paths=_read_paths(root.table("paths")),
        game=_read_game(root.table("game")),
        web=_read_web(root.table("web")),
        source=Path(source) if isinstance(source, Path) else None,
    )
    root.finish()
    problems.extend(_pin_conflicts(config))
    if problems:
        raise ConfigError(str(source), problems)
    return config


def to_toml(config: Config) -> str:
    """The effective settings as TOML that :func:`parse_config` reads back to the same Config."""
    lines: list[str] = []
    for section in (
        "pins",
        "pins.leds",
        "pins.buttons",
        "lcd",
        "speaker",
        "camera",
        "paths",
        "game",
        "web",
    ):
        value: Any = config
        for part in section.split("."):
            value = getattr(value, part)
        items = [
            (item.name, getattr(value, item.name))
            for item in fields(value)
            if f"{section}.{item.name}" not in ("pins.leds", "pins.buttons")
        ]
        lines.append(f"[{section}]")
        for key, item in items:
            if item is None:
                item = ""  # TOML has no null; "" reads back as "not set"
            lines.append(f"{key} = {_toml_value(key, item)}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(key: str, value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:#04x}" if key == "address" else str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(key, item) for item in value) + "]"
    text = str(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Table:
    """One TOML table being read: typed getters that record problems and remember used keys."""

    def __init__(self, name: str, data: Mapping[str, Any], problems: list[str]) -> None:
        self.name = name
        self.data = data
        self.problems = problems
        self.used: set[str] = set()
        self.children: list[_Table] = []

    def where(self, key: str) -> str:
        return f"[{self.name}] {key}" if self.name else f"[{key}]"

    def problem(self, key: str, message: str) -> None:
        self.problems.append(f"{self.where(key)}: {message}")

    def raw(self, key: str) -> Any:
        self.used.add(key)
        return self.data.get(key)

    def table(self, key: str) -> _Table:
        value = self.raw(key)
        name = f"{self.name}.{key}" if self.name else key
        if value is None:
            value = {}
        elif not isinstance(value, dict):
            self.problems.append(
                f"[{name}]: expected a table (a [{name}] section), got {_kind(value)}"
            )
            value = {}
        child = _Table(name, value, self.problems)
        self.children.append(child)
        return child

    def integer(self, key: str, default: int, allowed: range | None = None, what: str = "") -> int:
        value = self.raw(key)
        if value is None:
            return default
        if not isinstance(value, int) or isinstance(value, bool):
            self.problem(key, f"expected a whole number, got {_kind(value)}")
            return default
        if allowed is not None and value not in allowed:
            self.problem(key, f"{value} is out of range: {what or _describe_range(allowed)}")
            return default
        return value

    def number(self, key: str, default: float, low: float, high: float, unit: str) -> float:
        value = self.raw(key)
        if value is None:
            return default
        if not isinstance(value, int | float) or isinstance(value, bool):
            self.problem(key, f"expected a number, got {_kind(value)}")
            return default
        if not low <= value <= high:
            self.problem(key, f"{value} is out of range: {low} to {high} {unit}")
            return default
        return float(value)

    def boolean(self, key: str, default: bool) -> bool:
        value = self.raw(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.problem(key, f"expected true or false, got {_kind(value)}")
            return default
        return value

    def string(self, key: str, default: str, choices: tuple[str, ...] = ()) -> str:
        value = self.raw(key)
        if value is None:
            return default
        if not isinstance(value, str):
            self.problem(key, f"expected a string, got {_kind(value)}")
            return default
        if choices and value not in choices:
            self.problem(key, f"{value!r} is not one of {', '.join(choices)}")
            return default
        return value

    def optional_string(self, key: str) -> str | None:
        """A string where "" (or leaving the key out) means "not set"."""
        value = self.string(key, "")
        return value or None

    def names(self, key: str) -> tuple[str, ...]:
        value = self.raw(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            self.problem(key, f'expected a list of names like ["ann", "bob"], got {_kind(value)}')
            return ()
        names = tuple(item.strip() for item in value)
        for name in names:
            if not name or len(name) > MAX_NAME_LENGTH or not name.isprintable() or "," in name:
                self.problem(
                    key,
                    f"{name!r} is not a usable name (1 to {MAX_NAME_LENGTH} printable characters, "
                    "no commas)",
                )
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            self.problem(key, f"the same name twice: {', '.join(duplicates)}")
        return names

    def finish(self) -> None:
        """Report keys nobody asked for (typos, or settings this version does not know)."""
        for key in self.data:
            if key not in self.used:
                close = difflib.get_close_matches(key, sorted(self.used), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                known = ", ".join(sorted(self.used))
                if self.name:
                    self.problem(key, f"unknown key{hint} (known keys: {known})")
                else:
                    self.problems.append(f"[{key}]: unknown section{hint} (sections: {known})")
        for child in self.children:
            child.finish()


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def _describe_range(allowed: range) -> str:
    return f"{allowed.start} to {allowed.stop - 1}"


def _read_pins(table: _Table) -> PinsConfig:
    def read(sub: _Table, defaults: LedPins | ButtonPins) -> dict[str, int]:
        what = "a GPIO (BCM) number from 0 to 27"
        return {
            item.name: sub.integer(item.name, getattr(defaults, item.name), GPIO_RANGE, what)
            for item in fields(defaults)
        }

    leds = LedPins(**read(table.table("leds"), LedPins()))
    buttons = ButtonPins(**read(table.table("buttons"), ButtonPins()))
    bounce_time = table.number("bounce_time", PinsConfig.bounce_time, 0.0, 1.0, "seconds")
    return PinsConfig(leds=leds, buttons=buttons, bounce_time=bounce_time)


def _read_lcd(table: _Table) -> LcdConfig:
    default = LcdConfig()
    cols = table.integer("cols", default.cols)
    rows = table.integer("rows", default.rows)
    if (cols, rows) not in LCD_SIZES:
        sizes = ", ".join(f"{c}x{r}" for c, r in LCD_SIZES)
        table.problem("cols", f"a {cols}x{rows} LCD is not supported; use one of {sizes}")
        cols, rows = default.cols, default.rows
    return LcdConfig(
        enabled=table.boolean("enabled", default.enabled),
        address=table.integer(
            "address", default.address, range(0x03, 0x78), "an I2C address from 0x03 to 0x77"
        ),
        port=table.integer("port", default.port, range(0, 32), "an I2C bus number (1 on a Pi)"),
        cols=cols,
        rows=rows,
        charmap=table.string("charmap", default.charmap, LCD_CHARMAPS),
    )


def _read_speaker(table: _Table) -> SpeakerConfig:
    default = SpeakerConfig()
    return SpeakerConfig(
        enabled=table.boolean("enabled", default.enabled),
        language=table.string("language", default.language, LANGUAGES),
        voice=table.optional_string("voice"),
        rate=table.integer("rate", default.rate, range(80, 451), "80 to 450 words per minute"),
        device=table.optional_string("device"),
    )


def _read_camera(table: _Table) -> CameraConfig:
    default = CameraConfig()
    spec = table.string("spec", default.spec)
    try:
        parse_camera_spec(spec)
    except CameraSpecError as error:
        table.problem("spec", str(error))
        spec = default.spec
    resolution = default.resolution
    raw = table.raw("resolution")
    if raw is not None:
        if (
            isinstance(raw, list)
            and len(raw) == 2
            and all(isinstance(side, int) and not isinstance(side, bool) for side in raw)
            and 64 <= raw[0] <= 4608
            and 64 <= raw[1] <= 3496
        ):
            resolution = (raw[0], raw[1])
        else:
            table.problem(
                "resolution",
                f"expected [width, height] in pixels (64 to 4608 by 64 to 3496), got {raw!r}",
            )
    return CameraConfig(
        spec=spec,
        resolution=resolution,
        fps=table.number("fps", default.fps, 1.0, 60.0, "frames per second"),
    )


def _read_paths(table: _Table) -> PathsConfig:
    default = PathsConfig()
    text = table.string("state_dir", str(default.state_dir))
    if not PurePosixPath(text).is_absolute():
        table.problem("state_dir", f"{text!r} must be an absolute path like /var/lib/pi-reader")
        text = str(default.state_dir)
    return PathsConfig(state_dir=Path(text))


def _read_game(table: _Table) -> GameConfig:
    players = table.names("players")
    bots = table.names("bots")
    clashes = sorted(set(players) & set(bots))
    if clashes:
        table.problem("bots", f"{', '.join(clashes)} is also a player's name")
    return GameConfig(players=players, bots=bots, mode=table.string("mode", GameConfig.mode, MODES))


def _read_web(table: _Table) -> WebConfig:
    default = WebConfig()
    pin = table.string("pin", default.pin)
    if pin and not (pin.isascii() and pin.isdigit() and 4 <= len(pin) <= 12):
        table.problem(
            "pin", f'{pin!r} is not a PIN: 4 to 12 digits (or "" for a new one at each start)'
        )
        pin = default.pin
    return WebConfig(
        port=table.integer("port", default.port, range(1, 65536), "a TCP port"),
        bind=table.string("bind", default.bind),
        pin=pin,
    )


def _pin_uses(config: Config) -> Iterator[tuple[str, int]]:
    for group, pins in (("leds", config.pins.leds), ("buttons", config.pins.buttons)):
        for name, pin in pins.as_dict().items():
            yield f"[pins.{group}] {name}", pin


def _pin_conflicts(config: Config) -> list[str]:
    """Pins used twice, reserved, or taken by the LCD's I2C bus."""
    problems: list[str] = []
    first_use: dict[int, str] = {}
    for where, pin in _pin_uses(config):
        if pin in RESERVED_PINS:
            problems.append(f"{where}: pin {pin} is {RESERVED_PINS[pin]}")
        elif pin in I2C_PINS and config.lcd.enabled:
            problems.append(f"{where}: pin {pin} is {I2C_PINS[pin]}, which the LCD needs")
        if pin in first_use:
            problems.append(f"{where}: pin {pin} is already used by {first_use[pin]}")
        else:
            first_use[pin] = where
    return problems
