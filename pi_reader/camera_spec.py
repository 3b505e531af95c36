"""Camera spec strings (``picamera``, ``usb:0``, ``dir:PATH``, ``video:FILE``) parsed into values.

A pure value with no device behind it, kept apart from the devices package (and free of OpenCV) so
the config schema can check a spec without importing any device, and the devices' camera choice
(:func:`pi_reader.devices.open_camera`) and the command line parse it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

SPEC_HELP = (
    "a camera spec is one of: 'picamera' (or 'picamera:N' for camera N), 'usb:N' (a USB webcam, "
    "N = 0 for /dev/video0), 'dir:PATH' (a folder of recorded frames), 'video:FILE' (a video file)"
)


class CameraSpecError(ValueError):
    """A camera spec string is malformed or names a file or folder that does not exist.

    Raised by the parser here and by the cameras that find a spec's path missing or unplayable.
    """


class CameraKind(StrEnum):
    """Where frames come from."""

    PICAMERA = "picamera"
    USB = "usb"
    DIRECTORY = "dir"
    VIDEO = "video"


@dataclass(frozen=True)
class CameraSpec:
    """A parsed camera spec: ``index`` for picamera/usb, ``path`` for dir/video."""

    kind: CameraKind
    index: int = 0
    path: Path | None = None

    def __str__(self) -> str:
        if self.kind in (CameraKind.DIRECTORY, CameraKind.VIDEO):
            return f"{self.kind.value}:{self.path}"
        if self.kind is CameraKind.PICAMERA and self.index == 0:
            return "picamera"
        return f"{self.kind.value}:{self.index}"


def parse_camera_spec(spec: str) -> CameraSpec:
    """Parse ``spec``; raises :class:`CameraSpecError` saying what is wrong and what is allowed."""
    if not isinstance(spec, str) or not spec.strip():
        raise CameraSpecError(f"empty camera spec; {SPEC_HELP}")
    kind_text, separator, argument = spec.strip().partition(":")
    try:
        kind = CameraKind(kind_text.lower())
    except ValueError:
        raise CameraSpecError(
            f"unknown camera kind {kind_text!r} in {spec!r}; {SPEC_HELP}"
        ) from None
    if kind in (CameraKind.DIRECTORY, CameraKind.VIDEO):
        if not argument:
            raise CameraSpecError(f"{spec!r} names no path; {SPEC_HELP}")
        return CameraSpec(kind, path=Path(argument).expanduser())
    if not separator and kind is CameraKind.PICAMERA:
        return CameraSpec(kind, index=0)
    if not argument.isdigit():
        raise CameraSpecError(
            f"{spec!r}: the camera number must be a whole number like 0, not {argument!r}; "
            f"{SPEC_HELP}"
        )
    return CameraSpec(kind, index=int(argument))
