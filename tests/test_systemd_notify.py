"""sd_notify over a real AF_UNIX datagram socket: path and abstract addresses, and no systemd."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_reader.devices.systemd_notify import SystemdNotifier


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = tmp_path / "notify"
    sock.bind(str(path))
    sock.settimeout(5)
    yield sock, str(path)
    sock.close()


def received(sock: socket.socket) -> str:
    return sock.recv(4096).decode("utf-8")


def test_ready_watchdog_and_stopping(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    notifier = SystemdNotifier({"NOTIFY_SOCKET": path})
    assert notifier.ready()
    assert received(sock) == "READY=1"
    assert notifier.watchdog()
    assert received(sock) == "WATCHDOG=1"
    assert notifier.stopping()
    assert received(sock) == "STOPPING=1"


def test_abstract_socket() -> None:
    name = f"pi-reader-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(5)
        assert SystemdNotifier({"NOTIFY_SOCKET": "@" + name}).ready()
        assert received(sock) == "READY=1"


def test_not_under_systemd_does_nothing() -> None:
    notifier = SystemdNotifier({})
    assert notifier.address is None
    assert notifier.ready() is False
    assert notifier.watchdog() is False
    assert notifier.stopping() is False


def test_a_relative_socket_name_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    notifier = SystemdNotifier({"NOTIFY_SOCKET": "notify"})
    assert notifier.address is None and notifier.ready() is False
    assert "ignoring NOTIFY_SOCKET='notify'" in caplog.text


def test_a_vanished_socket_warns_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    notifier = SystemdNotifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert notifier.watchdog() is False
    assert notifier.watchdog() is False
    assert len([r for r in caplog.records if "cannot notify systemd" in r.message]) == 1
