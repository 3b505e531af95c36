"""The speakers: the fakes, and espeak-ng through a player, with real subprocesses."""

from __future__ import annotations

import io
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi_reader.devices.errors import DeviceClosed, SpeakerUnavailable
from pi_reader.devices.speaker import (
    AnnouncementQueue,
    EspeakSpeaker,
    FakeSpeaker,
    PrintSpeaker,
    Speaker,
)

# "seven" in the six languages of the game (non-Latin scripts on purpose).
SEVEN = {"en": "seven", "ru": "семь", "uk": "сім", "es": "siete", "de": "sieben", "fa": "هفت"}


def test_fake_speaker_records_in_order() -> None:
    speaker = FakeSpeaker()
    speaker.say("seven")
    speaker.say("red locked")
    assert speaker.spoken == ["seven", "red locked"]
    speaker.close()
    with pytest.raises(DeviceClosed):
        speaker.say("too late")
    assert isinstance(speaker, Speaker)


def test_print_speaker() -> None:
    stream = io.StringIO()
    speaker = PrintSpeaker(stream)
    speaker.say("seven")
    assert stream.getvalue() == "SAY: seven\n"


def test_missing_espeak_is_reported_at_construction(tmp_path: Path) -> None:
    with pytest.raises(SpeakerUnavailable, match="apt install espeak-ng"):
        EspeakSpeaker(espeak=str(tmp_path / "no-espeak"))


def test_missing_player_is_reported_at_construction(tmp_path: Path) -> None:
    fake_espeak = make_script(tmp_path / "espeak-ng", "cat >/dev/null")
    with pytest.raises(SpeakerUnavailable, match="apt install alsa-utils"):
        EspeakSpeaker(espeak=str(fake_espeak), player=str(tmp_path / "no-aplay"))


def make_script(path: Path, body: str) -> Path:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_pipes_text_through_synth_into_player_without_a_shell(tmp_path: Path) -> None:
    # The synth stand-in writes its arguments and the text it read; the player stores its input,
    # but only once the test opens the gate, which it does after say() returned: a say() that
    # waited for the player would leave it to give up on the gate (after 20 s) and say so.
    synth = make_script(tmp_path / "espeak-ng", 'echo "args: $*"; cat')
    heard, gate, late = tmp_path / "heard.txt", tmp_path / "gate", tmp_path / "late"
    player = make_script(
        tmp_path / "aplay",
        f'echo "$*" > {tmp_path}/player-args; i=0\n'
        f"while [ ! -e {gate} ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i + 1)); done\n"
        f"[ -e {gate} ] || touch {late}\ncat >> {heard}",
    )
    speaker = EspeakSpeaker(
        "ru", rate=170, espeak=str(synth), player=str(player), device="plughw:1,0"
    )
    speaker.say(SEVEN["ru"])
    speaker.say("-rf; not an option $(whoami)")
    gate.touch()
    speaker.wait_until_idle()
    speaker.close()
    assert not late.exists()  # say() queues; it does not wait for the player
    text = heard.read_text("utf-8")
    header = "args: -v ru -s 170 --stdout\n"
    assert text == f"{header}{SEVEN['ru']}{header}-rf; not an option $(whoami)"
    assert (tmp_path / "player-args").read_text().split() == ["-q", "-D", "plughw:1,0"]
    assert speaker.failures == 0


def test_a_failing_player_is_counted_not_raised(tmp_path: Path) -> None:
    synth = make_script(tmp_path / "espeak-ng", "cat")
    player = make_script(tmp_path / "aplay", "cat >/dev/null; echo 'no soundcard' >&2; exit 1")
    speaker = EspeakSpeaker(espeak=str(synth), player=str(player))
    speaker.say("seven")
    speaker.wait_until_idle()
    assert speaker.failures == 1
    speaker.close()
    with pytest.raises(DeviceClosed):
        speaker.say("eight")


def test_close_speaks_what_is_queued(tmp_path: Path) -> None:
    synth = make_script(tmp_path / "espeak-ng", "cat")
    heard = tmp_path / "heard.txt"
    player = make_script(tmp_path / "aplay", f"cat >> {heard}; echo >> {heard}")
    speaker = EspeakSpeaker(espeak=str(synth), player=str(player))
    for word in ("one", "two", "three"):
        speaker.say(word)
    speaker.say("   ")  # blank texts are not spoken
    speaker.close()
    assert heard.read_text().split() == ["one", "two", "three"]


def test_queued_texts_are_spoken_when_the_program_exits_without_close(tmp_path: Path) -> None:
    synth = make_script(tmp_path / "espeak-ng", "sleep 0.05; cat")
    heard = tmp_path / "heard.txt"
    player = make_script(tmp_path / "aplay", f"cat >> {heard}; echo >> {heard}")
    program = (
        "from pi_reader.devices.speaker import EspeakSpeaker\n"
        f"speaker = EspeakSpeaker(espeak={str(synth)!r}, player={str(player)!r})\n"
        "for word in ('red', 'wins', 'with', 'forty'):\n"
        "    speaker.say(word)\n"
    )
    subprocess.run([sys.executable, "-c", program], check=True, timeout=60)
    assert heard.read_text().split() == ["red", "wins", "with", "forty"]


@pytest.mark.skipif(
    not (shutil.which("espeak-ng") and shutil.which("aplay")), reason="espeak-ng/aplay absent"
)
@pytest.mark.parametrize("language", ["en", "ru", "uk", "es", "de", "fa"])
def test_real_espeak_into_the_null_device(language: str) -> None:
    speaker = EspeakSpeaker(language, device="null")
    speaker.say(SEVEN[language])
    speaker.wait_until_idle()
    speaker.close()
    assert speaker.failures == 0


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def drain(queue: AnnouncementQueue) -> list[str]:
    queue.stop()
    said = []
    while (text := queue.take()) is not None:
        said.append(text)
        queue.done()
    return said


def test_an_announcement_seconds_late_is_dropped_when_something_newer_waits() -> None:
    # Before: the queue was unbounded and said everything, however late.
    clock = Clock()
    queue = AnnouncementQueue(max_wait=3.0, clock=clock)
    queue.put("Penalty for ann, 1 of 4.")
    clock.now += 2
    queue.put("Penalty undone for ann.")
    clock.now += 2
    queue.put("Penalty for ann, 1 of 4.")
    clock.now += 0.5
    assert drain(queue) == ["Penalty undone for ann.", "Penalty for ann, 1 of 4."]
    assert queue.dropped == ["Penalty for ann, 1 of 4."]


def test_one_announcement_is_said_whole_however_long_it_takes() -> None:
    clock = Clock()
    queue = AnnouncementQueue(max_wait=3.0, clock=clock)
    scores = ["Two rows are locked.", "ann scores 40.", "bob scores 31.", "ann wins."]
    for text in scores:
        queue.put(text)
    clock.now += 10  # the first takes long to say: the rest are late, but nothing newer waits
    assert drain(queue) == scores


def test_the_newest_sum_always_wins() -> None:
    clock = Clock()
    queue = AnnouncementQueue(max_wait=3.0, clock=clock)
    queue.put("White sum 7.", kind="white_sum")
    queue.put("bob marks red 7.")
    clock.now += 5
    queue.put("White sum 12.", kind="white_sum")
    clock.now += 5  # even late, a sum is said: it is what the table waits for
    assert drain(queue) == ["White sum 12."]
    assert queue.dropped == ["White sum 7.", "bob marks red 7."]


def test_espeak_speaker_drops_what_would_be_said_late(tmp_path: Path) -> None:
    synth = make_script(tmp_path / "espeak-ng", "cat")
    heard, gate = tmp_path / "heard.txt", tmp_path / "gate"
    player = make_script(
        tmp_path / "aplay",
        f"i=0; while [ ! -e {gate} ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i + 1)); done\n"
        f"cat >> {heard}; echo >> {heard}",
    )
    speaker = EspeakSpeaker(espeak=str(synth), player=str(player))
    clock = Clock()
    speaker._queue.clock = clock
    speaker.say("one")  # being said while the others wait (the player waits for the gate)
    for _ in range(200):
        if speaker._queue._busy:
            break
        time.sleep(0.01)
    speaker.say("White sum 7.", kind="white_sum")
    speaker.say("two")
    clock.now += 5
    speaker.say("three")
    speaker.say("White sum 9.", kind="white_sum")
    gate.touch()
    speaker.close()
    assert heard.read_text().split("\n")[:-1] == ["one", "three", "White sum 9."]
