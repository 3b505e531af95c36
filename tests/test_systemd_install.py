"""hardware/install.sh: valid bash, shellcheck-clean, installs what the unit expects."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "hardware" / "install.sh"


def test_parses_as_bash() -> None:
    result = subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True, text=True, timeout=30)
    assert (result.returncode, result.stderr) == (0, "")


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck absent")
def test_shellcheck_clean() -> None:
    result = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout) == (0, "")


def test_help_and_a_bad_option_change_nothing() -> None:
    shown = subprocess.run(["bash", str(SCRIPT), "--help"], capture_output=True, text=True)
    assert shown.returncode == 0 and "sudo hardware/install.sh" in shown.stdout
    bad = subprocess.run(["bash", str(SCRIPT), "--frobnicate"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown option: --frobnicate" in bad.stderr


def test_installs_what_the_unit_and_the_appliance_need() -> None:
    text = SCRIPT.read_text()
    for package in ("python3-picamera2", "python3-lgpio", "espeak-ng", "alsa-utils"):
        assert package in text
    assert "--system-site-packages" in text
    assert "raspi-config nonint do_i2c 0" in text
    assert "opencv-python-headless<4.12" in text  # the numpy 1.24 pitfall (pi-stack notes)
    for group in ("video", "gpio", "i2c", "audio"):
        assert group in text
    unit = (REPO / "systemd" / "pi-reader.service").read_text()
    assert "/opt/pi-reader/venv/bin/pi-reader" in unit  # the path the script rewrites
    assert "config.example.toml" in text and (REPO / "hardware" / "config.example.toml").is_file()
