"""The devices the config file describes: its sections turned into the devices' own settings.

The one place that knows both the config schema (:mod:`pi_reader.config`) and the devices'
settings (:mod:`pi_reader.devices.settings`); ``pi-reader run`` builds its devices here and
``pi-reader doctor`` probes them with the same settings.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TextIO, TypeVar

from pi_reader.config import Config
from pi_reader.devices.bundle import Devices, build_devices
from pi_reader.devices.settings import (
    CameraSettings,
    DeviceSettings,
    GpioSettings,
    LcdSettings,
    SpeakerSettings,
)

S = TypeVar("S", SpeakerSettings, LcdSettings)


def device_settings(config: Config, *, camera_spec: str | None = None) -> DeviceSettings:
    """The devices' settings from ``config``; ``camera_spec`` (``--camera``) overrides its spec."""
    camera, pins = config.camera, config.pins
    return DeviceSettings(
        camera=CameraSettings(
            spec=camera_spec or camera.spec, resolution=camera.resolution, fps=camera.fps
        ),
        speaker=_same_names(SpeakerSettings, config.speaker),
        lcd=_same_names(LcdSettings, config.lcd),
        gpio=GpioSettings(
            leds=pins.leds.as_dict(),
            buttons=pins.buttons.as_dict(),
            bounce_time=pins.bounce_time or None,  # 0 in the file: no debounce
        ),
    )


def _same_names(settings: type[S], section: object) -> S:
    """``settings`` filled from the config section's keys of the same names (the speaker's and
    the LCD's settings are their config sections' keys, one for one)."""
    return settings(**{item.name: getattr(section, item.name) for item in fields(settings)})


def open_devices(
    config: Config,
    *,
    no_hardware: bool = False,
    camera_spec: str | None = None,
    loop: bool = False,
    stream: TextIO | None = None,
    pin_factory: Any = None,
) -> Devices:
    """The devices ``config`` describes (see :func:`pi_reader.devices.build_devices`)."""
    return build_devices(
        device_settings(config, camera_spec=camera_spec),
        no_hardware=no_hardware,
        loop=loop,
        stream=stream,
        pin_factory=pin_factory,
    )
