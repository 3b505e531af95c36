"""``pi-reader run``: clear refusals with non-zero exits, device warnings said once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pi_reader.cli import main
from pi_reader.cli import run as run_module
from pi_reader.devices import FakeButtons, FakeCamera, FakeDisplay, FakeLeds, FakeSpeaker
from pi_reader.devices.bundle import Devices, DeviceWarning
from pi_reader.vision.types import RollReading

from .helpers import dice, reading

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo-game"


def run(args: list[str], tmp_path: Path) -> int:
    return main(["run", "--state-dir", str(tmp_path / "state"), *args])


def test_a_corrupt_config_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[lcd\ncols = 16\n")
    status = run(["--config", str(config), "--players", "ann,bob", "--no-hardware"], tmp_path)
    assert status == 2
    assert "not valid TOML" in capsys.readouterr().err
    assert config.read_text() == "[lcd\ncols = 16\n"
    assert not (tmp_path / "state").exists()


def test_a_corrupt_calibration_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calibration = tmp_path / "cal.json"
    calibration.write_text('{"version": 1, "tray": ')
    status = run(
        ["--players", "ann,bob", "--no-hardware", "--calibration", str(calibration)], tmp_path
    )
    assert status == 2
    assert f"the calibration file {calibration} cannot be used" in capsys.readouterr().err
    assert calibration.read_text() == '{"version": 1, "tray": '
    assert not (tmp_path / "state" / "game.jsonl").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "ann"], "--players: Qwixx needs 2 to 5 players, these give 1 (ann)"),
        (["--players", "ann,ann"], "the same name twice: ann"),
        ([], "who plays?"),
        (["--players", "ann", "--bot", "robo", "--mode", "paper"], "but --mode is paper"),
        (["--players", "ann,bob", "--camera", "dir:/no/such/folder"], "no folder"),
        # Each of these failed before: a dropped name, a traceback, or a game the typed
        # marks could not play.
        (["--players", "ann,,bob"], "--players: an empty name"),
        (["--players", "ann", "--bot", ":lookahead"], "needs a name before the colon"),
        (["--players", "ann,bob", "--bot", "cid:nosuch"], "unknown strategy 'nosuch'"),
        (["--players", "ann,Ann", "--mode", "sheet"], "ann and Ann differ only in capitals"),
        (["--players", "mary ann,bob", "--mode", "sheet"], "'mary ann' has a space"),
    ],
)
def test_bad_arguments_say_what_is_wrong(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["--no-hardware", *args], tmp_path) == 2
    assert message in capsys.readouterr().err


def test_a_missing_speaker_or_display_is_said_once_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = tmp_path / "game"
    recording.mkdir()
    shutil.copy(DEMO / "roll_001.jpg", recording / "roll_001.jpg")
    (recording / "recorded-game.json").write_text('{"rolls": [{"image": "roll_001.jpg"}]}')
    speaker, display = FakeSpeaker(), FakeDisplay()

    missing = (
        DeviceWarning("display", "no LCD at 0x27"),
        DeviceWarning("speaker", "no espeak"),
        DeviceWarning("leds", "no GPIO"),
    )

    def devices(config: object, **kwargs: object) -> Devices:
        leds, buttons = FakeLeds(), FakeButtons()
        return Devices(FakeCamera([]), speaker, display, leds, buttons, missing)

    roll = reading(dice(3, 4, 2, 5, 6, 1))
    monkeypatch.setattr(run_module, "open_devices", devices)
    class FixedReader(run_module.CalibratedReader):
        def __call__(self, frame: object, removed: object) -> RollReading:
            return roll

    monkeypatch.setattr(run_module, "load_reader", lambda *args: FixedReader(None))
    status = run(["--players", "ann,bob", "--camera", f"dir:{recording}"], tmp_path)
    assert status == 0
    assert speaker.spoken.count("No display found. Running without it.") == 1
    assert speaker.spoken.count("No speaker found. Running without it.") == 1
    assert speaker.spoken.count("No lock lights found. Running without it.") == 1
    assert "White sum 7." in speaker.spoken


def test_a_state_folder_that_cannot_be_made_is_explained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    args = ["run", "--no-hardware", "--players", "ann,bob", "--camera", f"dir:{DEMO}"]
    assert main([*args, "--state-dir", str(blocker / "state")]) == 2
    assert "choose --state-dir DIR" in capsys.readouterr().err
    assert blocker.read_text() == "not a folder"


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ('players = ["ann"]', "[game] players: Qwixx needs 2 to 5 players"),
        ('players = ["ann", "bob"]\nbots = ["cid:nosuch"]', "[game] bots cid:nosuch: unknown"),
        ('players = ["ann", "Ann"]\nmode = "sheet"', "differ only in capitals"),
    ],
)
def test_config_check_refuses_what_run_refuses_naming_the_config_key(
    game: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: config check said "ok" and run then refused, naming --players.
    config = tmp_path / "config.toml"
    config.write_text(f"[game]\n{game}\n")
    assert main(["config", "check", "--config", str(config)]) == 1
    assert message in capsys.readouterr().err
    assert run(["--no-hardware", "--config", str(config)], tmp_path) == 2
    err = capsys.readouterr().err
    assert message in err and "--players" not in err and "--bot" not in err


def test_missing_weights_refuse_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The reader has no fallback without its networks: a game that can never take a roll does
    # not start, and the user is told what to reinstall.
    from pi_reader.vision import weights

    monkeypatch.setattr(weights, "missing", lambda: [Path("/nowhere/dice-detector.onnx")])
    assert run(["--no-hardware", "--players", "ann,bob", "--camera", "dir:tests/data/demo-game"],
               tmp_path) == 2
    err = capsys.readouterr().err
    assert "/nowhere/dice-detector.onnx not found: the reader cannot" in err
    assert "reinstall" in err
    assert not (tmp_path / "game.jsonl").exists()


def test_the_help_says_a_recorded_game_starts_anew(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "a recorded game" in " ".join(capsys.readouterr().out.split())


def test_a_video_that_cannot_be_decoded_opens_no_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: a new game.jsonl was written, then the camera failed to start.
    bogus = tmp_path / "bogus.mp4"
    bogus.write_bytes(b"\x00" * 4096)
    calibration = tmp_path / "cal.json"
    image = str(DEMO / "calibration.jpg")
    assert main(["calibrate", "--image", image, "--out", str(calibration)]) == 0
    argv = ["--no-hardware", "--players", "ann,bob", "--calibration", str(calibration)]
    assert run([*argv, "--camera", f"video:{bogus}"], tmp_path) == 2
    assert "cannot decode" in capsys.readouterr().err
    assert not (tmp_path / "state" / "game.jsonl").exists()


def test_a_weights_file_that_is_no_network_refuses_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], broken_weights
) -> None:
    # A truncated download or a disk error: said at start, not as a traceback at the first roll.
    broken = broken_weights("face-classifier.onnx", b"not a network")
    assert run(["--no-hardware", "--players", "ann,bob", "--camera", "dir:tests/data/demo-game"],
               tmp_path) == 2
    err = capsys.readouterr().err
    assert f"the face classifier's weights cannot be loaded: {broken}" in err
    assert "reinstall" in err and "Traceback" not in err
    assert not (tmp_path / "game.jsonl").exists()
