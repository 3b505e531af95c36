"""``pi-reader run --web`` refusals: a port that cannot be had, a bad port, a bad [web] config."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from pi_reader.cli import main
from pi_reader.config import ConfigError, parse_config

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo-game"


def run(args: list[str], tmp_path: Path) -> int:
    return main(
        [
            "run",
            "--no-hardware",
            "--state-dir",
            str(tmp_path / "state"),
            "--players",
            "ann,bob",
            "--camera",
            f"dir:{DEMO}",
            "--web",
            *args,
        ]
    )


def test_a_port_in_use_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert run(["--web-port", str(port)], tmp_path) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err and "--web-port" in err
    assert "Traceback" not in err


def test_a_port_out_of_range_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert run(["--web-port", "70000"], tmp_path) == 2
    assert "a TCP port is 1 to 65535" in capsys.readouterr().err


def test_the_web_section_of_the_config() -> None:
    config = parse_config('[web]\nport = 9000\nbind = "192.168.1.20"\npin = "123456"\n')
    assert (config.web.port, config.web.bind, config.web.pin) == (9000, "192.168.1.20", "123456")
    with pytest.raises(ConfigError) as error:
        parse_config('[web]\nport = 0\npin = "12a4"\n')
    assert len(error.value.problems) == 2
    assert "[web] pin: '12a4' is not a PIN" in str(error.value)
