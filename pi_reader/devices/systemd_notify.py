"""Telling systemd how the service is doing: READY=1, WATCHDOG=1 and STOPPING=1 over $NOTIFY_SOCKET.

The unit is ``Type=notify`` with ``WatchdogSec=``: systemd waits for READY=1 before it counts the
service as started, restarts it when WATCHDOG=1 stops arriving for longer than the watchdog
interval (the appliance sends it every frame), and takes STOPPING=1 as the start of a clean
shutdown. The protocol (sd_notify(3)) is one datagram of ``KEY=value`` lines to the AF_UNIX socket
named in ``$NOTIFY_SOCKET``; a name starting with ``@`` is a Linux abstract socket. Outside
systemd the variable is unset and every call here does nothing, so the appliance calls it
unconditionally.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


class SystemdNotifier:
    """Sends sd_notify messages; a no-op when not started by systemd (no ``NOTIFY_SOCKET``).

    ``environ`` defaults to ``os.environ``; tests pass their own mapping.
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = _socket_address(env.get("NOTIFY_SOCKET", ""))
        self._warned = False

    def ready(self) -> bool:
        """Startup is complete (the camera streams)."""
        return self.notify("READY=1")

    def watchdog(self) -> bool:
        """The main loop is alive."""
        return self.notify("WATCHDOG=1")

    def stopping(self) -> bool:
        """Shutdown has begun (so a slow stop is not mistaken for a hang)."""
        return self.notify("STOPPING=1")

    def notify(self, *assignments: str) -> bool:
        """Send ``KEY=value`` lines as one datagram; True when systemd got them."""
        if self.address is None or not assignments:
            return False
        message = "\n".join(assignments).encode("utf-8")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.sendto(message, self.address)
        except OSError as error:
            if not self._warned:  # once: a broken socket would otherwise flood the journal
                log.warning("cannot notify systemd at %r: %s", self.address, error)
                self._warned = True
            return False
        return True


def _socket_address(value: str) -> str | None:
    if not value:
        return None
    if value.startswith("@"):
        return "\0" + value[1:]  # abstract namespace: a leading NUL byte instead of the "@"
    if value.startswith("/"):
        return value
    log.warning("ignoring NOTIFY_SOCKET=%r: not a path or an abstract socket name", value)
    return None

