"""Calibration: learnt from a real calibration frame, saved, loaded, and refused when bad."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pi_reader.vision import calibration as cal
from pi_reader.vision.calibration import Calibration, CalibrationError, CameraSettings, calibrate

from .reader_doubles import label_stages
from .reader_frames import labelled, pixels

SET = "qwixx-rendered"


@pytest.fixture(scope="module")
def learnt(datasets_dir):
    frame = labelled(datasets_dir, SET, "s05/calibration.jpg")
    return calibrate(pixels(frame), label_stages(frame.dice))


def test_a_calibration_frame_gives_every_colour_a_model_and_a_polarity(learnt):
    assert set(learnt.colour_models) == {"white", "red", "yellow", "green", "blue"}
    assert set(learnt.pip_polarity) == set(learnt.colour_models)
    assert 20 < learnt.die_side_px < 80


def test_a_calibration_round_trips_through_its_file(learnt, tmp_path):
    path = tmp_path / "cal.json"
    with_camera = Calibration(
        learnt.die_side_px,
        learnt.colour_models,
        learnt.pip_polarity,
        camera=CameraSettings(12000, 2.5, (1.8, 1.4)),
    )
    with_camera.save(path)
    again = Calibration.load(path)
    assert again.pip_polarity == learnt.pip_polarity
    assert again.die_side_px == pytest.approx(learnt.die_side_px, abs=0.01)
    for name, model in learnt.colour_models.items():
        assert np.allclose(again.colour_models[name].histogram, model.histogram, atol=1e-5)
    assert json.loads(path.read_text())["version"] == 1
    assert again.camera == CameraSettings(12000, 2.5, (1.8, 1.4))
    assert path.stat().st_size < 100_000


def test_calibration_refuses_a_frame_without_six_dice(datasets_dir):
    frame = labelled(datasets_dir, SET, "s00/calibration.jpg")
    with pytest.raises(CalibrationError, match="found 5 dice, need exactly 6") as error:
        calibrate(pixels(frame), label_stages(frame.dice[:5]))
    assert "exposed" not in str(error.value)  # a well-lit frame: the light is not blamed


def test_a_refused_calibration_names_the_light_when_it_is_the_cause(datasets_dir):
    frame = labelled(datasets_dir, SET, "s00/calibration.jpg")
    blown = np.clip(pixels(frame).astype(np.float32) * 3.0, 0, 255).astype(np.uint8)
    with pytest.raises(CalibrationError, match=r"overexposed.*lower the exposure"):
        calibrate(blown)


def test_calibration_refuses_a_die_not_lying_flat(datasets_dir):
    frame = labelled(datasets_dir, SET, "s00/calibration.jpg")
    with pytest.raises(CalibrationError, match="not lying flat"):
        calibrate(pixels(frame), label_stages(frame.dice, cocked=2))


def test_calibration_refuses_six_dice_that_are_not_the_qwixx_colours(datasets_dir):
    # Six dice, but all of them are the white ones (pasted copies): no red, yellow, green, blue.
    frame = labelled(datasets_dir, SET, "s00/calibration.jpg")
    image = pixels(frame)
    white = frame.dice[0]
    x, y, w, h = (round(v) for v in white.box)
    for die in frame.dice[2:]:
        dx, dy = (round(v) for v in die.box[:2])
        image[dy : dy + h, dx : dx + w] = image[y : y + h, x : x + w]
    moved = [
        type(white)(white.colour, white.value, (round(d.box[0]), round(d.box[1]), w, h))
        for d in frame.dice[2:]
    ]
    with pytest.raises(CalibrationError, match="cannot tell the six dice apart"):
        calibrate(image, label_stages([*frame.dice[:2], *moved]))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "corrupt calibration file, not JSON"),
        ('{"hello": 1}', "not a pi-reader calibration"),
        ("[1]", "not a pi-reader calibration"),
        ('{"format": "pi-reader-calibration", "version": 99}', "version 99 is not supported"),
    ],
)
def test_a_corrupt_foreign_or_future_file_is_refused(tmp_path, text, message):
    path = tmp_path / "cal.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=message) as error:
        Calibration.load(path)
    assert str(path) in str(error.value)


def edited(learnt, change):
    data = learnt.to_json()
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(die_side_px=-3), "die_side_px"),
        (lambda d: d["colours"].pop("blue"), "'colours' must have exactly"),
        (lambda d: d["colours"]["red"].update(pip_polarity="grey"), "pip_polarity"),
        (lambda d: d["colours"]["red"]["model"].update(histogram=[[1]]), "colours.red.model"),
        (lambda d: d.update(camera={"exposure_time_us": 0}), "exposure_time_us"),
        (
            lambda d: d.update(
                camera={"exposure_time_us": 5, "analogue_gain": 1, "colour_gains": [1]}
            ),
            "colour_gains",
        ),
    ],
)
def test_every_field_is_validated_on_load(learnt, change, message):
    with pytest.raises(CalibrationError, match=message):
        Calibration.from_json(edited(learnt, change))


def test_an_unreadable_file_is_a_calibration_error(tmp_path):
    with pytest.raises(CalibrationError, match="cannot read"):
        Calibration.load(tmp_path / "missing.json")
    assert cal.VERSION == 1


@pytest.mark.parametrize(
    ("set_name", "image"),
    [
        # Dice far off a tilted camera's axis show side faces as large as half a die.
        ("qwixx-rendered-more", "s00/calibration.jpg"),
        # Two of the dice were laid touching: they are split as a roll's dice would be.
        ("qwixx-rendered-touching", "s03/calibration.jpg"),
        # White dice on a tray the lamp clips white: the learnt detector finds them.
        ("qwixx-rendered-touching", "s04/calibration.jpg"),
    ],
)
def test_calibration_finds_the_six_dice_with_the_real_finder(datasets_dir, set_name, image):
    frame = labelled(datasets_dir, set_name, image)
    learnt = calibrate(pixels(frame))
    label_side = np.median([min(d.box[2], d.box[3]) for d in frame.dice])
    assert 0.7 * label_side < learnt.die_side_px < 1.4 * label_side
