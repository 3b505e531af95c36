"""Who may act for which seat: a random token per seat, made for each game.

A seat's join link carries its token; the server takes a mark, pass or undo for a seat only with
that seat's token. The tokens are kept beside the game log (``web-seats.json``, readable by the
service user alone) so that a phone's link still works when the appliance restarts and resumes
the same game; a new game makes new tokens, so an old link cannot act in it.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import secrets
from collections.abc import Sequence
from pathlib import Path

log = logging.getLogger(__name__)

SEATS_FILE = "web-seats.json"
TOKEN_BYTES = 6  # 8 URL-safe characters: short enough to type from the table screen


class Seats:
    """The tokens of the current game's seats."""

    def __init__(self, tokens: dict[str, str]) -> None:
        self.tokens = dict(tokens)

    @classmethod
    def new(cls, players: Sequence[str]) -> Seats:
        return cls({player: secrets.token_urlsafe(TOKEN_BYTES) for player in players})

    @classmethod
    def for_game(cls, state_dir: Path, players: Sequence[str], resumed: bool) -> Seats:
        """The seats of a resumed game as they were, else new ones (written to the state dir)."""
        path = state_dir / SEATS_FILE
        if resumed:
            kept = cls._read(path, players)
            if kept is not None:
                return kept
        seats = cls.new(players)
        seats._write(path)
        return seats

    @classmethod
    def _read(cls, path: Path, players: Sequence[str]) -> Seats | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            log.warning("%s cannot be read (%s): the seats get new join links", path, error)
            return None
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if (
            not isinstance(tokens, dict)
            or list(tokens) != list(players)
            or not all(isinstance(t, str) and len(t) >= 8 for t in tokens.values())
        ):
            log.warning("%s is for other players: the seats get new join links", path)
            return None
        return cls(tokens)

    def _write(self, path: Path) -> None:
        """Atomically, readable by this user only; a failure only costs links after a restart."""
        temporary = path.with_suffix(".tmp")
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump({"tokens": self.tokens}, handle)
                handle.flush()
                os.fsync(handle.fileno())
            temporary.replace(path)
        except OSError as error:
            log.warning("cannot keep the join links in %s: %s", path, error.strerror)

    def seat_of(self, token: object) -> str | None:
        """The seat whose token this is (compared in constant time), or None."""
        if not isinstance(token, str):
            return None
        found = None
        for player, expected in self.tokens.items():
            if hmac.compare_digest(token.encode(), expected.encode()):
                found = player
        return found

    def token_of(self, player: str) -> str:
        return self.tokens[player]
