"""The game at the table: which mode, its journal on disk, resuming it, starting a new one.

One current game lives in the state directory. At start the appliance resumes it when it is
unfinished and was played by the same players in the same mode; otherwise (or when asked for a
new game) the old journal is archived and a new game begins. A journal that cannot be read is
never overwritten: the appliance stops with the reason, and the file stays for a person to look
at (or to archive with ``--new-game``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_reader.appliance.journal import (
    Journal,
    JournalError,
    archive_current_game,
    current_game_path,
    read_journal,
)
from pi_reader.appliance.notices import Notice, Outcome, notice
from pi_reader.appliance.paper import PaperError, PaperGame
from pi_reader.appliance.sheet import ComputerPlayer, SheetError, SheetGame

log = logging.getLogger(__name__)

MODES = ("paper", "sheet")
TableGame = PaperGame | SheetGame


class TableError(RuntimeError):
    """The current game cannot be opened (a damaged journal); the message says what to do."""


@dataclass
class Table:
    """The current game and its journal."""

    state_dir: Path
    mode: str
    players: tuple[str, ...]
    game: TableGame
    journal: Journal
    bots: Mapping[str, ComputerPlayer] = field(default_factory=dict)
    colour_words: Mapping[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    resumed: bool = False

    @classmethod
    def open(
        cls,
        state_dir: Path,
        mode: str,
        players: Sequence[str],
        *,
        bots: Mapping[str, ComputerPlayer] | None = None,
        colour_words: Mapping[str, str] | None = None,
        new_game: bool = False,
    ) -> Table:
        if mode not in MODES:
            raise ValueError(f"mode must be paper or sheet, not {mode!r}")
        state_dir.mkdir(parents=True, exist_ok=True)
        path = current_game_path(state_dir)
        table = cls(
            state_dir,
            mode,
            tuple(players),
            game=(
                PaperGame.new(players)
                if mode == "paper"
                else SheetGame(players, bots=bots, colour_words=colour_words)
            ),
            journal=Journal(path),
            bots=dict(bots or {}),
            colour_words=dict(colour_words or {}),
        )
        if path.exists() and not new_game:
            table._resume_or_archive()
        elif path.exists():
            archived = archive_current_game(state_dir)
            table.warnings.append(f"the previous game was archived to {archived}")
        if not table.resumed:
            table.journal.append(table.game.events[0])
        return table

    def _resume_or_archive(self) -> None:
        path = self.journal.path
        try:
            contents = read_journal(path)
        except JournalError as error:
            raise TableError(
                f"{error}. The file was left as it is; move it away or start with --new-game"
            ) from None
        events = contents.events
        if not events:
            archive_current_game(self.state_dir)
            return
        start = events[0]
        same_players = tuple(start.get("players") or ()) == self.players
        same_mode = (start.get("mode") or "sheet") == self.mode
        if not (same_players and same_mode):
            archived = archive_current_game(self.state_dir)
            self.warnings.append(
                f"the game in {path} was for other players or another mode; archived to {archived}"
            )
            return
        try:
            game = self._replay(events)
        except (PaperError, SheetError) as error:
            raise TableError(
                f"the game log {path} cannot be replayed: {error}. The file was left as it is; "
                "move it away or start with --new-game"
            ) from None
        if game.over:
            archived = archive_current_game(self.state_dir)
            self.warnings.append(f"the finished game was archived to {archived}")
            return
        if contents.warning:
            self.warnings.append(contents.warning)
            self.journal.repair(events)
        self.game = game
        self.resumed = True

    def _replay(self, events: list[dict[str, Any]]) -> TableGame:
        if self.mode == "paper":
            return PaperGame.replay(events)
        return SheetGame.replay(events, self.bots, self.colour_words)

    @property
    def removed(self) -> tuple[str, ...]:
        return tuple(self.game.removed)

    def commit(self, outcome: Outcome) -> None:
        """Make an outcome durable before anything about it is said."""
        if outcome.rewrite:
            self.journal.rewrite(self.game.events)
        else:
            for event in outcome.written:
                self.journal.append(event)

    def start_new_game(self) -> list[Notice]:
        """Archive the current game and begin a new one with the same players."""
        archive_current_game(self.state_dir)
        if self.mode == "paper":
            self.game = PaperGame.new(self.players)
        else:
            self.game = SheetGame(self.players, bots=self.bots, colour_words=self.colour_words)
        self.journal.append(self.game.events[0])
        self.resumed = False
        return [notice("app.new_game", player=self.game.next_roller)]

    def opening_notices(self) -> list[Notice]:
        key = "app.resumed" if self.resumed else "app.new_game"
        return [
            notice("app.ready", players=list(self.players)),
            notice(key, player=self.game.next_roller),
        ]
