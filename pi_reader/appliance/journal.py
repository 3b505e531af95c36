"""The game journal on disk: one JSON object per line, durable per event, replayed on restart.

Every event is appended, flushed and fsynced before the appliance says anything about it, so a
power cut loses at most the event being written. Such a cut can leave a torn last line: reading
ignores it with a warning and keeps everything before it. A torn or corrupt line anywhere else is
not a power cut but damage, and is refused with its line number.

Undo must not leave the file in a state other tools cannot replay, so it rewrites the journal
without the undone event, atomically (a temporary file, fsync, rename): the file on disk is
always either the old or the new list of events.

One current game lives at ``<state dir>/game.jsonl``; starting a new game moves the old file to
``<state dir>/archive/game-<time>.jsonl``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

CURRENT_GAME = "game.jsonl"
ARCHIVE_DIR = "archive"

Event = dict[str, Any]


class JournalError(ValueError):
    """The journal cannot be read as a game: damaged in the middle, or not a game log at all."""


@dataclass(frozen=True)
class JournalContents:
    """The events read back, and a warning when a torn last line was dropped."""

    events: list[Event]
    warning: str | None = None


def read_journal(path: Path) -> JournalContents:
    """The events of the journal at ``path``, oldest first (JournalError if damaged)."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise JournalError(f"cannot read the game log {path}: {error.strerror}") from error
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    events: list[Event] = []
    warning = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except RecursionError:
            raise JournalError(f"{path} line {number} is nested too deeply for an event") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            if number == len(lines):
                warning = (
                    f"the last line ({number}) of {path} is incomplete, probably cut by a power "
                    f"loss; it was ignored and the game resumes from the line before"
                )
                break
            raise JournalError(f"{path} line {number} is not JSON: {error}") from error
        if not isinstance(event, dict) or not isinstance(event.get("event"), str):
            raise JournalError(f"{path} line {number} is not a game event: {line[:80]!r}")
        events.append(event)
    return JournalContents(events, warning)


def _fsync_directory(directory: Path) -> None:
    """Make a rename or a new file itself durable, not only its contents."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


class Journal:
    """Appends events durably to one journal file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, event: Event) -> None:
        """Write one event as a line, then flush and fsync it."""
        line = json.dumps(event, ensure_ascii=False, separators=(", ", ": ")) + "\n"
        new_file = not self.path.exists()
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        if new_file:
            _fsync_directory(self.path.parent)

    def rewrite(self, events: Iterable[Event]) -> None:
        """Replace the journal with ``events`` atomically (used by undo)."""
        temporary = self.path.with_suffix(".tmp")
        with temporary.open("w", encoding="utf-8") as handle:
            for event in events:
                handle.write(json.dumps(event, ensure_ascii=False, separators=(", ", ": ")) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        temporary.replace(self.path)
        _fsync_directory(self.path.parent)

    def repair(self, events: Iterable[Event]) -> None:
        """After a torn last line: rewrite so the next append does not join the torn text."""
        self.rewrite(events)


def current_game_path(state_dir: Path) -> Path:
    return state_dir / CURRENT_GAME


def archive_current_game(state_dir: Path, now: datetime | None = None) -> Path | None:
    """Move the current game (if any) into the archive; returns where it went."""
    current = current_game_path(state_dir)
    if not current.exists():
        return None
    archive = state_dir / ARCHIVE_DIR
    archive.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    target = archive / f"game-{stamp}.jsonl"
    suffix = 1
    while target.exists():
        suffix += 1
        target = archive / f"game-{stamp}-{suffix}.jsonl"
    current.replace(target)
    _fsync_directory(state_dir)
    return target
