"""The devices' exceptions: one class per thing that can go wrong, so callers can tell them apart.

Everything derives from :class:`DeviceError`. The appliance treats the ``*Unavailable`` errors as
"this device is not there (now)": it retries the camera with back-off and runs on without a
missing speaker or display. Misuse (using a closed device, an unknown colour) has its own classes,
in the spirit of gpiozero's ``GPIODeviceClosed``.

:class:`CameraSpecError` is the one exception: a ``ValueError`` defined with the camera spec in
:mod:`pi_reader.camera_spec` (the config schema raises it too, and must not import devices), and
re-exported here for the cameras that raise it.
"""

from __future__ import annotations

from pi_reader.camera_spec import CameraSpecError as CameraSpecError


class DeviceError(Exception):
    """Base class of every device error."""


class DeviceClosed(DeviceError):
    """A device was used after ``close()``."""


class CameraError(DeviceError):
    """Base class of the camera errors."""


class CameraUnavailable(CameraError):
    """The camera cannot be opened or stopped delivering frames (unplugged, busy, driver gone).

    The condition may pass: the appliance closes the camera and opens it again with back-off.
    """


class CameraSoftwareMissing(CameraUnavailable):
    """The camera's Python package (picamera2) is not installed: no cable will fix that."""


class CameraExhausted(CameraError):
    """A recorded source (folder or video file) has no more frames: the game stops cleanly."""


class CameraNotStarted(CameraError):
    """``capture()`` was called before ``start()`` (or after ``stop()``)."""


class SpeakerUnavailable(DeviceError):
    """The speech synthesiser or the audio player is missing."""


class DisplayUnavailable(DeviceError):
    """The character LCD does not answer on its I2C address (or the I2C bus is missing)."""


class GpioUnavailable(DeviceError):
    """No GPIO pin factory can drive the pins (not a Raspberry Pi, or lgpio missing)."""


class UnknownColour(DeviceError, ValueError):
    """A colour that has no lock LED or lock button (only red, yellow, green and blue do)."""


class UnknownButton(DeviceError, ValueError):
    """A button name other than the four colours, ``penalty`` and ``undo``."""
