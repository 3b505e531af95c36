"""The Qwixx game: whose turn it is, the roll, the two actions, locks, penalties and the end.

:class:`Game` is the one place that decides legality. :meth:`Game.check` (and through it
:meth:`Game.play`, :meth:`Game.mark` and the game log) answers with :meth:`Game._refusal`, which
asks two questions that legal-move generation (:meth:`Game.legal_marks`) asks too: may this player
take this action now (:meth:`Game._turn_refusal`), and does this row take this number (each row's
mask of open positions, made by :func:`_row_open`, the rule of a row). A property test checks that
the generated moves are exactly the candidate marks that :meth:`Game.is_legal` accepts.

A turn runs: :meth:`roll` -> white marks (any players, one each, the active one included) ->
at most one colour mark by the active player -> :meth:`end_turn`. The white action ends at the
first colour mark or at :meth:`end_turn`; locks made in it take effect then (so several players may
lock the same row, a third row may lock together with the second, and the active player cannot use
a colour locked in that white action). :meth:`end_turn` gives the active player a penalty when they
marked nothing. The game is over right after the event that ends it: a 4th penalty, or the end of
the action in which the second row locked. Once over, no event is accepted and ``active`` stays the
player whose turn ended the game.

The state lives in flat lists of small integers (per row: the index of the last mark, the number of
marks, a bit mask of the marked numbers) so that :meth:`copy` is cheap and computer players can
search ahead; :meth:`sheet` and :meth:`score` hand out frozen snapshots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from functools import lru_cache
from typing import Any

from pi_reader.rules.sheet import Row, Score, Sheet
from pi_reader.rules.types import (
    COLOURS,
    LOCKS_TO_END,
    MARKS_TO_LOCK,
    MIN_PLAYERS,
    PENALTIES_TO_END,
    PENALTY_POINTS,
    ROW_NUMBERS,
    ROW_POINTS,
    WHITE_DICE,
    Action,
    Colour,
    IllegalMove,
    Mark,
    Move,
    Pass,
    Roll,
    parse_action,
    parse_colour,
    players_problem,
)

LOCK_INDEX = 10  # position of the lock number in every row (the 11th number)
# _INDEX[c][number] is the position of ``number`` in row ``c`` (0 = leftmost); -1 off the sheet.
_INDEX: tuple[tuple[int, ...], ...] = tuple(
    tuple(ROW_NUMBERS[colour].index(n) if 2 <= n <= 12 else -1 for n in range(13))
    for colour in COLOURS
)
_COLOUR_INDEX: dict[Colour, int] = {colour: i for i, colour in enumerate(COLOURS)}

# Why a row refuses a number (codes, so generating moves builds no sentences).
_ROW_OK = 0
_ROW_CLOSED = 1
_ROW_NOT_RIGHT_OF_LAST = 2
_ROW_LOCK_TOO_EARLY = 3
_ROW_LOCKED_THIS_WHITE_ACTION = 4


class Phase(StrEnum):
    """Where the current turn stands."""

    AWAITING_ROLL = "awaiting_roll"  # the active player must roll
    WHITE_ACTION = "white_action"  # white marks by anyone, or the active player's colour mark
    TURN_END = "turn_end"  # the colour mark is made; only end_turn remains
    OVER = "over"


# Enum members as module constants: attribute access on an Enum class is slow in a hot loop.
_WHITE = Action.WHITE
_COLOUR = Action.COLOUR
_AWAITING_ROLL = Phase.AWAITING_ROLL
_WHITE_ACTION = Phase.WHITE_ACTION
_TURN_END = Phase.TURN_END
_OVER = Phase.OVER


def _row_open(last: int, count: int) -> int:
    """The rule of a row, as a bit mask of the positions it takes after a mark at ``last`` with
    ``count`` marks: only numbers right of the last mark (skipped ones are lost for good), and the
    lock number only with at least five marks. (A locked row takes nothing: its mask is 0.)"""
    mask = (1 << (LOCK_INDEX + 1)) - (1 << (last + 1))
    if count < MARKS_TO_LOCK:
        mask &= ~(1 << LOCK_INDEX)
    return mask


def _dice_in_play(locked: Sequence[bool]) -> tuple[str, ...]:
    return WHITE_DICE + tuple(c.value for i, c in enumerate(COLOURS) if not locked[i])


@lru_cache(maxsize=1024)
def _mark_table(player: str) -> tuple[tuple[tuple[Mark, ...], ...], ...]:
    """Every mark ``player`` could ever make, as [action][colour][position]; shared by all games.

    Legal-move generation hands out these cached values instead of building new ones.
    """
    return tuple(
        tuple(
            tuple(Mark(player, action, colour, n) for n in ROW_NUMBERS[colour])
            for colour in COLOURS
        )
        for action in (Action.WHITE, Action.COLOUR)
    )


class Game:
    """A game of Qwixx for 1 to 5 players (1 is solo play: one player, always active).

    The game log insists on 2 to 5 players; solo games exist for computer players.
    ``first`` names the player who rolls first (default: the first listed).
    """

    __slots__ = (
        "_active",
        "_active_marked",
        "_count",
        "_dice",
        "_end_reason",
        "_in_play",
        "_index",
        "_last",
        "_locked",
        "_mask",
        "_names",
        "_open",
        "_penalties",
        "_pending",
        "_phase",
        "_roll",
        "_tables",
        "_white_done",
    )

    def __init__(self, players: Sequence[str], first: str | None = None) -> None:
        names = tuple(players)
        problem = players_problem(names, MIN_PLAYERS, repr)
        if problem is not None:
            raise IllegalMove(problem)
        self._names = names
        self._index = {name: i for i, name in enumerate(names)}
        self._tables = tuple(_mark_table(name) for name in names)
        self._active = 0 if first is None else self._player(first)
        cells = 4 * len(names)
        self._last = [-1] * cells
        self._count = [0] * cells
        self._mask = [0] * cells  # bit i: the number at position i is marked
        self._open = [_row_open(-1, 0)] * cells  # bit i: the row takes position i now
        self._penalties = [0] * len(names)
        self._locked = [False] * 4
        self._in_play = _dice_in_play(self._locked)
        self._dice = [0] * 6  # white1, white2, red, yellow, green, blue; 0 = not rolled/removed
        self._roll: Roll | None = None
        self._pending: list[int] = []  # colours locked in the open white action
        self._white_done = [False] * len(names)
        self._active_marked = False
        self._phase = _AWAITING_ROLL
        self._end_reason: str | None = None

    def copy(self) -> Game:
        """An independent game in the same state (cheap: a handful of list copies)."""
        clone = Game.__new__(Game)
        clone._names = self._names
        clone._index = self._index
        clone._tables = self._tables
        clone._active = self._active
        clone._last = self._last[:]
        clone._count = self._count[:]
        clone._mask = self._mask[:]
        clone._open = self._open[:]
        clone._penalties = self._penalties[:]
        clone._locked = self._locked[:]
        clone._in_play = self._in_play
        clone._dice = self._dice[:]
        clone._roll = self._roll
        clone._pending = self._pending[:]
        clone._white_done = self._white_done[:]
        clone._active_marked = self._active_marked
        clone._phase = self._phase
        clone._end_reason = self._end_reason
        return clone

    # ----------------------------------------------------------------------------- the state

    @property
    def players(self) -> tuple[str, ...]:
        return self._names

    @property
    def active(self) -> str:
        """Whose turn it is; once the game is over, the player whose turn ended it."""
        return self._names[self._active]

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def over(self) -> bool:
        return self._phase is _OVER

    @property
    def end_reason(self) -> str | None:
        """Why the game ended, in words (``None`` while it runs)."""
        return self._end_reason

    @property
    def current_roll(self) -> Roll | None:
        """The roll of the current turn (``None`` before the roll)."""
        return self._roll

    @property
    def locked(self) -> tuple[Colour, ...]:
        """Rows closed for everyone (a lock made in the open white action is not yet among them)."""
        return tuple(colour for i, colour in enumerate(COLOURS) if self._locked[i])

    @property
    def removed_dice(self) -> tuple[Colour, ...]:
        """Coloured dice out of the game: one per locked row."""
        return self.locked

    @property
    def pending_locks(self) -> tuple[Colour, ...]:
        """Rows locked in the open white action; they close when that action ends."""
        return tuple(colour for i, colour in enumerate(COLOURS) if i in self._pending)

    @property
    def dice_in_play(self) -> tuple[str, ...]:
        """The dice a roll must name: both white dice and the coloured dice not removed."""
        return self._in_play

    @property
    def winners(self) -> tuple[str, ...]:
        """The players with the highest total once the game is over (ties share); else empty."""
        if not self.over:
            return ()
        totals = [self._total(p) for p in range(len(self._names))]
        best = max(totals)
        return tuple(name for name, total in zip(self._names, totals, strict=True) if total == best)

    def penalties(self, player: str) -> int:
        return self._penalties[self._player(player)]

    def has_marked_white(self, player: str) -> bool:
        """Whether ``player`` made their white mark in this turn."""
        return self._white_done[self._player(player)]

    def row(self, player: str, colour: Colour | str) -> Row:
        p = self._player(player)
        return self._row(p, _COLOUR_INDEX[parse_colour(colour)])

    def sheet(self, player: str) -> Sheet:
        p = self._player(player)
        rows = tuple(self._row(p, c) for c in range(4))
        return Sheet(player=self._names[p], rows=rows, penalties=self._penalties[p])

    def score(self, player: str) -> Score:
        return self.sheet(player).score

    def to_json(self) -> dict[str, Any]:
        """The state as a JSON-ready object: exactly the shape ``pi-reader game replay --json``
        prints (``players`` with ``name``, ``marks``, ``locks``, ``penalties``, ``score``; then
        ``locked``, ``removed_dice``, ``active``, ``over``, ``winners``)."""
        players = []
        for name in self._names:
            sheet = self.sheet(name)
            players.append(
                {
                    "name": name,
                    "marks": {row.colour.value: list(row.marked) for row in sheet.rows},
                    "locks": [colour.value for colour in sheet.locks],
                    "penalties": sheet.penalties,
                    "score": sheet.score.to_json(),
                }
            )
        return {
            "players": players,
            "locked": [colour.value for colour in self.locked],
            "removed_dice": [colour.value for colour in self.removed_dice],
            "active": self.active,
            "over": self.over,
            "winners": list(self.winners),
        }

    # ----------------------------------------------------------------------------- legality

    def check(self, move: Move) -> None:
        """Raise :class:`IllegalMove` with the reason if ``move`` is not legal now."""
        reason = self._refusal(move)
        if reason is not None:
            raise IllegalMove(reason)

    def is_legal(self, move: Move) -> bool:
        return self._refusal(move) is None

    def legal_marks(self, player: str, action: Action | str) -> list[Mark]:
        """Every legal mark of ``player`` in ``action`` now, by row then left to right.

        For the colour action this is the state after the white action ends (locks made in it
        count), which is when a colour mark takes effect.
        """
        p = self._index.get(player)
        if p is None:
            raise IllegalMove(self._not_a_player(player))
        if action is not _WHITE and action is not _COLOUR:
            action = parse_action(action)
        if self._turn_refusal(p, action) is not None:
            return []
        # The candidates are the numbers the action's dice make; the rows' open masks (see
        # _row_open) and the colour action's pending-lock rule keep the legal ones.
        dice = self._dice
        opened = self._open[4 * p : 4 * p + 4]
        marks: list[Mark] = []
        if action is _WHITE:
            table = self._tables[p][0]
            total = dice[0] + dice[1]
            for c in range(4):
                i = _INDEX[c][total]
                if opened[c] >> i & 1:
                    marks.append(table[c][i])
            return marks
        table = self._tables[p][1]
        white1, white2 = dice[0], dice[1]
        pending = self._pending
        for c in range(4):
            die = dice[2 + c]
            if not die or c in pending:
                continue
            index = _INDEX[c]
            first, second = index[white1 + die], index[white2 + die]
            if first > second:
                first, second = second, first
            if opened[c] >> first & 1:
                marks.append(table[c][first])
            if second != first and opened[c] >> second & 1:
                marks.append(table[c][second])
        return marks

    def legal_moves(self, player: str) -> list[Move]:
        """Every legal move of ``player`` now: white marks, colour marks, and a pass for each
        action the player may still take."""
        moves: list[Move] = []
        p = self._player(player)
        for action in (_WHITE, _COLOUR):
            if self._turn_refusal(p, action) is None:
                moves.extend(self.legal_marks(player, action))
                moves.append(Pass(self._names[p], action))
        return moves

    def _refusal(self, move: Move) -> str | None:
        """The one place that decides legality: the reason ``move`` is refused, or ``None``."""
        p = self._index.get(move.player)
        if p is None:
            return self._not_a_player(move.player)
        action = move.action
        turn = self._turn_refusal(p, action)
        if turn is not None or isinstance(move, Pass):
            return turn
        c = _COLOUR_INDEX[move.colour]
        number = move.number
        white1, white2 = self._dice[0], self._dice[1]
        if action is _WHITE:
            if number != white1 + white2:
                return (
                    f"{number} is not the sum of the white dice "
                    f"({white1}+{white2}={white1 + white2})"
                )
        else:
            die = self._dice[2 + c]
            if not die or (number != white1 + die and number != white2 + die):
                return self._explain_colour_sum(c, number)
        code = self._row_refusal(4 * p + c, c, _INDEX[c][number], action is _COLOUR)
        return None if code == _ROW_OK else self._explain_row(code, p, c, number)

    def _turn_refusal(self, p: int, action: Action) -> str | None:
        """Why player ``p`` may not take ``action`` now (whatever the number), or ``None``."""
        phase = self._phase
        if phase is _OVER:
            return f"the game is over: {self._end_reason}"
        if phase is _AWAITING_ROLL:
            return f"nobody marks before the roll: {self.active} must roll first"
        name = self._names[p]
        if action is _WHITE:
            if phase is _TURN_END:
                return "the white action is over: the colour mark has been made this turn"
            if self._white_done[p]:
                return f"{name} already marked in this white action (one white mark per player)"
            return None
        if p != self._active:
            return f"only the active player, {self.active}, may use the colour action"
        if phase is _TURN_END:
            return f"{name} already made the colour mark this turn"
        if self._pending and sum(self._locked) + len(self._pending) >= LOCKS_TO_END:
            return (
                "the white action locked a second row, so the game ends with the white action; "
                "there is no colour action"
            )
        return None

    def _row_refusal(self, slot: int, c: int, i: int, colour_action: bool) -> int:
        """Whether row ``c`` of a sheet (``slot``) takes the number at position ``i`` (a code)."""
        if colour_action and c in self._pending:
            return _ROW_LOCKED_THIS_WHITE_ACTION
        if self._open[slot] >> i & 1:
            return _ROW_OK
        if self._locked[c]:
            return _ROW_CLOSED
        if i <= self._last[slot]:
            return _ROW_NOT_RIGHT_OF_LAST
        return _ROW_LOCK_TOO_EARLY

    def _explain_colour_sum(self, c: int, number: int) -> str:
        colour = COLOURS[c].value
        white1, white2, die = self._dice[0], self._dice[1], self._dice[2 + c]
        if not die:
            return f"the {colour} die has been removed, so the {colour} row takes no colour mark"
        options = " or ".join(str(n) for n in sorted({white1 + die, white2 + die}))
        return (
            f"{number} is not a white die plus the {colour} die "
            f"(white {white1} and {white2}, {colour} {die}: {options})"
        )

    def _explain_row(self, code: int, p: int, c: int, number: int) -> str:
        colour = COLOURS[c].value
        slot = 4 * p + c
        if code == _ROW_CLOSED:
            return f"the {colour} row is locked: nobody marks it any more"
        if code == _ROW_LOCKED_THIS_WHITE_ACTION:
            return (
                f"the {colour} row was locked in this white action; the lock takes effect when the "
                f"white action ends, so {colour} cannot be used in the colour action"
            )
        if code == _ROW_NOT_RIGHT_OF_LAST:
            last = ROW_NUMBERS[COLOURS[c]][self._last[slot]]
            if last == number:
                return f"{self._names[p]} already marked {number} in the {colour} row"
            return (
                f"{number} is left of {last}, the last mark in {self._names[p]}'s {colour} row: "
                "numbers are marked left to right and skipped ones are lost"
            )
        return (
            f"the lock number {number} needs at least {MARKS_TO_LOCK} marks in the {colour} row "
            f"first; {self._names[p]} has {self._count[slot]}"
        )

    # ----------------------------------------------------------------------------- events

    def roll(self, dice: Roll | Mapping[str, object]) -> Roll:
        """Start the turn's actions with a roll of exactly the dice in play."""
        roll = dice if isinstance(dice, Roll) else Roll.from_dict(dice)
        if self._phase is not _AWAITING_ROLL:
            if self._phase is _OVER:
                raise IllegalMove(f"the game is over: {self._end_reason}")
            raise IllegalMove("the dice were already rolled this turn; end the turn first")
        values = [roll.white1, roll.white2, roll.red, roll.yellow, roll.green, roll.blue]
        for c, colour in enumerate(COLOURS):
            value = values[2 + c]
            if self._locked[c] and value is not None:
                raise IllegalMove(
                    f"the {colour.value} die was removed when the {colour.value} row locked; "
                    "a roll names only the dice in play"
                )
            if not self._locked[c] and value is None:
                raise IllegalMove(f"the roll lacks the {colour.value} die, which is still in play")
        self._dice = [value or 0 for value in values]
        self._roll = roll
        self._phase = _WHITE_ACTION
        return roll

    def mark(self, player: str, action: Action | str, colour: Colour | str, number: int) -> Mark:
        """Mark ``number`` in ``player``'s ``colour`` row with ``action``'s dice; the mark made."""
        # Mark parses the plain spellings ("white", "red") into the enum members itself.
        move = Mark(player, action, colour, number)  # type: ignore[arg-type]
        self.play(move)
        return move

    def play(self, move: Move) -> None:
        """Make a legal move (a pass changes nothing) or raise :class:`IllegalMove`."""
        reason = self._refusal(move)
        if reason is not None:
            raise IllegalMove(reason)
        if isinstance(move, Pass):
            return
        p = self._index[move.player]
        c = _COLOUR_INDEX[move.colour]
        i = _INDEX[c][move.number]
        if move.action is _WHITE:
            self._white_done[p] = True
        else:
            self._end_white_action()
            self._phase = _TURN_END
        slot = 4 * p + c
        self._last[slot] = i
        self._mask[slot] |= 1 << i
        if p == self._active:
            self._active_marked = True
        if i != LOCK_INDEX:
            count = self._count[slot] = self._count[slot] + 1
            self._open[slot] = _row_open(i, count)
            return
        self._count[slot] += 2  # the lock symbol is a mark too
        self._open[slot] = 0
        if move.action is _WHITE:
            if c not in self._pending:
                self._pending.append(c)
        else:
            self._lock((c,))

    def end_turn(self) -> None:
        """End the turn: the white action ends (its locks take effect), a penalty if the active
        player marked nothing, then the next player (to the left) is active."""
        if self._phase is _OVER:
            raise IllegalMove(f"the game is over: {self._end_reason}")
        if self._phase is _AWAITING_ROLL:
            raise IllegalMove(f"there was no roll this turn: {self.active} must roll first")
        self._end_white_action()
        if self._phase is _OVER:
            return  # the game ended during the turn: no penalty for it
        if not self._active_marked:
            self._penalties[self._active] += 1
            if self._penalties[self._active] >= PENALTIES_TO_END:
                self._finish(f"{self.active} took a {PENALTIES_TO_END}th penalty")
                return
        self._active = (self._active + 1) % len(self._names)
        self._phase = _AWAITING_ROLL
        self._dice = [0] * 6
        self._roll = None
        self._white_done = [False] * len(self._names)
        self._active_marked = False

    # ----------------------------------------------------------------------------- internals

    def _end_white_action(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, []
            self._lock(sorted(pending))

    def _lock(self, colours: Sequence[int]) -> None:
        """Close rows for everyone and take their dice out; the game ends at the second."""
        for c in colours:
            self._locked[c] = True
            self._dice[2 + c] = 0
            for slot in range(c, len(self._open), 4):
                self._open[slot] = 0
        self._in_play = _dice_in_play(self._locked)
        if sum(self._locked) >= LOCKS_TO_END:
            names = ", ".join(colour.value for colour in self.locked)
            self._finish(f"two rows are locked ({names})")

    def _finish(self, reason: str) -> None:
        self._phase = _OVER
        self._end_reason = reason

    def _player(self, name: str) -> int:
        p = self._index.get(name)
        if p is None:
            raise IllegalMove(self._not_a_player(name))
        return p

    def _not_a_player(self, name: object) -> str:
        return f"{name!r} is not a player in this game (players: {', '.join(self._names)})"

    def _row(self, p: int, c: int) -> Row:
        slot = 4 * p + c
        mask = self._mask[slot]
        numbers = ROW_NUMBERS[COLOURS[c]]
        marked = tuple(numbers[i] for i in range(11) if mask >> i & 1)
        return Row(
            colour=COLOURS[c],
            marked=marked,
            locked_here=bool(mask >> LOCK_INDEX & 1),
            closed=self._locked[c],
        )

    def _total(self, p: int) -> int:
        rows = sum(ROW_POINTS[self._count[4 * p + c]] for c in range(4))
        return rows - PENALTY_POINTS * self._penalties[p]

    def __repr__(self) -> str:
        return (
            f"<Game players={list(self._names)} active={self.active!r} phase={self._phase.value}>"
        )
