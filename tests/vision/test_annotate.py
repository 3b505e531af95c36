"""Annotated pictures must be readable: each label one rendering of its text on a plain plate
of a contrasting colour, and the problems in a band that covers no die.

With OpenCV 5 the old labels (a thick dark halo under a thin coloured text) came out drawn twice
with different letter spacing, smeared ("green 30.57"), and the problem lines were drawn over the
top of the frame, on whatever die lay there.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from pi_reader.rules import Colour
from pi_reader.vision.annotate import FONT, SCALE, annotate
from pi_reader.vision.types import WHITE, DieReading, Problem, ProblemKind, RollReading

GREY = 128


def frame() -> np.ndarray:
    return np.full((300, 400, 3), GREY, np.uint8)


def die(colour, box=(150, 150, 40, 40), value=3, confidence=0.57):
    x, y, w, h = box
    return DieReading(colour, value, box, (x + w / 2, y + h / 2), confidence)


def luminance(bgr) -> float:
    """Relative luminance (WCAG) of an sRGB colour given as B, G, R."""
    channels = []
    for value in reversed([float(v) / 255 for v in bgr]):
        channels.append(value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4)
    red, green, blue = channels
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(a, b) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def label_region(picture: np.ndarray, above_y: int) -> np.ndarray:
    """The pixels drawn above a die's box (everything there that is not the grey frame)."""
    area = picture[: above_y - 2]
    drawn = np.argwhere(np.any(area != GREY, axis=2))
    (top, left), (bottom, right) = drawn.min(axis=0), drawn.max(axis=0)
    return area[top : bottom + 1, left : right + 1]


@pytest.mark.parametrize("colour", [WHITE, *Colour, "unknown"])
def test_a_die_label_is_one_rendering_of_its_text_on_a_plain_contrasting_plate(colour):
    reading = RollReading((die(colour),), ())
    picture = annotate(frame(), reading)
    region = label_region(picture, 150).reshape(-1, 3).astype(int)
    values, counts = np.unique(region, axis=0, return_counts=True)
    plate = values[counts.argmax()]
    ink = region[np.abs(region - plate).max(axis=1) > 40]
    # The ink is the text's colour, blended into the plate at the letters' edges: it lies on the
    # segment from the plate to the brightest-contrast ink, never another colour drawn under it.
    text = ink[np.abs(ink - plate).sum(axis=1).argmax()]
    direction = (text - plate) / np.linalg.norm(text - plate)
    offsets = ink - plate
    off_line = np.linalg.norm(offsets - np.outer(offsets @ direction, direction), axis=1)
    assert np.percentile(off_line, 95) < 30
    assert contrast(plate, text) >= 4.5
    # Drawn once: as wide as one rendering of the text, not one shifted against another.
    label = f"{colour} 3 0.57"
    (width, _), _ = cv2.getTextSize(label, FONT, SCALE, 1)
    columns = np.argwhere(
        np.abs(label_region(picture, 150).astype(int) - plate).max(axis=2) > 40
    )[:, 1]
    assert columns.max() - columns.min() + 1 <= width + 2


def test_problems_go_in_a_band_above_the_frame_and_cover_no_die():
    image = frame()
    image[5:45, 10:50] = (40, 40, 200)  # a red die at the very top of the frame
    reading = RollReading(
        (die(Colour.RED, box=(10, 5, 40, 40)),),
        (
            Problem(ProblemKind.MISSING_DIE, "the green die is missing " * 4, Colour.GREEN),
            Problem(ProblemKind.BLURRED, "the frame is blurred"),
        ),
    )
    picture = annotate(image, reading)
    band = picture.shape[0] - image.shape[0]
    assert band >= 3 * 18  # the long message wrapped onto two lines, then the second problem
    inside = picture[band + 8 : band + 42, 13:47]  # the die, inside its outline and label
    assert np.array_equal(inside, image[8:42, 13:47])
    # The label went under the die (no room above it); nothing else is drawn on the frame.
    assert np.array_equal(picture[band + 75 :], image[75:])


def test_without_problems_the_picture_keeps_the_frames_size():
    picture = annotate(frame(), RollReading((die(WHITE),), ()))
    assert picture.shape == frame().shape
