"""All the devices of one appliance, built from their settings, with stand-ins for missing ones.

A missing LCD, speaker or GPIO at start must not stop the game: :func:`build_devices` puts a
console stand-in in its place and returns a :class:`DeviceWarning` for it, which the appliance
says (or shows) once. The camera is only constructed here, not started: starting it, and
retrying while it is unavailable, is the appliance loop's job.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, TextIO

from pi_reader.devices.camera import Camera
from pi_reader.devices.camera_choice import open_camera
from pi_reader.devices.display import ConsoleDisplay, Display, LcdDisplay
from pi_reader.devices.errors import (
    DeviceError,
    DisplayUnavailable,
    GpioUnavailable,
    SpeakerUnavailable,
)
from pi_reader.devices.gpio import ButtonPanel, Buttons, ConsoleLeds, FakeButtons, Leds, LockLeds
from pi_reader.devices.settings import DeviceSettings, LcdSettings, SpeakerSettings
from pi_reader.devices.speaker import EspeakSpeaker, PrintSpeaker, Speaker

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DeviceWarning:
    """A device that was missing at start and replaced by a stand-in.

    ``device`` is ``"speaker"``, ``"display"``, ``"leds"`` or ``"buttons"`` (for the appliance's
    message catalogue); ``detail`` is the technical reason with the fix, for the log.
    """

    device: str
    detail: str

    def __str__(self) -> str:
        return f"{self.device}: {self.detail}"


@dataclass
class Devices:
    """The appliance's devices; ``warnings`` lists those replaced by stand-ins at start."""

    camera: Camera
    speaker: Speaker
    display: Display
    leds: Leds
    buttons: ButtonPanel
    warnings: tuple[DeviceWarning, ...] = field(default=())

    def close(self) -> None:
        """Stop the camera and close everything else; one failing close does not skip the rest."""
        for action in (
            self.camera.stop,
            self.buttons.close,
            self.leds.close,
            self.display.close,
            self.speaker.close,
        ):
            try:
                action()
            except (DeviceError, OSError) as error:
                log.warning("closing a device failed: %s", error)


def build_devices(
    settings: DeviceSettings,
    *,
    no_hardware: bool = False,
    loop: bool = False,
    stream: TextIO | None = None,
    pin_factory: Any = None,
) -> Devices:
    """The devices ``settings`` describe.

    ``no_hardware``: console display, printed speech (``SAY: ...``), printed LED states, buttons
    only pressed by code; the camera is still the one the spec names (``--camera dir:...``).
    ``loop`` replays a recorded source forever. ``stream`` is where console stand-ins print
    (stdout by default); ``pin_factory`` goes to gpiozero (tests pass a MockFactory).

    Raises CameraSpecError for a malformed camera spec or a recording that does not exist.
    """
    camera = open_camera(
        settings.camera.spec,
        resolution=settings.camera.resolution,
        fps=settings.camera.fps,
        loop=loop,
    )
    if no_hardware:
        return Devices(
            camera=camera,
            speaker=PrintSpeaker(stream),
            display=ConsoleDisplay(settings.lcd.cols, settings.lcd.rows, stream),
            leds=ConsoleLeds(stream),
            buttons=FakeButtons(),
        )
    warnings: list[DeviceWarning] = []
    speaker = _speaker(settings.speaker, stream, warnings)
    display = _display(settings.lcd, stream, warnings)
    gpio = settings.gpio
    leds: Leds
    try:
        leds = LockLeds(gpio.leds, pin_factory=pin_factory)
    except GpioUnavailable as error:
        warnings.append(DeviceWarning("leds", str(error)))
        leds = ConsoleLeds(stream)
    buttons: ButtonPanel
    try:
        buttons = Buttons(gpio.buttons, bounce_time=gpio.bounce_time, pin_factory=pin_factory)
    except GpioUnavailable as error:
        warnings.append(DeviceWarning("buttons", str(error)))
        buttons = FakeButtons()
    for warning in warnings:
        log.warning("%s missing, using a stand-in: %s", warning.device, warning.detail)
    return Devices(camera, speaker, display, leds, buttons, tuple(warnings))


def _speaker(
    settings: SpeakerSettings, stream: TextIO | None, warnings: list[DeviceWarning]
) -> Speaker:
    if not settings.enabled:
        return PrintSpeaker(stream)
    try:
        return EspeakSpeaker(
            settings.language, voice=settings.voice, rate=settings.rate, device=settings.device
        )
    except SpeakerUnavailable as error:
        warnings.append(DeviceWarning("speaker", str(error)))
        return PrintSpeaker(stream)


def _display(
    settings: LcdSettings, stream: TextIO | None, warnings: list[DeviceWarning]
) -> Display:
    if settings.enabled:
        try:
            return LcdDisplay(
                address=settings.address,
                port=settings.port,
                cols=settings.cols,
                rows=settings.rows,
                charmap=settings.charmap,
            )
        except DisplayUnavailable as error:
            warnings.append(DeviceWarning("display", str(error)))
    return ConsoleDisplay(settings.cols, settings.rows, stream)
