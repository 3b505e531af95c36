"""The service unit: the settings the appliance relies on, and ``systemd-analyze verify``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "pi-reader.service"
INSTALLED_BINARY = "/opt/pi-reader/venv/bin/pi-reader"


def unit_settings() -> dict[str, list[str]]:
    """Key -> values over all sections (systemd allows repeated keys, so configparser won't do)."""
    settings: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        settings.setdefault(key, []).append(value)
    return settings


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("Type", "notify"),
        ("Restart", "on-failure"),
        ("User", "pi-reader"),
        ("NoNewPrivileges", "yes"),
        ("ProtectSystem", "strict"),
        ("ProtectHome", "yes"),
        ("PrivateTmp", "yes"),
        ("StateDirectory", "pi-reader"),
        ("ConfigurationDirectory", "pi-reader"),
        ("WantedBy", "multi-user.target"),
    ],
)
def test_required_setting(key: str, value: str) -> None:
    assert unit_settings()[key] == [value]


def test_groups_for_camera_gpio_i2c_and_sound() -> None:
    assert set(unit_settings()["SupplementaryGroups"][0].split()) == {
        "video",
        "gpio",
        "i2c",
        "audio",
    }


def test_watchdog_is_set_and_the_appliance_runs_from_the_venv() -> None:
    settings = unit_settings()
    assert int(settings["WatchdogSec"][0]) > 0
    assert settings["ExecStart"] == [
        f"{INSTALLED_BINARY} run --config /etc/pi-reader/config.toml --web"
    ]
    assert "PrivateDevices" not in settings  # the camera, GPIO, I2C and sound are devices


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze absent")
def test_systemd_analyze_verify_is_clean(tmp_path: Path) -> None:
    # verify fails when ExecStart's binary is missing: point it at a stand-in that exists.
    binary = tmp_path / "pi-reader"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    unit = tmp_path / "pi-reader.service"
    unit.write_text(UNIT.read_text().replace(INSTALLED_BINARY, str(binary)))
    result = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    # verify exits 0 on unknown or misspelt keys and only complains on stderr: that fails too.
    assert (result.returncode, result.stderr, result.stdout) == (0, "", "")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze absent")
def test_verify_would_catch_a_typo(tmp_path: Path) -> None:
    """Guards the guard: a misspelt key shows up on stderr even though the exit status is 0."""
    binary = tmp_path / "pi-reader"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    unit = tmp_path / "pi-reader.service"
    text = UNIT.read_text().replace(INSTALLED_BINARY, str(binary))
    unit.write_text(text.replace("ProtectHome=yes", "ProtectHome=yes\nProtectHomme=yes"))
    result = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert "ProtectHomme" in result.stderr
