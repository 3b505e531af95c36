"""The pip reader on drawn faces, on a handful of labelled dice, and on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from pi_reader.vision.pips import (
    MIN_CONFIDENCE,
    estimate_polarity,
    read_face,
    read_face_classical,
)
from tests.vision.face_drawing import PIP_CELLS, draw_face


@pytest.mark.parametrize("polarity", ["dark", "light"])
@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 17.0, 45.0, 71.0])
def test_drawn_face_is_read(value: int, polarity: str, angle: float) -> None:
    image, box = draw_face(value, polarity=polarity, angle_deg=angle)
    reading = read_face(image, box)
    assert reading.value == value
    assert reading.polarity == polarity
    assert reading.confidence >= MIN_CONFIDENCE
    assert len(reading.pip_centres) == value


def test_pip_centres_are_in_input_coordinates() -> None:
    image, box = draw_face(1, angle_deg=0.0, canvas=400)
    shifted = np.full((600, 700, 3), (60, 110, 40), np.uint8)
    shifted[150:550, 250:650] = image
    x, y, w, h = box
    reading = read_face(shifted, (x + 250, y + 150, w, h))
    assert reading.value == 1
    (cx, cy), = reading.pip_centres
    assert abs(cx - 450) < 2 and abs(cy - 350) < 2


def test_large_real_size_die_is_read() -> None:
    """A die 200 px across (a phone photo) is scaled down before reading."""
    image, box = draw_face(5, angle_deg=30.0, side=200, canvas=500)
    assert read_face(image, box).value == 5


def test_a_polarity_hint_never_makes_a_wrong_value() -> None:
    image, box = draw_face(4, polarity="light", angle_deg=10.0)
    assert read_face(image, box, polarity="light").value == 4
    # A wrong hint finds no dark-pip layout; the reading may still come from the classifier,
    # but never as another value.
    assert read_face(image, box, polarity="dark").value in (4, None)


def test_known_die_side_reins_in_a_loose_box() -> None:
    image, box = draw_face(6, angle_deg=0.0, side=40, canvas=200)
    x, y, w, h = box
    loose = (x - 40, y - 40, w + 80, h + 80)  # three times the die
    assert read_face(image, loose, die_side_px=40.0).value == 6


def test_an_underestimated_die_side_does_not_spoil_a_tight_box() -> None:
    image, box = draw_face(5, angle_deg=30.0, side=60)
    assert read_face(image, box, die_side_px=45.0).value == 5  # a quarter short


@pytest.mark.parametrize("reader", [read_face, read_face_classical])
def test_an_unsure_reading_says_where_the_face_is(reader) -> None:
    """A box a third of a die off: the reading says where the top face's middle lies, so the
    reader can move the box there (see reader._read_on_the_face); the classical reader alone
    (no weights installed) says so too."""
    image, box = draw_face(6, polarity="dark", angle_deg=20.0, canvas=200)
    x, y, w, h = box
    reading = reader(image, (x + 0.3 * w, y + 0.15 * h, w, h))
    assert reading.face_centre is not None
    fx, fy = reading.face_centre
    assert abs(fx - 100) < 0.1 * w and abs(fy - 100) < 0.1 * h


def test_pips_on_a_side_face_are_not_counted() -> None:
    """A die seen obliquely: top face with 2 pips, a foreshortened side face below with 6."""
    image, _ = draw_face(2, angle_deg=0.0, side=60, canvas=160)
    side = np.array([[50, 110], [110, 110], [104, 128], [56, 128]], np.int32)
    cv2.fillConvexPoly(image, side, (190, 190, 190), cv2.LINE_AA)
    for cell in PIP_CELLS[6]:
        cx = 80 + cell[0] * 15
        cy = 119 + cell[1] * 4
        cv2.ellipse(image, (cx, cy), (4, 2), 0, 0, 360, (20, 20, 20), -1, cv2.LINE_AA)
    box = (50, 50, 61, 79)  # top face and the side face, as a projected 3D box would be
    reading = read_face(image, box)
    assert reading.value == 2
    assert all(y < 111 for _, y in reading.pip_centres)


@pytest.mark.parametrize("value", [5, 6])
@pytest.mark.parametrize("tray", [(235, 210, 205), (200, 200, 200)])
def test_a_pale_tray_does_not_join_a_white_face(value: int, tray: tuple[int, int, int]) -> None:
    """A white die on a pale tray, seen obliquely: the tray, nearly the face's colour, touches
    the face round the die. Taken for face, it would wrap the dark side face into the top face
    (qwixx-rendered s06 has such dice)."""
    image, _ = draw_face(value, side=60, canvas=160, ground_bgr=tray)
    cv2.fillConvexPoly(image, np.array([[50, 110], [110, 110], [110, 135], [50, 135]], np.int32),
                       (40, 70, 30), cv2.LINE_AA)
    box = (50, 50, 61, 86)  # top face and side face
    assert read_face_classical(image, box).value == value


@pytest.mark.parametrize("polarity", ["dark", "light"])
def test_blank_face_is_not_read(polarity: str) -> None:
    image, box = draw_face(None, polarity=polarity)
    reading = read_face(image, box)
    assert reading.value is None
    assert reading.confidence < MIN_CONFIDENCE


def test_noise_is_not_read() -> None:
    noise = np.random.default_rng(3).integers(0, 256, (120, 120, 3), dtype=np.uint8)
    reading = read_face(noise, (30, 30, 60, 60))
    assert reading.value is None
    assert reading.confidence < MIN_CONFIDENCE


def test_plain_tray_is_not_read() -> None:
    tray = np.full((120, 120, 3), (40, 90, 30), np.uint8)
    reading = read_face(tray, (30, 30, 60, 60))
    assert reading.value is None
    assert reading.confidence < 0.2
    assert reading.pip_centres == ()


@pytest.mark.parametrize("polarity", ["dark", "light"])
def test_estimate_polarity(polarity: str) -> None:
    image, box = draw_face(3, polarity=polarity, angle_deg=25.0)
    assert estimate_polarity(image, box) == polarity


@pytest.mark.parametrize(
    ("image", "box", "message"),
    [
        (np.zeros((50, 50, 3), np.uint8), (10, 10, 0, 20), "empty"),
        (np.zeros((50, 50, 3), np.uint8), (60, 10, 20, 20), "outside"),
        (np.zeros((50, 50, 3), np.uint8), (-30, 10, 20, 20), "outside"),
        (np.zeros((50, 50, 3), np.float32), (10, 10, 20, 20), "uint8"),
        (np.zeros((50, 50), np.uint8), (10, 10, 20, 20), "BGR"),
        (np.zeros((50, 50, 3), np.uint8), (10, 10, 20), "four"),
        (np.zeros((50, 50, 3), np.uint8), (10, 10, float("nan"), 20), "four"),
        ("not an image", (10, 10, 20, 20), "uint8"),
    ],
)
def test_bad_input_is_a_clear_error(image: object, box: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_face(image, box)  # type: ignore[arg-type]


def test_bad_polarity_and_die_side_are_errors() -> None:
    image, box = draw_face(3)
    with pytest.raises(ValueError, match="polarity"):
        read_face(image, box, polarity="grey")
    with pytest.raises(ValueError, match="die_side_px"):
        read_face(image, box, die_side_px=-3.0)


# Frames the shipped classifier never trained on (its training held out one real photo in five,
# by a hash of the file name, and whole rendered scenarios).
def _labelled_dice(datasets_dir: Path, set_name: str, images: set[str]) -> list[tuple]:
    found = []
    with (datasets_dir / set_name / "labels.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record["image"] not in images:
                continue
            frame = cv2.imread(str(datasets_dir / set_name / record["image"]))
            found += [(frame, d["box"], d["value"]) for d in record["dice"] if d["value"]]
    return found


@pytest.mark.parametrize(
    ("set_name", "images"),
    [
        ("qwixx-rendered", {"s00/roll_001.jpg", "s05/roll_002.jpg"}),
        ("real-d6-overhead", {"images/IMG_20191208_111246.jpg", "images/IMG_20191208_111339.jpg"}),
    ],
)
def test_held_out_dice_are_read(
    datasets_dir: Path, set_name: str, images: set
) -> None:
    dice = _labelled_dice(datasets_dir, set_name, images)
    assert dice, "the chosen frames are missing from the shared set"
    readings = [(read_face(frame, box), value) for frame, box, value in dice]
    wrong = [(r.value, v) for r, v in readings if r.value is not None and r.value != v]
    # One die of IMG_20191208_111246 shows three pips in a row but is labelled 2; the reader
    # says 3. Labels are not edited, so one disagreement is allowed.
    assert len(wrong) <= 1
    assert sum(r.value == v for r, v in readings) >= 0.8 * len(readings)
