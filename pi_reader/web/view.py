"""The table as the pages see it: one JSON-ready snapshot per change, built in the loop's thread.

The snapshot is built while the listener is called (the game changes once it returns), from the
game's own answers: the cells a player may mark are the engine's legal marks, never worked out
here. Every text in it comes from the message catalogue in the table's language. Pages render
the snapshot whole, so a page that missed some never shows a stale or doubled mark.
"""

from __future__ import annotations

from typing import Any

from pi_reader.appliance.catalogue import Catalogue
from pi_reader.appliance.events import TableChange
from pi_reader.appliance.notices import render
from pi_reader.appliance.paper import PaperGame
from pi_reader.appliance.sheet import SheetGame
from pi_reader.rules import COLOURS, LOCK_NUMBER, ROW_NUMBERS, Action, Phase, Roll

View = dict[str, Any]


def table_view(change: TableChange) -> View:
    """Everything every page shows (no seat's token: this goes to every page)."""
    table, catalogue = change.table, change.catalogue
    game = table.game
    view: View = {
        "mode": table.mode,
        "players": list(game.players),
        "bots": sorted(table.bots),
        "active": game.active,
        "next_roller": game.next_roller,
        "over": game.over,
        "removed": list(game.removed),
        "line": len(game.events),  # the game log's line count this state is the result of
        "said": list(change.said),
        "end": [render(catalogue, item) for item in game.end_notices()] if game.over else [],
        "text": _texts(catalogue, game.players),
    }
    if isinstance(game, SheetGame):
        view.update(_sheet_state(game))
    else:
        view.update(_paper_state(game))
    return view


def _roll(roll: Roll | None) -> dict[str, Any] | None:
    if roll is None:
        return None
    return {
        "dice": roll.to_dict(),
        "white_sum": roll.white_sum,
        "colour_sums": {
            colour.value: list(roll.colour_sums(colour))
            for colour in COLOURS
            if roll.die(colour) is not None
        },
    }


def _sheet_state(sheet_game: SheetGame) -> View:
    game = sheet_game.game
    roll = game.current_roll
    waiting = game.phase is Phase.AWAITING_ROLL or game.over
    turn_marks = _this_turns_marks(sheet_game)
    sheets = []
    for player in game.players:
        sheet = game.sheet(player)
        options = []
        if not waiting:
            for action in (Action.WHITE, Action.COLOUR):
                if sheet_game.may_pass(player, action):
                    options += [
                        {
                            "colour": mark.colour.value,
                            "number": mark.number,
                            "action": action.value,
                            "lock": mark.number == LOCK_NUMBER[mark.colour],
                        }
                        for mark in game.legal_marks(player, action)
                    ]
        sheets.append(
            {
                "player": player,
                "rows": [
                    {
                        "colour": row.colour.value,
                        "numbers": list(ROW_NUMBERS[row.colour]),
                        "marked": list(row.marked),
                        "lost": list(row.lost),
                        "locked_here": row.locked_here,
                        "closed": row.closed,
                        "points": row.points,
                    }
                    for row in sheet.rows
                ],
                "penalties": sheet.penalties,
                "total": sheet.score.total,
                "options": options,
                "may_pass": not waiting
                and any(sheet_game.may_pass(player, action) for action in Action),
                "may_undo": player in turn_marks,
            }
        )
    return {
        "phase": game.phase.value,
        "roll": _roll(roll),
        "locked": [colour.value for colour in game.locked],
        "pending_locks": [colour.value for colour in game.pending_locks],
        "winners": list(game.winners),
        "sheets": sheets,
    }


def _this_turns_marks(sheet_game: SheetGame) -> set[str]:
    """Who marked since the current turn's roll (they may undo their own last mark)."""
    players: set[str] = set()
    for event in reversed(sheet_game.events):
        if event["event"] in ("roll", "new_game", "end_turn"):
            break
        if event["event"] == "mark":
            players.add(event["player"])
    return players


def _paper_state(game: PaperGame) -> View:
    return {
        "phase": "awaiting_roll" if game.last_roll is None else "paper_turn",
        "roll": _roll(game.last_roll),
        "locked": list(game.removed),
        "pending_locks": [],
        "winners": [],
        "penalties": {player: game.penalties.get(player, 0) for player in game.players},
        "may_undo": bool(game.turn_buttons),
        "may_press": game.last_roll is not None and not game.over,
    }


def _texts(catalogue: Catalogue, players: tuple[str, ...]) -> dict[str, Any]:
    """The pages' own words, in the table's language."""
    keys = ("pass", "undo", "table_undo", "penalty", "penalties", "total", "offline", "stale_link")
    texts: dict[str, Any] = {key: catalogue.text(f"web.{key}") for key in keys}
    texts["colour"] = {c.value: catalogue.word(f"colour.{c.value}") for c in COLOURS}
    texts["lock"] = {
        c.value: catalogue.text("web.lock", row=catalogue.word(f"row.{c.value}")) for c in COLOURS
    }
    texts["confirm_lock"] = {
        c.value: catalogue.text("web.confirm_lock", row=catalogue.word(f"row.{c.value}"))
        for c in COLOURS
    }
    texts["turn"] = {p: catalogue.text("web.turn", player=p) for p in players}
    texts["join"] = {p: catalogue.text("web.join", player=p) for p in players}
    texts["direction"] = "rtl" if catalogue.language == "fa" else "ltr"
    return texts
