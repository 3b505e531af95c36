"""Which address to listen on, and which to print and put in the join links.

Listening on every address (``0.0.0.0``) is right on the Pi, but a phone needs a real address in
its link: the first IPv4 address of this machine's network interfaces that is not loopback. It is
read from the interfaces themselves (no packet is sent to find it).
"""

from __future__ import annotations

import fcntl
import socket
import struct

ALL_ADDRESSES = ("0.0.0.0", "", "::")
LOCALHOST = "127.0.0.1"
_SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address


def bind_address(configured: str, flag: str | None, no_hardware: bool) -> str:
    """The ``--web-bind`` flag, else the config's ``[web] bind``, else every address on a Pi and
    only localhost with ``--no-hardware`` (a laptop trying the appliance shares nothing)."""
    if flag:
        return flag
    if configured:
        return configured
    return LOCALHOST if no_hardware else "0.0.0.0"


def advertised_host(bind: str) -> str:
    """The address to print for ``bind``: a LAN address when listening on all of them."""
    if bind not in ALL_ADDRESSES:
        return bind
    return lan_address() or LOCALHOST


def lan_address() -> str | None:
    """The first non-loopback IPv4 address of this machine's interfaces, or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _, name in socket.if_nameindex():
            if name == "lo":
                continue
            request = struct.pack("256s", name.encode()[:15])
            try:
                answer = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, request)
            except OSError:  # no IPv4 address on this interface
                continue
            address = socket.inet_ntoa(answer[20:24])
            if not address.startswith("127."):
                return address
    return None
