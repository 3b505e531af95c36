"""The plain settings the devices are built and probed with.

The devices know nothing of the config file: whoever reads it (the appliance's
:mod:`pi_reader.appliance.device_setup`) hands the devices these values, so the config schema and
the devices can change apart, and importing one never loads the other. They carry no defaults: the
config schema is the one place that has them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class CameraSettings:
    """The camera a spec names (``picamera``, ``usb:N``, ``dir:PATH``, ``video:FILE``) and its
    picture size and frame rate (for live cameras)."""

    spec: str
    resolution: tuple[int, int]
    fps: float


@dataclass(frozen=True)
class SpeakerSettings:
    """espeak-ng's language or explicit voice (None: the language's), words per minute, and
    aplay's ALSA device (None: the default card)."""

    enabled: bool
    language: str
    voice: str | None
    rate: int
    device: str | None

    @property
    def espeak_voice(self) -> str:
        """The voice espeak-ng is asked for."""
        return self.voice or self.language


@dataclass(frozen=True)
class LcdSettings:
    """The character LCD on its I2C backpack; its size is also the console stand-in's."""

    enabled: bool
    address: int
    port: int
    cols: int
    rows: int
    charmap: str


@dataclass(frozen=True)
class GpioSettings:
    """BCM pins of the lock LEDs and the buttons, and the buttons' debounce (None: off)."""

    leds: Mapping[str, int]
    buttons: Mapping[str, int]
    bounce_time: float | None


@dataclass(frozen=True)
class DeviceSettings:
    """Everything :func:`pi_reader.devices.build_devices` and the doctor's probes need."""

    camera: CameraSettings
    speaker: SpeakerSettings
    lcd: LcdSettings
    gpio: GpioSettings
