"""The live form of ``pi-reader calibrate`` (no ``--image``): calibrate from the camera.

``pi_reader.cli.vision`` owns the ``calibrate`` command and hands over to
:func:`run_live_calibration` when no image is given. The calibration goes to the state folder
(``<state dir>/calibration.json``, where ``pi-reader run`` looks for it) unless ``--out`` says
otherwise, with a check image beside it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pi_reader.config import ConfigError, load_config
from pi_reader.devices import CameraError, CameraSpecError, open_camera
from pi_reader.vision.calibration import FORMAT as CALIBRATION_FORMAT
from pi_reader.vision.calibration import CalibrationError
from pi_reader.vision.output_files import OutputError, check_calibration_target

CALIBRATION_FILE = "calibration.json"
EXIT_FAILED = 1
EXIT_USAGE = 2


def add_live_options(parser: argparse.ArgumentParser) -> None:
    """``--camera`` (and ``--config`` when the parser lacks it) for the live form."""
    parser.add_argument(
        "--camera", metavar="SPEC", help="live form: the camera (default: the config's)"
    )
    if not any("--config" in action.option_strings for action in parser._actions):
        parser.add_argument("--config", type=Path, metavar="PATH", help="the TOML config file")


def run_live_calibration(args: argparse.Namespace) -> int:
    try:
        config = load_config(getattr(args, "config", None))
    except ConfigError as error:
        print(f"pi-reader calibrate: {error}", file=sys.stderr)
        return EXIT_USAGE
    out: Path = args.out or config.paths.state_dir / CALIBRATION_FILE
    try:
        check_calibration_target(out, CALIBRATION_FORMAT, None)
    except OutputError as error:
        print(f"pi-reader calibrate: {error}", file=sys.stderr)
        return EXIT_USAGE
    from pi_reader.appliance.live_calibration import calibrate_live

    try:
        camera = open_camera(
            args.camera or config.camera.spec,
            resolution=config.camera.resolution,
            fps=config.camera.fps,
        )
        calibration, check = calibrate_live(camera, out)
    except (CameraError, CameraSpecError, CalibrationError, OSError) as error:
        print(f"pi-reader calibrate: {error}", file=sys.stderr)
        return EXIT_FAILED
    frozen = "camera settings frozen" if calibration.camera else "camera has no manual controls"
    print(f"calibrated: die side {calibration.die_side_px:.0f} px; {frozen}; written to {out}")
    print(f"check image: {check}")
    return 0
