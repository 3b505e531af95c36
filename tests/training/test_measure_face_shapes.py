"""The face-shape measure: a flat die under a tilted camera shows the lean of the tilt by its
shape alone, and none against the calibration frame's flat dice; a leaning die shows its lean
against them."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from training import measure_face_shapes as measure

TILT_DEG = 30.0  # the camera's tilt: flat faces foreshortened to cos 30 down the frame


def face(centre, turn_deg, lean_deg=0.0, side=40.0):
    """A top face's corners: a square of ``side`` turned on the table, foreshortened across by
    its lean, then down the frame by the camera's tilt."""
    half = side / 2.0
    square = np.array([(-half, -half), (half, -half), (half, half), (-half, half)])
    square[:, 0] *= math.cos(math.radians(lean_deg))
    t = math.radians(turn_deg)
    turned = square @ np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]]).T
    turned[:, 1] *= math.cos(math.radians(TILT_DEG))
    return (turned + centre).round(3).tolist()


def die(centre, turn_deg, lean_deg=0.0):
    return {"top_face": face(np.array(centre, float), turn_deg, lean_deg), "lean_deg": lean_deg}


@pytest.fixture
def generated(tmp_path):
    root = tmp_path / "dr-test"
    root.mkdir()
    calibration = [die((100 + 150 * k, 100 + 90 * (k % 3)), 17 * k) for k in range(6)]
    roll = [die((300, 200), 40.0), die((500, 300), 10.0, lean_deg=30.0)]
    rows = [{"image": "a00004/calibration.jpg", "dice": calibration},
            {"image": "a00004/roll_001.jpg", "dice": roll}]
    (root / "geometry.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_a_tilted_camera_shows_a_flat_die_leaning_by_its_shape_alone_and_flat_against_calibration(
        generated):
    found = measure.measured(generated)
    [(rendered, alone, against)] = found["flat"]
    assert rendered == 0.0
    assert alone == pytest.approx(TILT_DEG, abs=0.5)
    assert against == pytest.approx(0.0, abs=0.5)


def test_a_leaning_die_shows_its_lean_against_the_calibration(generated):
    [(rendered, _alone, against)] = measure.measured(generated)["cocked"]
    assert rendered == 30.0
    assert against == pytest.approx(30.0, abs=1.0)


def test_the_shape_is_the_same_whichever_way_the_face_is_turned_or_its_corners_are_given():
    corners = face(np.zeros(2), 25.0, lean_deg=20.0)
    shapes = [measure.face_shape(np.roll(corners, k, axis=0)) for k in range(4)]
    shapes.append(measure.face_shape(corners[::-1]))
    assert all(np.allclose(measure.metric(s), measure.metric(shapes[0])) for s in shapes)


def test_a_set_without_geometry_is_a_usage_message(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        measure.main(["--generated", str(tmp_path)])
    assert exit_.value.code == 2
    assert "no generated set" in capsys.readouterr().err


def test_the_report_counts_misses_and_flags_at_each_cut(generated):
    lines = measure.report("dr-test", measure.measured(generated))
    assert "  cut 10: alone misses 0 cocked and flags 1 flat; against the calibration misses 0 " \
           "and flags 0" in lines
