"""Between the appliance's loop thread and the web server's asyncio thread.

:class:`Hub` is the appliance's listener. In the loop's thread it only builds the snapshot of the
table (cheap: the game's own answers) and hands it over with ``call_soon_threadsafe``; everything
else (numbering, history, fan-out to pages, encoding pictures) happens in the web thread. Every
page has a bounded queue: a page that does not keep up is cut off, never waited for, and catches
up when it reconnects.

Messages are numbered ``EPOCH-SEQ``: SEQ counts changes since this appliance started, EPOCH is
new at each start. A page reconnecting with the last number it saw gets exactly the messages it
missed from the history, or, after a restart or a long absence, the current state; each message
is a whole snapshot that carries the game log's line count (``line``), so a page never shows a
stale or doubled mark whichever it gets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pi_reader.appliance.events import StillRead, TableChange
from pi_reader.web.seats import Seats
from pi_reader.web.view import View, table_view

log = logging.getLogger(__name__)

HISTORY = 256  # messages kept for pages that reconnect
PAGE_QUEUE = 64  # messages waiting for one page before it is cut off


@dataclass(frozen=True)
class Message:
    seq: int
    event_id: str
    data: bytes  # the snapshot as JSON

    def sse(self) -> bytes:
        return b"id: " + self.event_id.encode() + b"\nevent: state\ndata: " + self.data + b"\n\n"


@dataclass(eq=False)
class Subscriber:
    """One open page's stream: its queue, and the task to cancel if it falls behind."""

    queue: asyncio.Queue[Message] = field(default_factory=lambda: asyncio.Queue(PAGE_QUEUE))
    task: asyncio.Task[Any] | None = None
    cut_off: bool = False


Submit = Callable[[Callable[[Any], Any]], "Future[Any]"]


class Hub:
    """The appliance's listener and the pages' source of state."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.epoch = secrets.token_hex(3)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.submit: Submit | None = None  # Appliance.submit, once the appliance exists
        # Read and written in the web thread only:
        self.seq = 0
        self.history: deque[Message] = deque(maxlen=HISTORY)
        self.view: View | None = None
        self.seats = Seats({})
        self.still: StillRead | None = None
        self.subscribers: set[Subscriber] = set()
        # Written in the loop thread, read in the web thread (one reference: no lock needed):
        self.latest_frame: np.ndarray | None = None
        self.frames_seen = 0  # the camera loop's frames: its rate shows that nothing stalls it
        self._game: object = None
        self._seats = self.seats
        self._stills = 0
        self._games = 0

    # --- the appliance's thread -----------------------------------------------------------------
    def changed(self, change: TableChange) -> None:
        view = table_view(change)
        if change.table.game is not self._game:
            self._game = change.table.game
            self._games += 1
            self._seats = Seats.for_game(self.state_dir, change.table.players, change.table.resumed)
        if change.still is not None:
            self._stills += 1
        view["still"] = self._stills or None
        view["game"] = self._games  # counts the games since this start (new join links each)
        view["at"] = time.time()  # when the change happened: pages' latency can be measured
        self._hand_over(view, self._seats, change.still)

    def frame(self, frame: np.ndarray) -> None:
        self.latest_frame = frame
        self.frames_seen += 1

    def _hand_over(self, view: View, seats: Seats, still: StillRead | None) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # RuntimeError: the web thread is closing down
            loop.call_soon_threadsafe(self._publish, view, seats, still)

    # --- the web thread -------------------------------------------------------------------------
    def _publish(self, view: View, seats: Seats, still: StillRead | None) -> None:
        self.seq += 1
        event_id = f"{self.epoch}-{self.seq}"
        view = {"id": event_id, **view}
        message = Message(self.seq, event_id, json.dumps(view, ensure_ascii=False).encode())
        self.history.append(message)
        self.view, self.seats = view, seats
        if still is not None:
            self.still = still
        for subscriber in list(self.subscribers):
            self._offer(subscriber, message)

    def _offer(self, subscriber: Subscriber, message: Message) -> None:
        if subscriber.cut_off:
            return
        try:
            subscriber.queue.put_nowait(message)
        except asyncio.QueueFull:
            subscriber.cut_off = True
            if subscriber.task is not None:
                subscriber.task.cancel()

    def subscribe(self, last_event_id: str | None) -> Subscriber:
        """A new page's stream, its queue filled with what it missed since ``last_event_id``."""
        subscriber = Subscriber()
        for message in self.catch_up(last_event_id):
            subscriber.queue.put_nowait(message)
        self.subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)

    def catch_up(self, last_event_id: str | None) -> list[Message]:
        """The messages after ``last_event_id`` if all are kept, else only the latest."""
        if not self.history:
            return []
        latest = self.history[-1]
        seen = _seq_of(last_event_id, self.epoch)
        if seen is None or seen > latest.seq:
            return [latest]
        missed = [m for m in self.history if m.seq > seen]
        if missed and missed[0].seq != seen + 1:
            return [latest]  # part of it is no longer kept: the latest snapshot says it all
        return missed if len(missed) <= PAGE_QUEUE else [latest]


def _seq_of(event_id: str | None, epoch: str) -> int | None:
    """The change number of an id from this run of the appliance; None for another or none."""
    if not event_id:
        return None
    run, _, number = event_id.partition("-")
    if run != epoch or not number.isdigit() or len(number) > 12:
        return None
    return int(number)
