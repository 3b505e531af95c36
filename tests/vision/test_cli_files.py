"""The vision commands never destroy a user's file and answer bad places with one line.

Before these fixes ``read --annotate DIR`` wrote ``DIR/<image name>.jpg`` over the photo when DIR
was the photo's folder and let two inputs of one name overwrite each other, ``calibrate --out``
wrote over its own input, a calibration was written in place (a power cut left a torn file), and
a missing or wrong ``--out`` or ``--annotate`` place, or an image under 16 pixels, ended in a
traceback.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from pi_reader.cli import main
from pi_reader.vision import output_files
from pi_reader.vision.calibration import Calibration
from pi_reader.vision.images import load_frame

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo-game"


@pytest.fixture
def photos(tmp_path):
    """The demo's calibration frame and a roll, copied into two folders under one name."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(DEMO / "roll_001.jpg", tmp_path / folder / "roll.jpg")
    shutil.copy(DEMO / "calibration.jpg", tmp_path / "c.jpg")
    return tmp_path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_annotating_into_the_images_own_folder_leaves_the_photo_alone(photos, capsys):
    before = (photos / "a" / "roll.jpg").read_bytes()
    assert main(["read", "--annotate", str(photos / "a"), str(photos / "a" / "roll.jpg")]) == 0
    assert (photos / "a" / "roll.jpg").read_bytes() == before
    assert load_frame(photos / "a" / "roll.annotated.jpg").shape[:2] == (768, 1024)


def test_two_inputs_of_one_name_give_two_pictures(photos, capsys):
    out = photos / "out"
    images = [str(photos / "a" / "roll.jpg"), str(photos / "b" / "roll.jpg")]
    assert main(["read", "--annotate", str(out), *images]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["a_roll.annotated.jpg", "b_roll.annotated.jpg"]


def test_a_picture_that_would_replace_a_file_is_refused_before_anything_is_read(photos, capsys):
    out = photos / "out"
    out.mkdir()
    (out / "roll.annotated.jpg").write_bytes(b"mine")
    assert main(["read", "--annotate", str(out), str(photos / "a" / "roll.jpg")]) == 2
    assert "exists already" in one_line(capsys.readouterr().err)
    assert (out / "roll.annotated.jpg").read_bytes() == b"mine"


@pytest.mark.parametrize("command", ["read", "replay"])
def test_annotate_onto_a_file_or_an_unwritable_place_is_one_line(photos, capsys, command):
    target = photos / "a" / "roll.jpg"
    argument = str(photos / "a") if command == "replay" else str(target)
    assert main([command, "--annotate", str(target), argument]) == 2
    err = capsys.readouterr().err
    if command == "read":
        assert "is a file, not a folder" in one_line(err)
    if os.geteuid() != 0:  # root writes anywhere
        locked = photos / "locked"
        locked.mkdir(mode=0o500)
        assert main(["read", "--annotate", str(locked / "new"), str(target)]) == 2
        assert "cannot create the folder" in one_line(capsys.readouterr().err)


def test_replay_refuses_to_annotate_over_an_existing_picture(datasets_dir, tmp_path, capsys):
    from .test_cli_vision import small_set

    folder, _ = small_set(datasets_dir, tmp_path, rolls=1)
    out = tmp_path / "mistakes"
    out.mkdir()
    (out / "s00_roll_001.jpg").write_bytes(b"mine")
    assert main(["replay", str(folder), "--annotate", str(out)]) == 2
    assert "exists already" in one_line(capsys.readouterr().err)
    assert (out / "s00_roll_001.jpg").read_bytes() == b"mine"


def test_distinct_inputs_always_get_distinct_picture_names():
    names = output_files.picture_names(
        [Path("/x/a/b_c.jpg"), Path("/x/a_b/c.jpg"), Path("d/e.png"), Path("d/e.png"), Path("e")]
    )
    assert len(set(names)) == 5
    assert all("/" not in name and name.endswith(".annotated.jpg") for name in names)


def test_calibrate_refuses_to_write_over_its_own_image(photos, capsys):
    image = str(photos / "c.jpg")
    before = (photos / "c.jpg").read_bytes()
    assert main(["calibrate", "--image", image, "--out", image]) == 2
    assert "is the image being calibrated" in one_line(capsys.readouterr().err)
    assert (photos / "c.jpg").read_bytes() == before


@pytest.mark.parametrize(
    ("out", "said"),
    [
        ("nowhere/c.json", "no folder"),
        ("a", "is a folder"),
        ("a/roll.jpg", "is not a pi-reader calibration"),
    ],
)
def test_calibrate_refuses_a_bad_out_in_one_line(photos, capsys, out, said):
    before = snapshot(photos)
    assert main(["calibrate", "--image", str(photos / "c.jpg"), "--out", str(photos / out)]) == 2
    assert said in one_line(capsys.readouterr().err)
    assert snapshot(photos) == before


def test_calibrate_replaces_an_older_calibration_whole(photos, capsys, monkeypatch):
    out = photos / "cal.json"
    assert main(["calibrate", "--image", str(photos / "c.jpg"), "--out", str(out)]) == 0
    first = out.read_bytes()
    # A power cut mid-write: the write dies after part of the data. The old file must survive.
    real_fdopen = os.fdopen

    def torn(descriptor, mode="r", *args, **kwargs):
        handle = real_fdopen(descriptor, mode, *args, **kwargs)
        real_write = handle.write

        def write(data):
            real_write(data[:10])
            raise OSError(5, "Input/output error")

        handle.write = write
        return handle

    monkeypatch.setattr(output_files.os, "fdopen", torn)
    assert main(["calibrate", "--image", str(photos / "c.jpg"), "--out", str(out)]) == 1
    assert out.read_bytes() == first
    assert Calibration.load(out).die_side_px > 0
    assert [p.name for p in photos.iterdir() if p.name.startswith(".")] == []  # no temporary left


def test_calibration_save_fsyncs_and_renames(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(output_files.os, "fsync", lambda fd: calls.append("fsync"))
    real_replace = os.replace
    monkeypatch.setattr(
        output_files.os, "replace", lambda a, b: (calls.append("replace"), real_replace(a, b))
    )
    path = tmp_path / "cal.json"
    output_files.write_atomically(path, b"{}\n")
    assert calls[:2] == ["fsync", "replace"] and path.read_bytes() == b"{}\n"


@pytest.mark.parametrize("size", [(10, 10), (15, 400)])
def test_an_image_under_16_pixels_is_one_error_and_the_batch_goes_on(photos, capsys, size):
    tiny = photos / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((*size, 3), np.uint8))
    good = photos / "a" / "roll.jpg"
    assert main(["read", "--json", str(tiny), str(good)]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "too small" in lines[0]["error"] and lines[1]["dice"]
    out = photos / "cal.json"
    assert main(["calibrate", "--image", str(tiny), "--out", str(out)]) == 1
    assert "too small" in one_line(capsys.readouterr().err) and not out.exists()


def test_an_image_of_16_pixels_a_side_is_read(photos, capsys):
    # The contract's least frame (README, docs/reader.md: "under 16 px" is an error line).
    small = photos / "small.png"
    cv2.imwrite(str(small), np.full((16, 16, 3), 128, np.uint8))
    assert main(["read", "--json", str(small)]) == 0
    line = json.loads(capsys.readouterr().out)
    assert "error" not in line and line["dice"] == []


def test_a_folder_given_as_an_image_is_called_a_folder(photos, capsys):
    assert main(["read", str(photos / "a")]) == 1
    assert "a folder, not an image file" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("removed", "said"),
    [("red,yellow,green,blue", "at most 3 dice"), ("red,,blue,red", "red named twice")],
)
def test_removed_names_at_most_three_different_dice(photos, capsys, removed, said):
    with pytest.raises(SystemExit) as exit_:
        main(["read", "--removed", removed, str(photos / "a" / "roll.jpg")])
    assert exit_.value.code == 2
    assert said in capsys.readouterr().err
