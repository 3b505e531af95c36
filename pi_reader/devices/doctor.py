"""``pi-reader doctor``'s probes: is each device there, does it work, and if not, how to fix it.

Each probe returns a :class:`Check` with a status: OK (works), MISSING (not installed, not
connected or not enabled: the fix is to add it) or FAIL (present but not working). The probes
take their system calls as parameters (``which``, ``run``, ``bus_class``...) so tests can play
every situation without the hardware, and plain settings (:mod:`pi_reader.devices.settings`), not
the config file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from pi_reader.devices.camera import Camera
from pi_reader.devices.camera_choice import open_camera
from pi_reader.devices.errors import (
    CameraExhausted,
    CameraSoftwareMissing,
    CameraSpecError,
    CameraUnavailable,
    GpioUnavailable,
)
from pi_reader.devices.gpio import Buttons, LockLeds
from pi_reader.devices.picamera import INSTALL_HINT
from pi_reader.devices.settings import (
    CameraSettings,
    DeviceSettings,
    GpioSettings,
    LcdSettings,
    SpeakerSettings,
)

Which = Callable[[str], str | None]
Run = Callable[..., subprocess.CompletedProcess[bytes]]
PROBE_TIMEOUT = 20.0  # seconds: espeak-ng and aplay answer in well under a second


class Status(StrEnum):
    OK = "OK"
    MISSING = "MISSING"
    FAIL = "FAIL"


@dataclass(frozen=True)
class Check:
    """One probe's verdict: what was checked, what was found, and how to fix it if not OK."""

    name: str
    status: Status
    detail: str
    fix: str = ""

    def lines(self) -> list[str]:
        """Human-readable: ``OK       camera    ...`` and an indented ``fix:`` line when needed."""
        lines = [f"{self.status.value:<8} {self.name:<9} {self.detail}"]
        if self.fix:
            lines.append(f"{'':18} fix: {self.fix}")
        return lines


def check_camera(
    settings: CameraSettings, *, opener: Callable[..., Camera] = open_camera
) -> Check:
    """The camera opens and delivers one frame of the expected format."""
    spec = settings.spec
    try:
        camera = opener(spec, resolution=settings.resolution, fps=settings.fps)
        with camera:
            frame = camera.capture()
    except CameraSpecError as error:
        return Check("camera", Status.FAIL, str(error), "set [camera] spec in the config")
    except CameraSoftwareMissing as error:
        # The message carries the install command; a cable is not the fault here.
        return Check("camera", Status.MISSING, str(error), INSTALL_HINT)
    except CameraUnavailable as error:
        return Check(
            "camera",
            Status.MISSING,
            str(error),
            "reseat the camera's ribbon cable at both ends and check "
            "'rpicam-hello --list-cameras'; stop the service first if it is running",
        )
    except CameraExhausted as error:
        return Check("camera", Status.FAIL, str(error), "point [camera] spec at recorded frames")
    height, width = frame.shape[:2]
    return Check("camera", Status.OK, f"{spec}: captured a {width}x{height} frame")


def _speech_probe(
    name: str,
    program: str,
    package: str,
    settings: SpeakerSettings,
    probe: tuple[Which, Run, list[str]],
) -> subprocess.CompletedProcess[bytes] | Check:
    """What ``program`` answered to ``arguments``, or the verdict when speech is off, the program
    is not installed, or it could not run at all. ``probe`` is ``(which, run, arguments)``."""
    which, run, arguments = probe
    if not settings.enabled:
        return Check(name, Status.OK, "speech disabled in the config ([speaker] enabled)")
    binary = which(program)
    if binary is None:
        return Check(
            name, Status.MISSING, f"{program} is not installed", f"sudo apt install {package}"
        )
    try:
        return run([binary, *arguments], capture_output=True, timeout=PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        return Check(
            name,
            Status.FAIL,
            f"{program} did not run: {error}",
            f"sudo apt install --reinstall {package}",
        )


def check_espeak(
    settings: SpeakerSettings, *, which: Which = shutil.which, run: Run = subprocess.run
) -> Check:
    """espeak-ng is installed and renders the configured voice to a WAV file."""
    voice = settings.espeak_voice
    with tempfile.TemporaryDirectory(prefix="pi-reader-doctor-") as folder:
        wav = Path(folder) / "probe.wav"
        probe = (which, run, ["-v", voice, "-w", str(wav), "7"])
        result = _speech_probe("espeak", "espeak-ng", "espeak-ng", settings, probe)
        if isinstance(result, Check):
            return result
        header = wav.read_bytes()[:4] if wav.exists() else b""
    if result.returncode != 0 or header != b"RIFF":
        message = result.stderr.decode("utf-8", "replace").strip() or f"exit {result.returncode}"
        return Check(
            "espeak",
            Status.FAIL,
            f"espeak-ng cannot speak voice {voice!r}: {message}",
            "pick a voice from 'espeak-ng --voices' for [speaker] voice/language",
        )
    return Check("espeak", Status.OK, f"espeak-ng renders voice {voice!r}")


def check_aplay(
    settings: SpeakerSettings, *, which: Which = shutil.which, run: Run = subprocess.run
) -> Check:
    """aplay is installed and ALSA sees a sound card to play on."""
    result = _speech_probe("aplay", "aplay", "alsa-utils", settings, (which, run, ["-l"]))
    if isinstance(result, Check):
        return result
    listing = (result.stdout + result.stderr).decode("utf-8", "replace")
    cards = [line for line in listing.splitlines() if line.startswith("card ")]
    if not cards:
        return Check(
            "aplay",
            Status.MISSING,
            "no sound card found",
            "plug in the USB speaker, or enable the I2S amplifier's overlay in "
            "/boot/firmware/config.txt (hardware/WIRING.md); the user needs the audio group",
        )
    device = settings.device or "the default card"
    return Check("aplay", Status.OK, f"{len(cards)} sound card(s); playing on {device}")


def _smbus_class() -> Any:
    from smbus2 import SMBus

    return SMBus


def check_lcd(
    lcd: LcdSettings,
    *,
    bus_class: Callable[[int], Any] | None = None,
    dev_dir: Path = Path("/dev"),
) -> Check:
    """The I2C bus exists and something answers at the LCD's address."""
    if not lcd.enabled:
        return Check("lcd", Status.OK, "LCD disabled in the config ([lcd] enabled)")
    device = dev_dir / f"i2c-{lcd.port}"
    if not device.exists():
        return Check(
            "lcd",
            Status.MISSING,
            f"no I2C bus {device}",
            "enable I2C: sudo raspi-config nonint do_i2c 0, then reboot",
        )
    bus_class = bus_class or _smbus_class()
    try:
        bus = bus_class(lcd.port)
    except OSError as error:
        return Check(
            "lcd",
            Status.FAIL,
            f"cannot open {device}: {error}",
            "add the user to the i2c group (sudo usermod -aG i2c $USER)",
        )
    try:
        bus.read_byte(lcd.address)
    except OSError as error:
        return Check(
            "lcd",
            Status.MISSING,
            f"nothing answers at {lcd.address:#04x} on {device} ({error})",
            f"check the wiring (hardware/WIRING.md), then 'i2cdetect -y {lcd.port}' "
            "and set [lcd] address to the number it shows",
        )
    finally:
        bus.close()
    return Check("lcd", Status.OK, f"a device answers at {lcd.address:#04x} on {device}")


def check_gpio(gpio: GpioSettings, *, pin_factory: Any = None) -> Check:
    """gpiozero can claim every configured LED and button pin."""
    from gpiozero.exc import BadPinFactory, PinFactoryFallback

    leds: LockLeds | None = None
    try:
        with warnings.catch_warnings():  # the fallbacks tried are noise; the verdict says it all
            warnings.simplefilter("ignore", PinFactoryFallback)
            leds = LockLeds(gpio.leds, pin_factory=pin_factory)
            Buttons(gpio.buttons, pin_factory=pin_factory).close()
    except GpioUnavailable as error:
        if isinstance(error.__cause__, BadPinFactory):
            return Check(
                "gpio",
                Status.MISSING,
                str(error),
                "sudo apt install python3-lgpio, and make the venv with "
                "--system-site-packages (hardware/install.sh); lgpio also needs a writable "
                "working directory (run from your home folder or /var/lib/pi-reader)",
            )
        return Check(
            "gpio",
            Status.FAIL,
            str(error),
            "stop the service (sudo systemctl stop pi-reader) or fix the pins in [pins]",
        )
    finally:
        if leds is not None:
            leds.close()
    return Check("gpio", Status.OK, "4 LED and 6 button pins claimed and released")


def check_state_dir(folder: Path) -> Check:
    """The state folder (game logs, calibration) exists and this user can write to it."""
    if not folder.is_dir():
        return Check(
            "state",
            Status.MISSING,
            f"no folder {folder}",
            "systemd creates it on the service's first start (StateDirectory=); "
            f"or: sudo install -d -o pi-reader -g pi-reader {folder}",
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        return Check(
            "state",
            Status.FAIL,
            f"{folder} is not writable by this user",
            "run as the service user: sudo -u pi-reader pi-reader doctor",
        )
    return Check("state", Status.OK, f"{folder} is writable")


def run_checks(settings: DeviceSettings, state_dir: Path) -> list[Check]:
    """Every probe, in the order a person would fix things."""
    return [
        check_camera(settings.camera),
        check_espeak(settings.speaker),
        check_aplay(settings.speaker),
        check_lcd(settings.lcd),
        check_gpio(settings.gpio),
        check_state_dir(state_dir),
    ]


def all_ok(checks: Sequence[Check]) -> bool:
    return all(check.status is Status.OK for check in checks)
