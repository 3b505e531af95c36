"""``pi-reader doctor``: probe every device; say what works, what is missing, how to fix it."""

from __future__ import annotations

import argparse
import sys

from pi_reader.appliance.device_setup import device_settings
from pi_reader.cli.config import add_config_option
from pi_reader.config import ConfigError, load_config
from pi_reader.devices import doctor
from pi_reader.devices.doctor import Check, Status
from pi_reader.vision import weights
from pi_reader.vision.stages import default_stages


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="probe the camera, speech, sound card, LCD, GPIO and state folder",
        description="Probe each device; exit status 0 only when every probe is OK. Stop the "
        "service first (sudo systemctl stop pi-reader): it holds the camera and the pins.",
    )
    add_config_option(parser)
    parser.add_argument(
        "--camera", metavar="SPEC", default=None, help="probe this camera instead of the config's"
    )
    parser.set_defaults(func=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as error:
        print(f"{'FAIL':<8} {'config':<9} {error}", file=sys.stderr)
        print(
            f"{'':18} fix: correct the file; 'pi-reader config check' lists the problems",
            file=sys.stderr,
        )
        return 1
    source = config.source or "built-in defaults (no config file)"
    print(f"{'OK':<8} {'config':<9} {source}")
    settings = device_settings(config, camera_spec=args.camera)
    checks = [*doctor.run_checks(settings, config.paths.state_dir), check_reader_weights()]
    for check in checks:
        for line in check.lines():
            print(line)
    if doctor.all_ok(checks):
        print("all devices OK")
        return 0
    print("some devices need attention (see 'fix:' above)")
    return 1


def check_reader_weights(*, generic: bool = True) -> Check:
    """The reader's trained weights are installed and load: without them no die can be read.
    The calibrated mode's networks are loaded, and with ``generic`` the generic mode's too: the
    running appliance reads calibrated frames only, and would hold the others for nothing."""
    fix = "reinstall pi-reader from a checkout that has models/ (sudo hardware/install.sh)"
    gone = weights.missing()
    if gone:
        return Check(
            "weights",
            Status.MISSING,
            f"{', '.join(str(path) for path in gone)} not found: the reader cannot find or read "
            "dice without its trained networks",
            fix,
        )
    try:
        for calibrated in (True, False) if generic else (True,):
            default_stages(calibrated=calibrated)  # loaded once: the reads that follow use them
    except weights.WeightsUnreadable as error:
        return Check("weights", Status.FAIL, str(error), fix)
    return Check("weights", Status.OK,
                 "dice detectors, face classifier and lean gauge installed")
