"""A recorded sheet-mode game played from a terminal waits for the people typing at it.

Before: with a recorded camera the terminal was never read, the game played at machine speed,
and nothing said whose decision it was.
"""

from __future__ import annotations

import itertools
import os
import queue
import signal
import threading
from pathlib import Path

import pytest

from pi_reader.cli import main, terminal
from pi_reader.cli import run as run_module
from pi_reader.rules import Action

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo-game"


class Typist:
    """A terminal: says it is one, and types a pass for each decision the game waits for."""

    def __init__(self) -> None:
        self.waiting: queue.SimpleQueue[list[tuple[str, Action]] | None] = queue.SimpleQueue()
        self.typed: list[str] = []

    def isatty(self) -> bool:
        return True

    def __iter__(self):
        while (decisions := self.waiting.get()) is not None:
            for player, _action in decisions:
                self.typed.append(f"{player} pass")
                yield f"{player} pass\n"


@pytest.fixture
def typist(monkeypatch: pytest.MonkeyPatch) -> Typist:
    person = Typist()
    real_prompt, last = terminal.prompt, []

    def watched_prompt(game):
        decisions = game.undecided() if hasattr(game, "undecided") else []
        if decisions and decisions != last:
            last[:] = decisions
            person.waiting.put(list(decisions))
        return real_prompt(game)

    monkeypatch.setattr(run_module, "prompt", watched_prompt)
    monkeypatch.setattr("sys.stdin", person)
    yield person
    person.waiting.put(None)


def run_demo(tmp_path: Path, *extra: str) -> int:
    argv = ["run", "--no-hardware", "--camera", f"dir:{DEMO}", "--players", "ann,bob"]
    return main([*argv, "--mode", "sheet", "--state-dir", str(tmp_path), *extra])


def test_each_roll_waits_for_the_typed_decisions_and_the_prompt_says_whose(
    tmp_path: Path, typist: Typist, capsys: pytest.CaptureFixture[str]
) -> None:
    # Should the game wait for ever, a SIGTERM (the service's stop) ends it after two minutes.
    guard = threading.Timer(120, lambda: os.kill(os.getpid(), signal.SIGTERM))
    guard.start()
    try:
        assert run_demo(tmp_path, "--pace", "fast") == 0
    finally:
        guard.cancel()
    out = capsys.readouterr().out
    said = [line[5:] for line in out.splitlines() if line.startswith("SAY: ")]
    sums = [i for i, text in enumerate(said) if text.startswith("White sum")]
    assert len(sums) >= 3
    for start, end in itertools.pairwise(sums):
        # Between two rolls read, ann and bob both passed: the next roll waited for them.
        between = said[start:end]
        assert "ann passes." in between and "bob passes." in between, between
    assert "> white sum 8: ann, bob may mark it (NAME COLOUR 8) or pass (NAME pass)" in out
    assert "ann's colour action" in out


def test_a_terminal_plays_a_recording_at_real_pace_by_default(
    tmp_path: Path, typist: Typist, monkeypatch: pytest.MonkeyPatch
) -> None:
    paced = []

    class Stop(Exception):
        pass

    def real_pace(camera, fps):
        paced.append(fps)
        raise Stop

    monkeypatch.setattr(run_module, "RealPace", real_pace)
    with pytest.raises(Stop):
        run_demo(tmp_path)
    assert paced == [10.0]
