"""The web app in a real browser (Debian's chromium through Playwright), against the real
appliance process playing recorded games at real pace."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from .harness import DEMO, PHONE, ApplianceProcess, journal, replay_json, write_recording

pytestmark = pytest.mark.browser

HOLD = 6.0  # seconds each roll lies still: time for the taps of one turn
WAIT_MS = 20_000


def mark(player: str, action: str, colour: str, number: int) -> dict:
    return {"event": "mark", "player": player, "action": action, "colour": colour, "number": number}


# The demo's first five rolls (white dice sorted; the reader may name them either way round):
# 3 5 | r2 y2 g6 b2,  1 1 | r6 y6 g3 b5,  5 6 | r6 y6 g1 b5,  3 3 | r6 y3 g2 b3,  3 5 | r3 y5 g1 b2.
EXPECTED_AFTER_ROLL = {
    1: [mark("ann", "white", "yellow", 8), mark("bob", "white", "red", 8)],
    2: [mark("bob", "white", "yellow", 2), mark("bob", "colour", "blue", 6)],
    3: [
        mark("ann", "white", "yellow", 11),
        mark("bob", "white", "red", 11),
        mark("ann", "colour", "green", 7),
    ],
    4: [mark("ann", "white", "green", 6)],
    5: [
        mark("ann", "white", "blue", 8),
        mark("bob", "white", "green", 8),
        mark("ann", "colour", "green", 4),
    ],
}


def sorted_whites(event: dict) -> dict:
    if event["event"] != "roll":
        return event
    dice = dict(event["dice"])
    dice["white1"], dice["white2"] = sorted((dice["white1"], dice["white2"]))
    return {**event, "dice": dice}


def seat_links(url: str) -> dict[str, str]:
    """Every seat's join link, once the appliance has shown its first state."""
    for _ in range(200):
        try:
            with urllib.request.urlopen(url + "api/table") as answer:
                return {seat["player"]: seat["url"] for seat in json.load(answer)["seats"]}
        except urllib.error.HTTPError as error:
            if error.code != 503:
                raise
            time.sleep(0.05)
    raise AssertionError("the appliance never showed a state")


def wait_line(page, line: int) -> None:
    page.wait_for_selector(f'body[data-line="{line}"]', timeout=WAIT_MS)


def tap(page, colour: str, number: int) -> None:
    page.click(f'.row-{colour} button.cell[data-number="{number}"]')


def post(url: str, body: object) -> tuple[int, dict]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_a_sheet_game_tapped_on_two_phones_is_the_journal_and_the_replay(
    tmp_path: Path, appliances: list[ApplianceProcess], browser, artefacts: Path
) -> None:
    recording = write_recording(
        tmp_path / "game", [f"roll_00{n}" for n in range(1, 6)], hold_seconds=HOLD
    )
    state = tmp_path / "state"
    appliance = ApplianceProcess(
        ["--mode", "sheet", "--players", "ann,bob", "--camera", f"dir:{recording}"], state
    )
    appliances.append(appliance)
    links = seat_links(appliance.url)
    table = browser.new_page(viewport={"width": 1280, "height": 900})
    table.goto(appliance.url)
    phones = {}
    for player in ("ann", "bob"):
        phones[player] = browser.new_page(viewport=PHONE, device_scale_factor=2, has_touch=True)
        phones[player].goto(links[player])
    ann, bob = phones["ann"], phones["bob"]

    # Roll 1 (white 8), ann active. An illegal tap shows the engine's reason and changes nothing.
    wait_line(ann, 2)
    tap(ann, "red", 3)
    ann.wait_for_selector("#message:not(:empty)", timeout=WAIT_MS)
    assert "is not the sum of the white dice" in ann.inner_text("#message")
    # A lock asks first: declined, nothing is sent; accepted, the engine refuses it (no 5 marks).
    tap(ann, "red", 12)
    assert ann.is_visible("#confirm")
    assert "Lock the red row?" in ann.inner_text("#confirm-text")
    ann.click("#confirm-no")
    tap(ann, "red", 12)
    ann.click("#confirm-yes")
    ann.wait_for_function(
        "document.querySelector('#message').textContent.includes('12')", timeout=WAIT_MS
    )
    assert len(journal(state)) == 2
    tap(ann, "yellow", 8)
    wait_line(table, 3)
    # bob marks, undoes it and marks again: one mark shown, the journal rewritten without it.
    tap(bob, "red", 8)
    wait_line(table, 4)
    bob.click("#undo")
    wait_line(table, 3)
    tap(bob, "red", 8)
    wait_line(table, 4)
    assert table.locator('.sheet[data-player="bob"] .row-red .cell.marked').count() == 1
    table.screenshot(path=str(artefacts / "table-sheet-mode.png"), full_page=True)

    # Roll 2 (white 2), bob active: a white and a colour mark; ann passes.
    wait_line(bob, 6)
    ann.click("#pass")
    tap(bob, "yellow", 2)
    wait_line(table, 7)
    tap(bob, "blue", 6)
    wait_line(table, 8)
    bob.screenshot(path=str(artefacts / "player-phone.png"), full_page=True)

    # Roll 3 (white 11), ann active: the white marks before ann's colour mark ends that action.
    wait_line(ann, 10)
    tap(ann, "yellow", 11)
    wait_line(table, 11)
    tap(bob, "red", 11)
    wait_line(table, 12)
    tap(ann, "green", 7)
    wait_line(table, 13)
    # A page reloaded mid-game shows the same state.
    before = bob.inner_html("#sheet")
    bob.reload()
    wait_line(bob, 13)
    assert bob.inner_html("#sheet") == before

    # Roll 4 (white 6), bob active: bob passes both actions (a penalty at the next roll).
    wait_line(bob, 15)
    tap(ann, "green", 6)
    wait_line(table, 16)
    bob.click("#pass")
    bob.wait_for_function("!document.querySelector('#pass').disabled", timeout=WAIT_MS)
    bob.click("#pass")

    # Roll 5 (white 8), ann active.
    wait_line(ann, 18)
    tap(ann, "blue", 8)
    wait_line(table, 19)
    tap(bob, "green", 8)
    wait_line(table, 20)
    tap(ann, "green", 4)
    for page in (table, ann, bob):
        wait_line(page, 21)
    ann.screenshot(path=str(artefacts / "player-phone-ann.png"), full_page=True)

    appliance.wait_for_output("No more frames. Stopping.")
    events = journal(state)
    rolls = [sorted_whites(e) for e in events if e["event"] == "roll"]
    expected = [{"event": "new_game", "players": ["ann", "bob"], "first": "ann"}]
    for number, roll in enumerate(rolls, start=1):
        if number > 1:
            expected.append({"event": "end_turn"})
        expected.append(roll)
        expected += EXPECTED_AFTER_ROLL[number]
    assert [sorted_whites(e) for e in events] == expected
    final = replay_json(state / "game.jsonl")
    assert [p["penalties"] for p in final["players"]] == [0, 1]
    scores = {player["name"]: player["score"]["total"] for player in final["players"]}
    for name, score in scores.items():  # the table page shows every sheet, a phone its own
        assert (
            int(table.get_attribute(f'.sheet[data-player="{name}"] .total', "data-total")) == score
        )
        assert int(phones[name].get_attribute(".sheet .total", "data-total")) == score
    table.screenshot(path=str(artefacts / "table-final.png"), full_page=True)

    # Another seat's token, or none, is refused and the journal is unchanged.
    before = (state / "game.jsonl").read_bytes()
    ann_token = links["ann"].rsplit("/", 1)[1]
    mark_body = {"player": "ann", "colour": "red", "number": 9, "action": "white"}
    refused = [
        post(appliance.url + "api/mark", {"token": ann_token, **mark_body, "player": "bob"}),
        post(appliance.url + "api/mark", mark_body),
        post(appliance.url + "api/pass", {"token": "not-a-token", "player": "ann"}),
        post(appliance.url + "api/undo", {"player": "bob"}),
        post(appliance.url + "api/button", {"token": ann_token, "button": "penalty"}),
    ]
    assert [status for status, _ in refused] == [403] * 5
    assert (state / "game.jsonl").read_bytes() == before


def still_frames(folder: Path, image: str, seconds: float) -> Path:
    """A ``dir:`` camera folder: a few frames of motion, then ``image`` still for ``seconds``."""
    import cv2

    from pi_reader.appliance.recorded import MOTION_FRAMES, motion_frame

    folder.mkdir()
    still = cv2.imread(str(DEMO / f"{image}.jpg"))
    for step in range(MOTION_FRAMES):
        cv2.imwrite(str(folder / f"{step:05d}.jpg"), motion_frame(still, step + 1))
    for index in range(MOTION_FRAMES, MOTION_FRAMES + round(seconds * 10)):
        (folder / f"{index:05d}.jpg").symlink_to(DEMO / f"{image}.jpg")
    return folder


def test_killed_mid_game_and_restarted_the_open_pages_show_the_resumed_game(
    tmp_path: Path, appliances: list[ApplianceProcess], browser
) -> None:
    state = tmp_path / "state"
    recording = write_recording(tmp_path / "game", ["roll_001", "roll_002"], hold_seconds=HOLD)
    first = ApplianceProcess(
        ["--mode", "sheet", "--players", "ann,bob", "--camera", f"dir:{recording}"], state
    )
    appliances.append(first)
    links = seat_links(first.url)
    port = first.url.rsplit(":", 1)[1].strip("/")
    table = browser.new_page(viewport={"width": 1280, "height": 900})
    table.goto(first.url)
    ann = browser.new_page(viewport=PHONE, has_touch=True)
    ann.goto(links["ann"])
    wait_line(ann, 2)
    tap(ann, "yellow", 8)
    wait_line(table, 5)  # roll 2 read
    first.kill()  # no goodbye: as a power cut
    ann.wait_for_selector("#offline", state="visible", timeout=WAIT_MS)

    calibration = tmp_path / "calibration.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pi_reader",
            "calibrate",
            "--image",
            str(DEMO / "calibration.jpg"),
            "--out",
            str(calibration),
        ],
        check=True,
        capture_output=True,
    )
    camera = still_frames(tmp_path / "frames", "roll_003", seconds=30)
    second = ApplianceProcess(
        [
            "--mode",
            "sheet",
            "--players",
            "ann,bob",
            "--camera",
            f"dir:{camera}",
            "--calibration",
            str(calibration),
            "--web-port",
            port,
        ],
        state,
    )
    appliances.append(second)
    assert second.url == first.url
    # The open pages reconnect by themselves and show the resumed game, roll 3 read in it.
    for page in (table, ann):
        wait_line(page, 7)
    ann.wait_for_selector("#offline", state="hidden", timeout=WAIT_MS)
    assert "Game resumed. ann rolls." in " ".join(second.stdout)
    assert ann.locator(".row-yellow .cell.marked").count() == 1
    # The join link of the game still acts for its seat.
    tap(ann, "yellow", 11)
    wait_line(table, 8)
    events = journal(state)
    assert [e["event"] for e in events] == [
        "new_game",
        "roll",
        "mark",
        "end_turn",
        "roll",
        "end_turn",
        "roll",
        "mark",
    ]
    assert events[-1] == mark("ann", "white", "yellow", 11)


def test_the_setup_page_needs_the_pin_shows_the_preview_calibrates_and_starts_a_game(
    tmp_path: Path, appliances: list[ApplianceProcess], browser, artefacts: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[web]\npin = "2468"\n')
    recording = write_recording(tmp_path / "game", ["calibration"], hold_seconds=120)
    state = tmp_path / "state"
    appliance = ApplianceProcess(
        ["--players", "ann,bob", "--camera", f"dir:{recording}"], state, config=config
    )
    appliances.append(appliance)
    seat_links(appliance.url)
    assert not any(", PIN " in line for line in appliance.stderr)  # the config's PIN: not printed
    with urllib.request.urlopen(appliance.url + "setup") as answer:
        assert answer.status == 200  # the page itself asks for the PIN
    for path in ("setup/info", "setup/preview.jpg?token=guess", "setup/check.jpg"):
        try:
            urllib.request.urlopen(appliance.url + path)
            raise AssertionError(f"{path} answered without the PIN")
        except urllib.error.HTTPError as error:
            assert error.code == 403
    refused = post(
        appliance.url + "setup/new-game",
        {"token": "x", "players": ["a", "b"], "bots": [], "mode": "paper", "language": "en"},
    )
    assert refused[0] == 403

    page = browser.new_page(viewport={"width": 1000, "height": 1400})
    page.goto(appliance.url + "setup")
    assert page.is_visible("#login") and not page.is_visible("#setup")
    page.fill("#pin", "1111")
    page.click("#login-form button")
    page.wait_for_selector("#login-message:not(:empty)", timeout=WAIT_MS)
    assert "wrong PIN" in page.inner_text("#login-message")
    page.fill("#pin", "2468")
    page.click("#login-form button")
    page.wait_for_selector("#setup", state="visible", timeout=WAIT_MS)
    page.wait_for_function(
        "document.querySelector('#preview').complete && "
        "document.querySelector('#preview').naturalWidth > 0",
        timeout=WAIT_MS,
    )
    page.click("#calibrate")
    page.wait_for_function(
        "document.querySelector('#calibration').textContent.includes('calibrated')",
        timeout=60_000,
    )
    page.wait_for_selector("#check", state="visible", timeout=WAIT_MS)
    page.wait_for_function("document.querySelector('#check').naturalWidth > 0", timeout=WAIT_MS)
    assert (state / "calibration.json").is_file() and (state / "calibration-check.jpg").is_file()
    page.click("#run-doctor")
    page.wait_for_selector("#doctor tr", timeout=60_000)
    assert "weights" in page.inner_text("#doctor")
    page.screenshot(path=str(artefacts / "setup.png"), full_page=True)

    # A new game from the page: the old one is archived, the table page shows the new seats.
    page.fill("#players", "cid, dan")
    page.select_option("#mode", "paper")
    page.select_option("#language", "de")
    page.click("#new-game button")
    table = browser.new_page(viewport={"width": 1280, "height": 900})
    table.goto(appliance.url)
    table.wait_for_selector('.paper th:text("cid")', timeout=WAIT_MS)
    assert journal(state)[0] == {
        "event": "new_game",
        "players": ["cid", "dan"],
        "first": "cid",
        "mode": "paper",
    }
    assert "cid ist dran" in table.inner_text("#turn")
    assert list((state / "archive").glob("game-*.jsonl"))


def test_paper_mode_the_table_page_has_the_lock_penalty_and_undo_buttons(
    tmp_path: Path, appliances: list[ApplianceProcess], browser, artefacts: Path
) -> None:
    recording = write_recording(tmp_path / "game", ["roll_001", "roll_002"], hold_seconds=HOLD)
    state = tmp_path / "state"
    appliance = ApplianceProcess(["--players", "ann,bob", "--camera", f"dir:{recording}"], state)
    appliances.append(appliance)
    seat_links(appliance.url)
    table = browser.new_page(viewport={"width": 1280, "height": 900})
    table.goto(appliance.url)
    wait_line(table, 2)
    assert "ann's turn" in table.inner_text("#turn")
    assert "8" in table.inner_text("#sums")
    table.click('[data-button="penalty"]')
    wait_line(table, 3)
    assert "Penalties 1" in table.inner_text(".paper")
    table.click('[data-button="penalty"]')  # once per turn: the reason, nothing written
    table.wait_for_selector("#message:not(:empty)", timeout=WAIT_MS)
    table.click('[data-button="undo"]')
    wait_line(table, 2)
    table.click('[data-button="red"]')
    wait_line(table, 3)
    table.screenshot(path=str(artefacts / "table-paper-mode.png"), full_page=True)
    assert [e["event"] for e in journal(state)] == ["new_game", "roll", "lock"]
