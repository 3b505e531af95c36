"""Small builders for rules tests: rolls with a chosen white sum, and whole turns."""

from __future__ import annotations

from pi_reader.rules import Game, Roll

# Two white dice for every white sum.
_WHITES = {total: (max(1, total - 6), total - max(1, total - 6)) for total in range(2, 13)}


def roll_for(game: Game, white_sum: int, **colours: int) -> Roll:
    """A roll of the dice in play whose white dice add up to ``white_sum``; coloured dice show
    ``colours`` (default 1)."""
    white1, white2 = _WHITES[white_sum]
    values = {c: colours.get(c, 1) for c in game.dice_in_play[2:]}
    return Roll(white1, white2, **values)


def white_turn(game: Game, white_sum: int, marks: dict[str, str], end: bool = True) -> None:
    """Roll ``white_sum``, let each named player mark it in the given row, and end the turn."""
    game.roll(roll_for(game, white_sum))
    for player, colour in marks.items():
        game.mark(player, "white", colour, white_sum)
    if end:
        game.end_turn()


def fill_row(game: Game, colour: str, numbers: list[int], players: list[str]) -> None:
    """Give every player in ``players`` the marks ``numbers`` in ``colour``, one white turn each,
    with every other player of the game marking too (so the active player takes no penalty)."""
    for number in numbers:
        white_turn(game, number, dict.fromkeys(players, colour))
