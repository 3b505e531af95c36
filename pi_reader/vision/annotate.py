"""Drawing a reading on its frame: boxes, values and colours, and labels where they disagree.

Every text is drawn once, in one colour, on a plain plate of a contrasting one. A text drawn
twice (a dark halo under it) was legible with OpenCV 4, but OpenCV 5 spaces the letters of a
thicker stroke wider, so the halo and the text no longer line up and smear into each other
("green 30.57"). The problems go in a band above the frame, where they cover no die.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from pi_reader.rules import Colour
from pi_reader.vision.recorded import LabelledDie
from pi_reader.vision.types import WHITE, RollReading

# Outline colours (BGR) per die colour, chosen to stand out on any tray.
_OUTLINE = {
    WHITE: (255, 255, 255),
    Colour.RED: (40, 40, 230),
    Colour.YELLOW: (0, 220, 255),
    Colour.GREEN: (60, 200, 60),
    Colour.BLUE: (230, 120, 30),
}
_UNKNOWN = (200, 0, 200)
_LABEL = (0, 0, 0)
_PROBLEM = (90, 90, 255)
_DARK_PLATE = (0, 0, 0)
_LIGHT_PLATE = (255, 255, 255)
FONT = cv2.FONT_HERSHEY_SIMPLEX
SCALE = 0.45
PAD = 3  # pixels of plate round a text
LINE = 18  # pixels from one problem line to the next
JPEG_QUALITY = 90


def annotate(
    frame: np.ndarray, reading: RollReading, labels: Sequence[LabelledDie] = ()
) -> np.ndarray:
    """The frame with every die read drawn on it, under a band listing its problems.

    ``labels`` (from a recorded set) are drawn as thin black boxes with the expected colour and
    value under them, so a picture of a mistake shows what should have been read. Without
    problems there is no band: the picture is the frame's size and its coordinates.
    """
    picture = frame.copy()
    for label in labels:
        x, y, w, h = (round(v) for v in label.box)
        cv2.rectangle(picture, (x, y), (x + w, y + h), _LABEL, 1)
        said = "unreadable" if label.unreadable else "?" if label.value is None else label.value
        draw_label(picture, f"{label.colour or '?'} {said}", x, _LABEL, below=y + h + 2)
    for die in reading.dice:
        x, y, w, h = die.box
        outline = _OUTLINE.get(die.colour, _UNKNOWN)
        cv2.rectangle(picture, (x, y), (x + w, y + h), outline, 2)
        value = "?" if die.value is None else str(die.value)
        text = f"{die.colour} {value} {die.confidence:.2f}"
        draw_label(picture, text, x, outline, above=y - 2, below=y + h + 3)
    if not reading.problems:
        return picture
    band = _problem_band([problem.message for problem in reading.problems], frame.shape[1])
    return np.vstack([band, picture])


def encode_jpeg(picture: np.ndarray) -> bytes:
    """The picture as the bytes of a JPEG file."""
    ok, encoded = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:  # pragma: no cover - OpenCV encodes any BGR uint8 image
        raise ValueError("the picture cannot be encoded as JPEG")
    return encoded.tobytes()


def plate_for(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    """The plate a text of ``colour`` reads best on: black or white, whichever contrasts more
    (WCAG's contrast ratio; every outline colour here gets at least 4.5, the "AA" level)."""
    brightness = _luminance(colour)
    on_black, on_white = (brightness + 0.05) / 0.05, 1.05 / (brightness + 0.05)
    return _DARK_PLATE if on_black >= on_white else _LIGHT_PLATE


def _luminance(bgr: tuple[int, int, int]) -> float:
    """Relative luminance of an sRGB colour given as B, G, R (0..255)."""
    linear = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in
              (c / 255 for c in bgr)]
    blue, green, red = linear
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def draw_label(
    picture: np.ndarray,
    text: str,
    x: int,
    colour: tuple[int, int, int],
    *,
    above: int | None = None,
    below: int = 0,
) -> None:
    """``text`` on its plate at ``x``: ending at row ``above`` when given and there is room,
    else starting at row ``below``; moved inside the picture when it would stick out."""
    (width, height), baseline = cv2.getTextSize(text, FONT, SCALE, 1)
    plate_w, plate_h = width + 2 * PAD, height + baseline + 2 * PAD
    top = above - plate_h if above is not None and above >= plate_h else below
    top = min(max(0, top), max(0, picture.shape[0] - plate_h))
    left = min(max(0, x), max(0, picture.shape[1] - plate_w))
    corner = (left + plate_w - 1, top + plate_h - 1)
    cv2.rectangle(picture, (left, top), corner, plate_for(colour), -1)
    origin = (left + PAD, top + PAD + height)
    cv2.putText(picture, text, origin, FONT, SCALE, colour, 1, cv2.LINE_AA)


def _problem_band(messages: Sequence[str], width: int) -> np.ndarray:
    """A dark band as wide as the frame with each message wrapped to fit it."""
    lines = [line for message in messages for line in _wrapped(message, width - 2 * PAD - 8)]
    band = np.full((LINE * len(lines) + 2 * PAD + 4, width, 3), _DARK_PLATE, np.uint8)
    for number, line in enumerate(lines):
        origin = (8, PAD + 14 + LINE * number)
        cv2.putText(band, line, origin, FONT, SCALE, _PROBLEM, 1, cv2.LINE_AA)
    return band


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` cut at spaces into lines no wider than ``width`` pixels (a word longer than a
    line keeps its own line)."""
    lines: list[str] = []
    for word in text.split():
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and cv2.getTextSize(joined, FONT, SCALE, 1)[0][0] <= width:
            lines[-1] = joined
        else:
            lines.append(word)
    return lines or [""]
