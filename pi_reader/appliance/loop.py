"""The table-side loop: frames in; rolls read, announced, kept; locks lit; faults survived.

Each iteration takes one frame, feeds the settle detector and, while the dice lie still after
motion, reads the frame. When the dice have settled, the readings of the last few still frames
are combined by vote. A trusted roll goes to the game (journal first, then the announcement);
a doubtful one is explained in plain words and the loop waits for the next settle. Button
presses and typed marks are taken between frames. A camera that stops answering is retried
with back-off while the display says so; the game is kept throughout.
"""

from __future__ import annotations

import logging
import queue
import textwrap
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np

from pi_reader.appliance.catalogue import Catalogue
from pi_reader.appliance.events import (
    ButtonEntry,
    Entry,
    Listener,
    MarkEntry,
    PassEntry,
    StillRead,
    TableChange,
    UndoEntry,
)
from pi_reader.appliance.motion import MotionSettings, SettleDetector
from pi_reader.appliance.notices import Notice, Outcome, Refused, notice, render
from pi_reader.appliance.paper import PaperGame
from pi_reader.appliance.sheet import SheetGame
from pi_reader.appliance.table import Table
from pi_reader.appliance.vote import combine_readings
from pi_reader.devices import (
    ButtonPanel,
    Camera,
    CameraExhausted,
    CameraUnavailable,
    Display,
    Leds,
    Speaker,
)
from pi_reader.rules import COLOURS, Roll
from pi_reader.vision.types import DIE_COLOURS, Problem, ProblemKind, RollReading

log = logging.getLogger(__name__)

ReadRoll = Callable[[np.ndarray, Sequence[str]], RollReading]
T = TypeVar("T")
VOTE_FRAMES = 3
MAX_PROBLEMS_SAID = 2
SAME_ROLL_TOLERANCE = 0.3  # dice within this share of a die's width count as not moved
_WITH_COLOUR = {
    ProblemKind.MISSING_DIE: ("problem.missing_die", "die"),
    ProblemKind.COCKED_DIE: ("problem.cocked_die", "die"),
    ProblemKind.UNREADABLE_VALUE: ("problem.unreadable_value", "die_object"),
    ProblemKind.DUPLICATE_COLOUR: ("problem.duplicate_colour", "die_object"),
    ProblemKind.REMOVED_DIE_PRESENT: ("problem.removed_die_present", "die_object"),
}


class ApplianceStopped(RuntimeError):
    """A job was submitted to a loop that has ended (the frames ran out, or it was stopped)."""


class Notifier(Protocol):
    """The service manager's notifications (systemd READY, WATCHDOG and STOPPING)."""

    def ready(self) -> object: ...

    def watchdog(self) -> object: ...

    def stopping(self) -> object: ...


class NoNotifier:
    """When not run by systemd."""

    def ready(self) -> None:
        """Nobody to tell."""

    def watchdog(self) -> None:
        """Nobody to tell."""

    def stopping(self) -> None:
        """Nobody to tell."""


class FrameClock:
    """Timestamps for frames: frame count over fps for recordings, the monotonic clock live."""

    def __init__(self, fps: float | None) -> None:
        self.fps = fps
        self._frames = 0

    def __call__(self) -> float:
        self._frames += 1
        if self.fps is None:
            return time.monotonic()
        return self._frames / self.fps


@dataclass
class CameraRetry:
    """Back-off between attempts to get a lost camera back: first, doubling, at most."""

    first: float = 0.5
    longest: float = 10.0
    sleep: Callable[[float], None] = time.sleep


def problem_notice(problem: Problem) -> Notice:
    """A reader problem as something to say, naming the die when the reader named it."""
    if problem.kind in _WITH_COLOUR:
        key, value_name = _WITH_COLOUR[problem.kind]
        if problem.colour in DIE_COLOURS:
            return Notice(key, {value_name: problem.colour})
        if problem.kind is ProblemKind.DUPLICATE_COLOUR:
            return notice("problem.extra_die")
        return notice(f"{key}_any")
    return notice(f"problem.{problem.kind.value}")


def same_roll(a: RollReading, b: RollReading) -> bool:
    """The same dice showing the same faces at the same places (nobody has rolled since)."""
    if len(a.dice) != len(b.dice):
        return False
    unmatched = list(b.dice)
    for die in a.dice:
        tolerance = SAME_ROLL_TOLERANCE * max(die.box[2], die.box[3], 1)
        match = next(
            (
                other
                for other in unmatched
                if other.colour == die.colour
                and other.value == die.value
                and abs(other.centre[0] - die.centre[0]) <= tolerance
                and abs(other.centre[1] - die.centre[1]) <= tolerance
            ),
            None,
        )
        if match is None:
            return False
        unmatched.remove(match)
    return True


def same_dice(a: Roll, b: Roll) -> bool:
    """The same values on the same dice (the two white dice in either order)."""

    def canonical(roll: Roll) -> tuple[object, ...]:
        return (sorted((roll.white1, roll.white2)), [roll.die(colour) for colour in COLOURS])

    return canonical(a) == canonical(b)


def last_roll(events: Sequence[dict[str, Any]]) -> Roll | None:
    """The last roll in a journal, if any."""
    rolls = [e["dice"] for e in events if e.get("event") == "roll"]
    return Roll.from_dict(rolls[-1]) if rolls else None


class Appliance:
    """Wires camera, reader, game and devices together; :meth:`run` is the loop."""

    def __init__(
        self,
        *,
        camera: Camera,
        read_roll: ReadRoll,
        table: Table,
        catalogue: Catalogue,
        speaker: Speaker,
        display: Display,
        leds: Leds,
        buttons: ButtonPanel | None = None,
        commands: Callable[[], list[str]] | None = None,
        notifier: Notifier | None = None,
        clock: Callable[[], float] | None = None,
        motion: MotionSettings | None = None,
        retry: CameraRetry | None = None,
        on_camera_start: Callable[[Camera], None] | None = None,
        listeners: Sequence[Listener] = (),
    ) -> None:
        self.camera = camera
        self.read_roll = read_roll
        self.table = table
        self.catalogue = catalogue
        self.speaker = speaker
        self.display = display
        self.leds = leds
        self.commands = commands
        self.notifier = notifier or NoNotifier()
        self.clock = clock or FrameClock(None)
        self.detector = SettleDetector(motion)
        self.retry = retry or CameraRetry()
        self.on_camera_start = on_camera_start
        self.frames = 0
        self.stop_requested = False
        self._readings: deque[RollReading] = deque(maxlen=VOTE_FRAMES)
        self._last_roll: RollReading | None = None
        self._journal_roll: Roll | None = None
        self._presses: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._read_when_still = False
        self.listeners = list(listeners)
        self._jobs: queue.SimpleQueue[tuple[Callable[[Appliance], Any], Future[Any]]] = (
            queue.SimpleQueue()
        )
        self._jobs_lock = threading.Lock()
        self._taking_jobs = True
        self._said: list[str] = []
        self._changed = False
        self._still: StillRead | None = None
        if buttons is not None:
            buttons.on_lock = self.press
            buttons.on_penalty = lambda: self.press("penalty")
            buttons.on_undo = lambda: self.press("undo")

    # --- the loop -------------------------------------------------------------------------------
    def run(self, max_frames: int | None = None) -> int:
        """Play until the frames run out, a stop is requested, or ``max_frames`` were seen."""
        self._tell(self.table.opening_notices())
        self.leds.set_removed(self.table.removed)
        if self.table.resumed:
            # Restarted mid-game: the dice lying still may be a roll never read (read it), or
            # the last roll of the journal (recognised by its values, not taken twice).
            self._read_when_still = True
            self._journal_roll = last_roll(self.table.game.events)
            if isinstance(self.table.game, SheetGame):
                self._handle(self.table.game.resume())
        self._show_waiting(with_players=True)
        self._changed = True
        self._publish()
        self._start_camera()
        self.notifier.ready()
        try:
            while not self.stop_requested and (max_frames is None or self.frames < max_frames):
                self.notifier.watchdog()
                self._take_inputs()
                frame = self._capture()
                if frame is None:
                    self.say_only([notice("app.frames_over")])
                    break
                self.frames += 1
                for listener in self.listeners:
                    listener.frame(frame)
                self._observe(frame, self.clock())
                self._publish()
            self._take_inputs()
            self._publish()
        finally:
            self._stop_taking_jobs()
            self.notifier.stopping()
            self.camera.stop()
        return 0

    def _start_camera(self, wait_first: bool = False, said: bool = False) -> bool:
        """Start the camera, retrying with back-off while it is unavailable; False if stopped.

        ``said``: the loss was already announced. A camera missing at the very start is
        announced as lost, and as back once it answers.
        """
        delay = self.retry.first
        initial = not wait_first
        while not self.stop_requested:
            if wait_first:
                self.notifier.watchdog()
                self.retry.sleep(delay)
                delay = min(delay * 2, self.retry.longest)
            wait_first = True
            try:
                self._start()
            except CameraUnavailable as error:
                log.warning("camera unavailable: %s", error)
                if not said:
                    self._camera_lost()
                    said = True
                continue
            if initial and said:
                self._tell([notice("app.camera_back")])
            return True
        return False

    def _capture(self) -> np.ndarray | None:
        """The next frame; through a lost camera's absence (said once); None when it ends."""
        lost = False
        while not self.stop_requested:
            try:
                frame = self.camera.capture()
            except CameraExhausted:
                return None
            except CameraUnavailable as error:
                log.warning("camera unavailable: %s", error)
                if not lost:
                    self._camera_lost()
                    lost = True
                self.camera.stop()
                if not self._start_camera(wait_first=True, said=True):
                    return None
                continue
            if lost:
                self._tell([notice("app.camera_back")])
                self._show_waiting()
                self._read_when_still = True
            return frame
        return None

    def _start(self) -> None:
        """Start the camera and fix its picture as calibration stored it (if a hook was given)."""
        self.camera.start()
        if self.on_camera_start is not None:
            self.on_camera_start(self.camera)

    def _camera_lost(self) -> None:
        self._tell([notice("app.camera_lost")])

    # --- frames ---------------------------------------------------------------------------------
    def _observe(self, frame: np.ndarray, timestamp: float) -> None:
        if self._read_when_still:
            # The dice may have been rolled while the camera was away: start afresh and read
            # what lies there once it is still (a roll already read is not taken twice).
            self._read_when_still = False
            self.detector = SettleDetector(self.detector.settings)
            self.detector.update(frame, timestamp)
            self.detector.arm(timestamp)
            self._readings.clear()
            return
        observation = self.detector.update(frame, timestamp)
        if observation.moving:
            self._readings.clear()
            return
        if self.detector.settling:
            self._readings.append(self.read_roll(frame, self.table.removed))
        if observation.settled_now:
            # The still frames were read as they came; the settle frame is read only when none
            # was (a slow camera), so the announcement follows the settle at once.
            if not self._readings:
                self._readings.append(self.read_roll(frame, self.table.removed))
            reading = combine_readings(list(self._readings))
            self._readings.clear()
            self._on_settled(reading, frame)

    def _on_settled(self, reading: RollReading, frame: np.ndarray) -> None:
        misfit = any(p.kind is ProblemKind.CALIBRATION_MISMATCH for p in reading.problems)
        if not reading.dice and not misfit:  # a misfit reads no dice, but must be said
            self.detector.mark_empty()
            return
        self._still = StillRead(frame, reading)
        self._changed = True
        if self._last_roll is not None and same_roll(reading, self._last_roll):
            return
        journal_roll, self._journal_roll = self._journal_roll, None
        if (
            journal_roll is not None
            and reading.ok
            and same_dice(reading.roll, journal_roll)
        ):
            return
        if self.table.game.over:
            # A roll after the end begins a new game with all dice back in play.
            self._tell(self.table.start_new_game())
            self.leds.set_removed(self.table.removed)
            reading = self.read_roll(frame, self.table.removed)
            self._still = StillRead(frame, reading)
        if not reading.ok:
            problems = [problem_notice(p) for p in reading.problems[:MAX_PROBLEMS_SAID]]
            self._tell([*problems, notice("problem.retry")])
            return
        roll = reading.roll
        try:
            outcome = self.table.game.roll(roll)
        except Refused as refusal:
            self._tell([refusal.notice])
            return
        self._last_roll = reading
        # A roll that ended the previous turn's game (a fourth penalty) is not taken: no screen
        # for it, which would credit it to the player whose turn ended.
        taken = any(event.get("event") == "roll" for event in outcome.written)
        self._handle(outcome, roll=roll if taken else None)

    # --- buttons and typed marks ----------------------------------------------------------------
    def press(self, button: str) -> None:
        """A button press from anywhere (gpiozero's thread, a recording): taken between frames."""
        self._presses.put(button)

    def _take_inputs(self) -> None:
        while True:
            try:
                button = self._presses.get_nowait()
            except queue.Empty:
                break
            self._press(button)
        if self.commands is not None:
            for line in self.commands():
                self._command(line)
        while True:
            try:
                job, future = self._jobs.get_nowait()
            except queue.Empty:
                break
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(job(self))
                except Exception as error:  # the job's caller gets its error, the loop goes on
                    future.set_exception(error)

    # --- other ways in (the web app) --------------------------------------------------------------
    def submit(self, job: Callable[[Appliance], T]) -> Future[T]:
        """Run ``job(self)`` between frames in the loop's thread; callable from any thread.

        The future fails with ApplianceStopped once the loop has ended.
        """
        future: Future[T] = Future()
        with self._jobs_lock:
            if self._taking_jobs:
                self._jobs.put((job, future))
                return future
        future.set_exception(ApplianceStopped("the appliance has stopped"))
        return future

    def _stop_taking_jobs(self) -> None:
        with self._jobs_lock:
            self._taking_jobs = False
        while True:
            try:
                _, future = self._jobs.get_nowait()
            except queue.Empty:
                return
            future.set_exception(ApplianceStopped("the appliance has stopped"))

    def enter(self, entry: Entry) -> str | None:
        """An entry from a page (in a job): None when taken, else the refusal in words.

        Taken entries are journalled, said and shown like a button or a typed mark; a refusal
        is only returned (the page that asked shows it), not said to the whole table.
        """
        game = self.table.game
        try:
            if isinstance(entry, ButtonEntry):
                if isinstance(game, PaperGame):
                    outcome = game.press(entry.button)
                elif entry.button == "undo":
                    outcome = game.undo()
                else:
                    return render(self.catalogue, notice("web.sheet_buttons"))
            elif isinstance(game, PaperGame):
                return render(self.catalogue, notice("web.paper_marks"))
            elif isinstance(entry, MarkEntry):
                outcome = game.mark(entry.player, entry.action, entry.colour, entry.number)
            elif isinstance(entry, PassEntry):
                outcome = game.pass_action(entry.player)
            elif isinstance(entry, UndoEntry):
                outcome = game.undo(entry.player)
            else:  # pragma: no cover - Entry is a closed union
                raise TypeError(f"not an entry: {entry!r}")
        except Refused as refusal:
            return render(self.catalogue, refusal.notice)
        self._handle(outcome)
        return None

    def recalibrate(self, calibrate: Callable[[Camera], T]) -> T:
        """Stop the camera, run ``calibrate`` on it (a live calibration, from a job), and start
        it again, whether or not calibration succeeded."""
        self.camera.stop()
        try:
            return calibrate(self.camera)
        finally:
            self._start_camera()

    def replace_table(self, table: Table, catalogue: Catalogue) -> None:
        """A new game chosen elsewhere (the setup page): said, shown and lit as at the start."""
        self.table, self.catalogue = table, catalogue
        self._last_roll, self._journal_roll = None, None
        self._readings.clear()
        self.leds.set_removed(table.removed)
        self._tell(table.opening_notices())
        self._show_waiting(with_players=True)

    def _publish(self) -> None:
        """Tell the listeners once about everything that changed in this iteration."""
        if not self._changed:
            return
        change = TableChange(self.table, self.catalogue, tuple(self._said), self._still)
        self._said, self._changed, self._still = [], False, None
        for listener in self.listeners:
            listener.changed(change)

    def _press(self, button: str) -> None:
        game = self.table.game
        try:
            if isinstance(game, PaperGame):
                outcome = game.press(button)
            elif button == "undo":
                outcome = game.command("undo")
            else:
                return  # in sheet mode the engine knows the locks and penalties itself
        except Refused as refusal:
            self._tell([refusal.notice])
            return
        self._handle(outcome)

    def _command(self, line: str) -> None:
        game = self.table.game
        if isinstance(game, PaperGame):
            log.warning("typed marks are for sheet mode; ignored: %s", line)
            return
        try:
            outcome = game.command(line)
        except Refused as refusal:
            self._tell([refusal.notice])
            return
        self._handle(outcome)

    # --- saying and showing ---------------------------------------------------------------------
    def _handle(self, outcome: Outcome, roll: Roll | None = None) -> None:
        """Journal first, then LEDs, then say and show; the end of the game if it came."""
        self._changed = True
        self.table.commit(outcome)
        self.leds.set_removed(self.table.removed)
        self._tell(outcome.notices, roll=roll)
        if self.table.game.over and (outcome.written or outcome.rewrite):
            self._tell(self.table.game.end_notices())
        elif roll is None and outcome.rewrite:
            self._show_waiting()

    def say(self, notices: Sequence[Notice]) -> None:
        """Say and show ``notices`` (device warnings at start, goodbye at the end)."""
        self._tell(notices)

    def say_only(self, notices: Sequence[Notice]) -> None:
        """Say ``notices`` but leave the display as it is (the result of a finished game)."""
        for item in notices:
            text = render(self.catalogue, item)
            self._said.append(text)
            self._changed = True
            self.speaker.say(text)

    def _tell(self, notices: Sequence[Notice], roll: Roll | None = None) -> None:
        if not notices:
            return
        texts = [render(self.catalogue, item) for item in notices]
        self._said += texts
        self._changed = True
        for text, item in zip(texts, notices, strict=True):
            # The newest sum always wins: a sum still waiting to be said is moot.
            self.speaker.say(text, kind="white_sum" if item.key == "roll.white_sum" else None)
        if roll is not None:
            extra = [t for t, n in zip(texts, notices, strict=True) if n.key != "roll.white_sum"]
            self.display.show(self._roll_screen(roll) + self._wrap(extra))
        else:
            self.display.show(self._wrap(texts))

    def _roll_screen(self, roll: Roll) -> list[str]:
        """The white sum for everyone, and the colour sums the active player may use.

        The long form ("ann: white 8") when everything fits the display, else the short ("W8").
        """
        white = roll.white_sum
        items = []
        for colour in COLOURS:
            sums = roll.colour_sums(colour)
            if sums:
                short = self.catalogue.word(f"colour_short.{colour}")
                if len(sums) == 1:  # both white dice alike: one sum
                    items.append(
                        self.catalogue.text("roll.colour_sum_one", colour=short, sum=sums[0])
                    )
                else:
                    items.append(
                        self.catalogue.text(
                            "roll.colour_sum", colour=short, first=sums[0], second=sums[1]
                        )
                    )
        long = [
            self.catalogue.text("roll.white_line", player=self.table.game.active, sum=white),
            *self._pack(items),
        ]
        if len(long) <= self.display.rows:
            return long
        return self._pack([self.catalogue.text("roll.white_short", sum=white), *items])

    def _pack(self, items: list[str]) -> list[str]:
        lines: list[str] = []
        for item in items:
            if lines and len(lines[-1]) + 1 + len(item) <= self.display.cols:
                lines[-1] += " " + item
            else:
                lines.append(item)
        return lines

    def _wrap(self, texts: Sequence[str]) -> list[str]:
        lines: list[str] = []
        for text in texts:
            lines += textwrap.wrap(text, self.display.cols) or [""]
        return lines

    def _show_waiting(self, with_players: bool = False) -> None:
        """Who rolls next; at the start of a game also who plays, on the lines left (the
        opening sentence names them too, but a small display cuts it after a few words)."""
        game = self.table.game
        if game.over:
            return
        lines = [self.catalogue.text("app.your_roll", player=game.next_roller)]
        if with_players:
            lines += self._names_lines(self.table.players, max(1, self.display.rows - 1))
        self.display.show(lines)

    def _names_lines(self, names: Sequence[str], rows: int) -> list[str]:
        """The names packed into ``rows`` lines, each cut to the same length when they would not
        fit whole (at least 3 letters, which still tells players apart at a table)."""
        longest = max(len(name) for name in names)
        for length in range(longest, 2, -1):
            lines = self._pack([name[:length] for name in names])
            if len(lines) <= rows:
                return lines
        return self._pack([name[:3] for name in names])
