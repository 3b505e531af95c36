"""The choices open to one player at one decision, as whole plans for the rest of the turn.

For the active player the white and the colour action interact: a white mark moves a row on (so a
colour mark left of it is no longer legal) and, together with the colour mark, decides whether a
penalty is due. So when the active player is asked for the white action, a plan pairs each legal
white mark (or a pass) with each colour mark then legal (or a pass), and the strategy picks the
best pair. Everyone else only has the white action, and in the colour action the white part is
already history. Every mark comes from the engine's legal-move generation and is played on a copy
of the game, so the plans never disagree with the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_reader.rules import Action, Game, Mark, Phase


@dataclass(frozen=True)
class Plan:
    """The rest of one player's turn: an optional white and colour mark, and the state after them.

    ``penalty_due`` says that the active player ends the turn without a mark, so ending it will
    cost a penalty; ``after`` does not include it yet because the turn has not ended.
    """

    white: Mark | None
    colour: Mark | None
    after: Game
    penalty_due: bool

    @property
    def marks(self) -> tuple[Mark, ...]:
        return tuple(mark for mark in (self.white, self.colour) if mark is not None)

    def move_for(self, action: Action) -> Mark | None:
        """The part of the plan that answers ``action``."""
        return self.white if action is Action.WHITE else self.colour


def _after(game: Game, marks: tuple[Mark, ...]) -> Game:
    after = game.copy()
    for mark in marks:
        after.play(mark)
    return after


def turn_plans(game: Game, player: str, action: Action | str) -> list[Plan]:
    """Every plan for ``player`` answering ``action`` now, passes first, in the engine's order.

    Raises the engine's IllegalMove for a player not in the game.
    """
    action = Action(action)
    # Only the active player can owe a penalty, and only while they have marked nothing this turn
    # (a colour mark moves the turn to its end phase).
    can_owe = (
        player == game.active
        and not game.has_marked_white(player)
        and game.phase is not Phase.TURN_END
    )
    if action is Action.COLOUR:
        plans = [Plan(None, None, game.copy(), can_owe)]
        for colour in game.legal_marks(player, Action.COLOUR):
            plans.append(Plan(None, colour, _after(game, (colour,)), False))
        return plans
    whites: list[Mark | None] = [None, *game.legal_marks(player, Action.WHITE)]
    plans = []
    for white in whites:
        after_white = _after(game, (white,)) if white is not None else game.copy()
        if player != game.active:
            plans.append(Plan(white, None, after_white, False))
            continue
        plans.append(Plan(white, None, after_white, can_owe and white is None))
        for colour in after_white.legal_marks(player, Action.COLOUR):
            marks = (colour,) if white is None else (white, colour)
            plans.append(Plan(white, colour, _after(game, marks), False))
    return plans
