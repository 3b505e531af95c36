"""``pi-reader doctor``: each probe's OK / MISSING / FAIL with a fix, and the exit status."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np
import pytest
from gpiozero import Device
from gpiozero.exc import BadPinFactory
from gpiozero.pins.mock import MockFactory

from pi_reader.appliance.device_setup import device_settings
from pi_reader.cli import main
from pi_reader.cli.doctor import check_reader_weights
from pi_reader.config import Config, parse_config
from pi_reader.devices import doctor
from pi_reader.devices.doctor import Check, Status
from pi_reader.devices.fake_camera import FakeCamera
from pi_reader.devices.settings import CameraSettings, DeviceSettings
from pi_reader.vision import weights


def frames_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), np.zeros((48, 64, 3), np.uint8))
    return folder


def camera_settings(spec: str | None = None) -> CameraSettings:
    """The default config's camera, or the one ``spec`` names (as ``--camera`` does)."""
    return device_settings(Config(), camera_spec=spec).camera


class TestCamera:
    def test_ok_with_a_frame(self, tmp_path: Path) -> None:
        check = doctor.check_camera(camera_settings(f"dir:{frames_folder(tmp_path)}"))
        assert check.status is Status.OK
        assert "captured a 64x48 frame" in check.detail

    def test_missing_camera(self) -> None:
        def opener(spec: str, **_: Any) -> FakeCamera:
            return FakeCamera([], fail_starts=1)

        check = doctor.check_camera(camera_settings(), opener=opener)
        assert check.status is Status.MISSING
        assert "rpicam-hello --list-cameras" in check.fix

    def test_bad_spec_and_empty_recording(self, tmp_path: Path) -> None:
        assert doctor.check_camera(camera_settings("dir:/nowhere")).status is Status.FAIL
        check = doctor.check_camera(camera_settings(f"dir:{tmp_path}"))
        assert (check.status, check.detail) == (
            Status.FAIL,
            f"dir:{tmp_path}: no readable frames in the folder",
        )

    def test_real_picamera_is_missing_here(self) -> None:
        try:
            import picamera2  # noqa: F401
        except ImportError:
            check = doctor.check_camera(camera_settings())
            assert check.status is Status.MISSING
            # Before: "reseat the camera's ribbon cable" for a Python package not installed.
            assert "python3-picamera2" in check.fix and "ribbon" not in check.fix
        else:
            pytest.skip("picamera2 is installed: this machine may have a camera")


def completed(code: int, stdout: bytes = b"", stderr: bytes = b"") -> Any:
    return subprocess.CompletedProcess([], code, stdout, stderr)


class TestSpeech:
    def test_espeak_missing(self) -> None:
        check = doctor.check_espeak(device_settings(Config()).speaker, which=lambda name: None)
        assert (check.status, check.fix) == (Status.MISSING, "sudo apt install espeak-ng")

    def test_espeak_unknown_voice(self) -> None:
        def run(command: list[str], **_: Any) -> Any:
            return completed(1, stderr=b"Error: voice does not exist")

        config = parse_config('[speaker]\nvoice = "klingon"\n')
        check = doctor.check_espeak(
            device_settings(config).speaker, which=lambda name: "/usr/bin/espeak-ng", run=run
        )
        assert check.status is Status.FAIL
        assert "voice 'klingon'" in check.detail and "voice does not exist" in check.detail

    def test_espeak_renders_a_wav(self) -> None:
        def run(command: list[str], **_: Any) -> Any:
            Path(command[command.index("-w") + 1]).write_bytes(b"RIFF....WAVE")
            return completed(0)

        check = doctor.check_espeak(
            device_settings(Config()).speaker, which=lambda name: "/usr/bin/espeak-ng", run=run
        )
        assert check.status is Status.OK

    @pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng absent")
    def test_real_espeak_renders_every_language(self) -> None:
        for language in ("en", "ru", "uk", "es", "de", "fa"):
            config = parse_config(f'[speaker]\nlanguage = "{language}"\n')
            assert doctor.check_espeak(device_settings(config).speaker).status is Status.OK, (
                language
            )

    def test_aplay_missing(self) -> None:
        check = doctor.check_aplay(device_settings(Config()).speaker, which=lambda name: None)
        assert (check.status, check.fix) == (Status.MISSING, "sudo apt install alsa-utils")

    def test_no_sound_card(self) -> None:
        def run(command: list[str], **_: Any) -> Any:
            return completed(1, stderr=b"aplay: device_list:274: no soundcards found...")

        check = doctor.check_aplay(
            device_settings(Config()).speaker, which=lambda name: "/usr/bin/aplay", run=run
        )
        assert check.status is Status.MISSING and "USB speaker" in check.fix

    def test_a_sound_card(self) -> None:
        listing = b"**** List of PLAYBACK Hardware Devices ****\ncard 1: Device [USB Audio]\n"

        def run(command: list[str], **_: Any) -> Any:
            assert command[1:] == ["-l"]
            return completed(0, stdout=listing)

        config = parse_config('[speaker]\ndevice = "plughw:1,0"\n')
        check = doctor.check_aplay(
            device_settings(config).speaker, which=lambda name: "/usr/bin/aplay", run=run
        )
        assert (check.status, check.detail) == (
            Status.OK,
            "1 sound card(s); playing on plughw:1,0",
        )

    def test_disabled_speech_is_fine(self) -> None:
        config = parse_config("[speaker]\nenabled = false\n")
        assert (
            doctor.check_espeak(device_settings(config).speaker, which=lambda name: None).status
            is Status.OK
        )
        assert (
            doctor.check_aplay(device_settings(config).speaker, which=lambda name: None).status
            is Status.OK
        )


class Bus:
    answering: ClassVar[set[int]] = set()
    opened: ClassVar[list[int]] = []

    def __init__(self, port: int) -> None:
        Bus.opened.append(port)

    def read_byte(self, address: int) -> int:
        if address not in Bus.answering:
            raise OSError(121, "Remote I/O error")
        return 0

    def close(self) -> None:
        pass


class TestLcd:
    def test_no_i2c_bus(self, tmp_path: Path) -> None:
        check = doctor.check_lcd(device_settings(Config()).lcd, bus_class=Bus, dev_dir=tmp_path)
        assert check.status is Status.MISSING and "raspi-config nonint do_i2c 0" in check.fix

    def test_nothing_at_the_address(self, tmp_path: Path) -> None:
        (tmp_path / "i2c-1").touch()
        Bus.answering = {0x3F}
        check = doctor.check_lcd(device_settings(Config()).lcd, bus_class=Bus, dev_dir=tmp_path)
        assert check.status is Status.MISSING
        assert "nothing answers at 0x27" in check.detail and "i2cdetect -y 1" in check.fix

    def test_lcd_answers(self, tmp_path: Path) -> None:
        (tmp_path / "i2c-1").touch()
        Bus.answering = {0x3F}
        config = parse_config("[lcd]\naddress = 0x3F\n")
        assert (
            doctor.check_lcd(device_settings(config).lcd, bus_class=Bus, dev_dir=tmp_path).status
            is Status.OK
        )

    def test_bus_not_permitted(self, tmp_path: Path) -> None:
        (tmp_path / "i2c-1").touch()

        def denied(port: int) -> Bus:
            raise PermissionError(13, "Permission denied")

        check = doctor.check_lcd(device_settings(Config()).lcd, bus_class=denied, dev_dir=tmp_path)
        assert check.status is Status.FAIL and "i2c group" in check.fix

    def test_disabled(self, tmp_path: Path) -> None:
        config = parse_config("[lcd]\nenabled = false\n")
        assert (
            doctor.check_lcd(device_settings(config).lcd, bus_class=Bus, dev_dir=tmp_path).status
            is Status.OK
        )


class TestGpio:
    def test_pins_claimed_and_released(self, factory: MockFactory) -> None:
        assert doctor.check_gpio(device_settings(Config()).gpio).status is Status.OK
        assert (
            doctor.check_gpio(device_settings(Config()).gpio).status is Status.OK
        )  # released the first time

    def test_pins_busy(self, factory: MockFactory) -> None:
        from gpiozero import LED

        held = LED(Config().pins.buttons.undo)  # the running service holds a pin
        check = doctor.check_gpio(device_settings(Config()).gpio)
        assert check.status is Status.FAIL and "systemctl stop pi-reader" in check.fix
        assert (
            doctor.check_gpio(
                device_settings(parse_config("[pins.buttons]\nundo = 4\n")).gpio
            ).status
            is Status.OK
        )
        held.close()

    def test_no_pin_factory(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def no_factory(*_args: object, **_kwargs: object) -> None:
            raise BadPinFactory("Unable to load any default pin factory!")

        monkeypatch.setattr(Device, "pin_factory", None)
        monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_factory))
        check = doctor.check_gpio(device_settings(Config()).gpio)
        assert check.status is Status.MISSING and "python3-lgpio" in check.fix


def test_state_dir(tmp_path: Path) -> None:
    config = parse_config(f'[paths]\nstate_dir = "{tmp_path}"\n')
    assert doctor.check_state_dir(config.paths.state_dir).status is Status.OK
    missing = parse_config(f'[paths]\nstate_dir = "{tmp_path / "absent"}"\n')
    assert doctor.check_state_dir(missing.paths.state_dir).status is Status.MISSING


def test_check_lines() -> None:
    check = Check("lcd", Status.MISSING, "no I2C bus /dev/i2c-1", "enable I2C")
    assert check.lines() == [
        "MISSING  lcd       no I2C bus /dev/i2c-1",
        "                   fix: enable I2C",
    ]


class TestCommand:
    def test_all_ok_exits_zero(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        checks = [Check("camera", Status.OK, "fine"), Check("lcd", Status.OK, "fine")]
        monkeypatch.setattr(doctor, "run_checks", lambda settings, state_dir: checks)
        assert main(["doctor", "--config", str(self.example())]) == 0
        assert capsys.readouterr().out.splitlines()[-1] == "all devices OK"

    def test_a_problem_exits_one_and_prints_the_fix(
        self, tmp_path: Path, factory: MockFactory, capsys: pytest.CaptureFixture[str]
    ) -> None:
        config = tmp_path / "config.toml"
        config.write_text(
            f'[camera]\nspec = "dir:{frames_folder(tmp_path)}"\n[lcd]\nenabled = false\n'
            f'[speaker]\nenabled = false\n[paths]\nstate_dir = "{tmp_path / "state"}"\n'
        )
        assert main(["doctor", "--config", str(config)]) == 1
        out = capsys.readouterr().out
        assert out.splitlines()[0] == f"OK       config    {config}"
        assert "OK       camera" in out and "OK       gpio" in out
        assert f"MISSING  state     no folder {tmp_path / 'state'}" in out
        assert out.splitlines()[-1] == "some devices need attention (see 'fix:' above)"

    def test_missing_reader_weights_are_reported(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setattr(doctor, "run_checks", lambda settings, state_dir: [])
        assert main(["doctor", "--config", str(self.example())]) == 0
        assert "OK       weights   dice detectors, face classifier and lean gauge installed" in (
            capsys.readouterr().out
        )
        gone = [Path("/nowhere/face-classifier.onnx")]
        monkeypatch.setattr(weights, "missing", lambda: gone)
        assert main(["doctor", "--config", str(self.example())]) == 1
        out = capsys.readouterr().out
        assert "MISSING  weights   /nowhere/face-classifier.onnx not found" in out
        assert "fix: reinstall pi-reader" in out

    def test_reader_weights_that_are_no_network_fail(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        broken_weights
    ) -> None:
        monkeypatch.setattr(doctor, "run_checks", lambda settings, state_dir: [])
        broken = broken_weights("dice-detector.onnx", b"")
        assert main(["doctor", "--config", str(self.example())]) == 1
        out = capsys.readouterr().out
        assert f"FAIL     weights   the dice detector's weights cannot be loaded: {broken}" in out
        assert "fix: reinstall pi-reader" in out

    def test_doctor_loads_the_generic_networks_the_running_appliance_leaves_alone(
        self, broken_weights
    ) -> None:
        broken = broken_weights("dice-detector-generic.onnx", b"")
        check = check_reader_weights()
        assert check.status is Status.FAIL
        assert f"the generic mode's dice detector's weights cannot be loaded: {broken}" in (
            check.detail)
        assert check_reader_weights(generic=False).status is Status.OK

    def test_a_broken_config(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        config = tmp_path / "config.toml"
        config.write_text("[lcd]\ncols = 17\n")
        assert main(["doctor", "--config", str(config)]) == 1
        err = capsys.readouterr().err
        assert err.startswith("FAIL     config") and "pi-reader config check" in err

    def test_camera_override(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        seen: list[str | None] = []

        def run_checks(settings: DeviceSettings, state_dir: Path) -> list[Check]:
            seen.append(settings.camera.spec)
            return [Check("camera", Status.FAIL, "gone", "plug it in")]

        monkeypatch.setattr(doctor, "run_checks", run_checks)
        assert main(["doctor", "--config", str(self.example()), "--camera", "usb:1"]) == 1
        assert seen == ["usb:1"]

    @staticmethod
    def example() -> Path:
        return Path(__file__).resolve().parent.parent / "hardware" / "config.example.toml"
