"""Speech: the Speaker interface, espeak-ng through a non-blocking queue, and two stand-ins.

``say(text)`` must never hold up the camera loop, so :class:`EspeakSpeaker` puts texts on a queue
that one worker thread speaks in order. ``close()`` lets the worker finish what is queued (up to a
timeout) so the final scores are heard before the service stops; a program that exits without
calling it gets the same at interpreter exit.

The queue is bounded by time, not length (:class:`AnnouncementQueue`): an announcement that has
waited more than ``MAX_WAIT`` seconds while something newer waits behind it is dropped rather
than said late (buttons pressed in a hurry, a slow speech engine), and a text said with a
``kind`` (the appliance gives the white sum ``kind="white_sum"``) replaces any of that kind still
waiting and is never dropped for lateness: the newest sum always wins.
"""

from __future__ import annotations

import atexit
import logging
import shutil
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TextIO, runtime_checkable

from pi_reader.devices.errors import DeviceClosed, SpeakerUnavailable

log = logging.getLogger(__name__)


@runtime_checkable
class Speaker(Protocol):
    """Says short texts aloud, in order, without blocking the caller."""

    def say(self, text: str, kind: str | None = None) -> None:
        """Queue ``text`` to be spoken; returns at once. DeviceClosed after close().

        ``kind`` names what the text announces (``"white_sum"``): a newer text of the same kind
        makes one still waiting moot."""

    def close(self) -> None:
        """Finish speaking what is queued (bounded wait), then release resources."""


class FakeSpeaker:
    """Records every text in ``spoken`` (synchronously, so tests need no waiting)."""

    def __init__(self) -> None:
        self.spoken: list[str] = []
        self.kinds: list[str | None] = []  # the kind of each text spoken
        self.closed = False

    def say(self, text: str, kind: str | None = None) -> None:
        if self.closed:
            raise DeviceClosed("speaker is closed")
        self.spoken.append(text)
        self.kinds.append(kind)

    def close(self) -> None:
        self.closed = True


class PrintSpeaker:
    """For ``--no-hardware`` and as the stand-in for a missing speaker: prints ``SAY: text``."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self.closed = False

    def say(self, text: str, kind: str | None = None) -> None:
        if self.closed:
            raise DeviceClosed("speaker is closed")
        print(f"SAY: {text}", file=self._stream or sys.stdout, flush=True)

    def close(self) -> None:
        self.closed = True


# An announcement that has waited this long is dropped when something newer waits behind it.
MAX_WAIT = 3.0
# Texts queued within this many seconds of each other are one announcement (a roll and its
# marks, the end of a game and its scores): none of them is "newer" than another.
SAME_ANNOUNCEMENT = 1.0


@dataclass(frozen=True)
class _Waiting:
    text: str
    kind: str | None
    queued_at: float


class AnnouncementQueue:
    """The texts still to be said, without those no longer worth saying (see the module's
    docstring). Thread-safe: the caller puts, one worker takes."""

    def __init__(
        self, max_wait: float = MAX_WAIT, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_wait = max_wait
        self.clock = clock
        self.dropped: list[str] = []  # texts dropped, oldest first (for the log and tests)
        self._items: deque[_Waiting] = deque()
        self._busy = False
        self._stopped = False
        self._changed = threading.Condition()

    def put(self, text: str, kind: str | None = None) -> None:
        with self._changed:
            if kind is not None:
                moot = [item for item in self._items if item.kind == kind]
                for item in moot:
                    self._items.remove(item)
                    self.dropped.append(item.text)
            self._items.append(_Waiting(text, kind, self.clock()))
            self._changed.notify_all()

    def take(self) -> str | None:
        """The next text worth saying, waiting for one; None once stopped and empty."""
        with self._changed:
            while True:
                while self._items:
                    item = self._items.popleft()
                    if self._stale(item):
                        self.dropped.append(item.text)
                        log.info("dropped, said too late: %r", item.text)
                        continue
                    self._busy = True
                    return item.text
                self._busy = False
                self._changed.notify_all()
                if self._stopped:
                    return None
                self._changed.wait()

    def _stale(self, item: _Waiting) -> bool:
        late = self.clock() - item.queued_at > self.max_wait
        newer = any(o.queued_at - item.queued_at > SAME_ANNOUNCEMENT for o in self._items)
        return item.kind is None and late and newer

    def done(self) -> None:
        """The text taken last has been said."""
        with self._changed:
            self._busy = False
            self._changed.notify_all()

    def stop(self) -> None:
        """Say what is left worth saying, then let ``take`` answer None."""
        with self._changed:
            self._stopped = True
            self._changed.notify_all()

    def wait_until_idle(self) -> None:
        with self._changed:
            while self._items or self._busy:
                self._changed.wait()


class EspeakSpeaker:
    """espeak-ng renders each text to WAV on its stdout, piped into ``aplay`` (no shell involved).

    ``language`` picks the espeak-ng voice (``en``, ``ru``, ``uk``, ``es``, ``de``, ``fa``, ...)
    unless ``voice`` names one explicitly (``en-us``, ``en+f3``); ``rate`` is words per minute;
    ``device`` is an ALSA device for ``aplay -D`` (None: the default card). The text goes to
    espeak-ng on stdin, so a text starting with ``-`` is never read as an option.

    Raises SpeakerUnavailable at construction when either program is missing, so the appliance
    can say so once and run on without speech. A failure while speaking (no sound card, a killed
    player) is logged and counted in ``failures``; it never reaches the caller.
    """

    def __init__(
        self,
        language: str = "en",
        *,
        voice: str | None = None,
        rate: int = 150,
        player: str = "aplay",
        device: str | None = None,
        espeak: str = "espeak-ng",
        timeout: float = 30.0,
    ) -> None:
        espeak_path = shutil.which(espeak)
        if espeak_path is None:
            raise SpeakerUnavailable(f"{espeak} is not installed (sudo apt install espeak-ng)")
        player_path = shutil.which(player)
        if player_path is None:
            raise SpeakerUnavailable(f"{player} is not installed (sudo apt install alsa-utils)")
        self.synth_command = [espeak_path, "-v", voice or language, "-s", str(rate), "--stdout"]
        self.play_command = [player_path, "-q", *(["-D", device] if device else [])]
        self.timeout = timeout
        self.failures = 0
        self._queue = AnnouncementQueue()
        self._closed = False
        self._worker = threading.Thread(target=self._run, name="espeak-speaker", daemon=True)
        self._worker.start()
        # A program that ends without close() still gets its last words out (the final scores).
        atexit.register(self.close)

    def say(self, text: str, kind: str | None = None) -> None:
        if self._closed:
            raise DeviceClosed("speaker is closed")
        if text.strip():
            self._queue.put(text, kind)

    def wait_until_idle(self) -> None:
        """Block until everything queued so far has been spoken (for tests and shutdown)."""
        self._queue.wait_until_idle()

    def close(self, timeout: float = 10.0) -> None:
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        self._queue.stop()
        self._worker.join(timeout)

    def _run(self) -> None:
        while (text := self._queue.take()) is not None:
            try:
                self._speak(text)
            finally:
                self._queue.done()

    def _speak(self, text: str) -> None:
        try:
            synth = subprocess.Popen(
                self.synth_command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as error:
            self._fail(text, str(error))
            return
        try:
            player = subprocess.Popen(self.play_command, stdin=synth.stdout, stderr=subprocess.PIPE)
        except OSError as error:
            synth.kill()
            synth.communicate()
            self._fail(text, str(error))
            return
        assert synth.stdout is not None  # for the type checker: we asked for a pipe
        synth.stdout.close()  # the player owns the read end now
        try:
            _, synth_errors = synth.communicate(text.encode("utf-8"), timeout=self.timeout)
            _, player_errors = player.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            for process in (synth, player):
                process.kill()
                process.communicate()
            self._fail(text, f"took longer than {self.timeout} s")
            return
        if synth.returncode != 0 or player.returncode != 0:
            details = (synth_errors + player_errors).decode("utf-8", "replace").strip()
            self._fail(text, details or f"exit {synth.returncode}/{player.returncode}")

    def _fail(self, text: str, reason: str) -> None:
        self.failures += 1
        log.warning("could not speak %r: %s", text, reason)
