"""The game drawn as text for a person: each sheet's rows with marked and crossed-out numbers,
locks, penalties and scores, then whose turn it is or who won.

Plain ASCII so it shows on any terminal and in logs: ``[7]`` is marked, ``-7-`` crossed out (lost
for good, left of a mark), ``L`` the lock symbol (``[L]`` when this player locked the row).
"""

from __future__ import annotations

from pi_reader.rules.game import Game, Phase
from pi_reader.rules.sheet import Row
from pi_reader.rules.types import COLOURS, ROW_NUMBERS

_CELL = 5
LEGEND = "[n] marked   -n- crossed out (lost)   L lock symbol   closed: the row is locked"


def render_row(row: Row) -> str:
    """One row: its numbers left to right, the lock cell, the marks and the points."""
    marked, lost = set(row.marked), set(row.lost)
    cells = []
    for number in ROW_NUMBERS[row.colour]:
        if number in marked:
            cells.append(f"[{number}]".rjust(_CELL))
        elif number in lost:
            cells.append(f"-{number}-".rjust(_CELL))
        else:
            cells.append(f"{number} ".rjust(_CELL))
    cells.append("  [L]" if row.locked_here else "   L ")
    state = "closed" if row.closed else ""
    return (
        f"  {row.colour.value:<7}{''.join(cells)}  {state:<6} "
        f"{row.marks:>2} mark{'s' if row.marks != 1 else ' '} {row.points:>3}"
    )


def render_game(game: Game) -> str:
    """Every player's sheet, then the state of the turn or the end of the game."""
    lines: list[str] = []
    for name in game.players:
        sheet = game.sheet(name)
        score = sheet.score
        tag = "  (active)" if name == game.active and not game.over else ""
        lines.append(f"{name}{tag}")
        lines.extend(render_row(row) for row in sheet.rows)
        lines.append(
            f"  penalties {sheet.penalties} ({-5 * sheet.penalties:+d})".ljust(80)
            + f"total {score.total:>4}"
        )
        lines.append("")
    lines.append(LEGEND)
    removed = ", ".join(c.value for c in game.removed_dice) or "none"
    lines.append(f"Locked rows / removed dice: {removed}")
    lines.append(_turn_line(game))
    return "\n".join(lines)


def _turn_line(game: Game) -> str:
    if game.over:
        best = game.score(game.winners[0]).total
        names = " and ".join(game.winners)
        verb = "win" if len(game.winners) > 1 else "wins"
        return f"Game over: {game.end_reason}. {names} {verb} with {best} points."
    if game.phase is Phase.AWAITING_ROLL:
        return f"Next: {game.active} rolls the dice."
    roll = game.current_roll
    assert roll is not None  # a turn past its roll has one
    dice = ", ".join(
        f"{colour.value} {value}" for colour in COLOURS if (value := roll.die(colour)) is not None
    )
    pending = ", ".join(c.value for c in game.pending_locks)
    locks = f" Locked in this white action: {pending}." if pending else ""
    if game.phase is Phase.WHITE_ACTION:
        return (
            f"{game.active}'s turn: white {roll.white1}+{roll.white2}={roll.white_sum}, {dice}. "
            f"White action open, then {game.active}'s colour action.{locks}"
        )
    return f"{game.active}'s turn: the colour mark is made; the turn ends next."
