"""The camera interface and the frame format every camera delivers.

Every camera yields frames as OpenCV does: ``numpy.uint8`` arrays of shape ``(height, width, 3)``
in **BGR** order, C-contiguous. A camera is started before use and stopped after, or used as a
context manager (``with open_camera("usb:0") as camera: frame = camera.capture()``); which camera
a spec names is chosen in :mod:`pi_reader.devices.camera_choice`, above the implementations.

Errors (see :mod:`pi_reader.devices.errors`): :class:`CameraUnavailable` when the device cannot be
opened or stops answering (the appliance stops it and starts it again with back-off),
:class:`CameraExhausted` when a recorded source has no more frames (the game ends cleanly),
:class:`CameraNotStarted` for ``capture()`` outside ``start()``/``stop()``.

Live calibration freezes the picture: ``auto_controls()`` reads the values auto exposure and auto
white balance settled on, ``apply_controls(...)`` switches the automatics off and applies stored
values. Cameras that cannot (``supports_controls`` is false) return ``None`` and ignore the call.
"""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, Self, TypedDict, runtime_checkable

import numpy as np

DEFAULT_RESOLUTION: tuple[int, int] = (1024, 768)
DEFAULT_FPS = 10.0


class ExposureControls(TypedDict):
    """The values that fix a camera's picture: what calibration stores and re-applies."""

    exposure_time_us: int
    analogue_gain: float
    colour_gains: tuple[float, float]  # (red gain, blue gain), as libcamera's ColourGains


@runtime_checkable
class Camera(Protocol):
    """A source of BGR frames. See the module docstring for the contract."""

    supports_controls: bool

    def start(self) -> None:
        """Open the device (or the recording). Raises CameraUnavailable or CameraSpecError."""

    def capture(self) -> np.ndarray:
        """The next frame: uint8, shape (height, width, 3), BGR."""
        ...

    def stop(self) -> None:
        """Release the device; safe to call twice or without start()."""

    def apply_controls(
        self, exposure_time_us: int, analogue_gain: float, colour_gains: tuple[float, float]
    ) -> None:
        """Turn the automatics off and fix these values (a no-op if unsupported)."""

    def auto_controls(self) -> ExposureControls | None:
        """The values the automatics settled on, or None when the camera cannot tell."""
        ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...


class CameraBase:
    """Context-manager plumbing and the default "no controls" behaviour shared by the cameras."""

    supports_controls = False

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def apply_controls(
        self, exposure_time_us: int, analogue_gain: float, colour_gains: tuple[float, float]
    ) -> None:
        """Cameras without manual controls ignore the request."""

    def auto_controls(self) -> ExposureControls | None:
        return None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def as_bgr_frame(image: np.ndarray) -> np.ndarray:
    """Bring a decoded image to the frame contract (uint8 HxWx3 BGR, contiguous).

    Grey images are widened and an alpha channel is dropped, so a recording made with another tool
    still reads; anything else is a ValueError naming the shape and type.
    """
    if image.dtype != np.uint8:
        raise ValueError(f"a frame must be uint8, not {image.dtype}")
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = image[:, :, :3]
    elif image.ndim == 3 and image.shape[2] == 1:
        image = np.repeat(image, 3, axis=2)
    if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] == 0 or image.shape[1] == 0:
        raise ValueError(f"a frame must be height x width x 3, not {image.shape}")
    return np.ascontiguousarray(image)
