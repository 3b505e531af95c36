"""Live calibration: automatics settled then frozen, calibration saved with them, check image."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from pi_reader.appliance.live_calibration import calibrate_live
from pi_reader.cli import main
from pi_reader.devices import FakeCamera
from pi_reader.vision.calibration import Calibration, CalibrationError

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo-game"
AUTO = {"exposure_time_us": 12000, "analogue_gain": 1.5, "colour_gains": (1.9, 1.6)}


def test_calibrates_from_the_camera_and_stores_the_frozen_settings(tmp_path: Path) -> None:
    frame = cv2.imread(str(DEMO / "calibration.jpg"))
    camera = FakeCamera([frame], loop=True, auto_values=AUTO)  # type: ignore[arg-type]
    out = tmp_path / "calibration.json"
    calibration, check = calibrate_live(camera, out, settle_seconds=0.0, sleep=lambda s: None)
    assert camera.applied_controls == [AUTO]
    assert json.loads(out.read_text())["camera"] == {
        "exposure_time_us": 12000,
        "analogue_gain": 1.5,
        "colour_gains": [1.9, 1.6],
    }
    assert Calibration.load(out).camera == calibration.camera
    assert check == tmp_path / "calibration-check.jpg" and cv2.imread(str(check)) is not None
    assert not camera.running


def test_a_frame_without_the_six_dice_writes_nothing(tmp_path: Path) -> None:
    empty_tray = np.full((768, 1024, 3), (60, 120, 70), np.uint8)
    out = tmp_path / "calibration.json"
    out.write_text("the previous calibration")
    with pytest.raises(CalibrationError):
        calibrate_live(FakeCamera([empty_tray], loop=True), out, 0.0, lambda s: None)
    assert out.read_text() == "the previous calibration"


def test_the_calibrate_command_without_image_uses_the_camera(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["calibrate", "--camera", "usb:x", "--out", str(tmp_path / "c.json")])
    assert status != 0
    assert "pi-reader calibrate:" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()
