"""The web server against a real appliance loop (fake camera, reader double): every bad request
is refused with its status and nothing reaches the journal; streams catch up; bounds hold."""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_reader.appliance.catalogue import Catalogue
from pi_reader.appliance.loop import Appliance, CameraRetry, FrameClock
from pi_reader.appliance.recorded import RealPace
from pi_reader.appliance.table import Table
from pi_reader.devices import FakeCamera, FakeDisplay, FakeLeds, FakeSpeaker
from pi_reader.web import server as server_module
from pi_reader.web.server import WebService

from ..appliance.helpers import ReaderDouble, dice, reading, roll_frames

ROLLS = {1: reading(dice(3, 4, 2, 5, 6, 1))}


class Running:
    """A sheet game (ann, bob) with one roll read (white 7), served on a free port."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.service = WebService(
            state_dir=state_dir,
            pin="2468",
            calibration_out=state_dir / "calibration.json",
            open_table=None,
            run_doctor=None,
            reader=None,
        )
        self.url = self.service.start("127.0.0.1", 0, "127.0.0.1")
        frames = roll_frames([1], hold=10)
        self.appliance = Appliance(
            camera=RealPace(FakeCamera(frames + [frames[-1]] * 5, loop=False), 50.0),
            read_roll=ReaderDouble(ROLLS),
            table=Table.open(state_dir, "sheet", ["ann", "bob"]),
            catalogue=Catalogue.load("en"),
            speaker=FakeSpeaker(),
            display=FakeDisplay(20, 4),
            leds=FakeLeds(),
            clock=FrameClock(10.0),
            retry=CameraRetry(sleep=lambda seconds: None),
            listeners=[self.service.hub],
        )
        self.service.hub.submit = self.appliance.submit
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self.wait_for(lambda view: view["line"] == 2)

    def _run(self) -> None:
        # Keep the loop taking entries after the frames run out, as a live camera would.
        self.appliance.run()

    def view(self) -> dict:
        return get_json(self.url + "api/state")

    def wait_for(self, condition, timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                view = self.view()
            except urllib.error.HTTPError:
                view = None
            if view is not None and condition(view):
                return view
            time.sleep(0.02)
        raise AssertionError("the state never came")

    def token(self, player: str) -> str:
        return self.service.hub.seats.token_of(player)

    def journal(self) -> bytes:
        return (self.state_dir / "game.jsonl").read_bytes()

    def stop(self) -> None:
        self.appliance.stop_requested = True
        self._thread.join(10)
        self.service.stop()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    served = Running(tmp_path)
    yield served
    served.stop()


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


def post(url: str, body: bytes | object) -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def test_the_state_shows_the_roll_and_each_seats_legal_cells(running: Running) -> None:
    view = running.view()
    assert view["roll"]["white_sum"] == 7 and view["active"] == "ann"
    ann, bob = view["sheets"]
    assert {"colour": "red", "number": 7, "action": "white", "lock": False} in ann["options"]
    assert all(option["action"] == "white" for option in bob["options"])  # bob is not active
    colour_sums = {(o["colour"], o["number"]) for o in ann["options"] if o["action"] == "colour"}
    # white 3 and 4: red 2 -> 5/6, yellow 5 -> 8/9, green 6 -> 9/10 (descending), blue 1 -> 4/5
    assert colour_sums == {
        ("red", 5),
        ("red", 6),
        ("yellow", 8),
        ("yellow", 9),
        ("green", 9),
        ("green", 10),
        ("blue", 4),
        ("blue", 5),
    }


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"not json", 400),
        (b"[1, 2]", 400),
        (b"[" * 2000, 400),  # deeper than the JSON decoder recurses: was a 500
        (b"x" * 5000, 413),
        ({"player": "ann", "colour": "red", "number": 7, "action": "white"}, 403),
        ({"token": 7, "player": "ann", "colour": "red", "number": 7, "action": "white"}, 403),
        (
            {"token": "TOKEN", "player": "ann", "colour": "red", "number": "7", "action": "white"},
            400,
        ),
        (
            {"token": "TOKEN", "player": "ann", "colour": "red", "number": True, "action": "white"},
            400,
        ),
        (
            {"token": "TOKEN", "player": "ann", "colour": "pink", "number": 7, "action": "white"},
            400,
        ),
        (
            {"token": "TOKEN", "player": "ann", "colour": "red", "number": 13, "action": "white"},
            400,
        ),
        ({"token": "TOKEN", "player": "ann", "colour": "red", "number": 7, "action": "x"}, 400),
        (
            {
                "token": "TOKEN",
                "player": "ann",
                "colour": "red",
                "number": 7,
                "action": "white",
                "extra": 1,
            },
            400,
        ),
        ({"token": "TOKEN", "player": "bob", "colour": "red", "number": 7, "action": "white"}, 403),
        ({"token": "wrong", "player": "ann", "colour": "red", "number": 7, "action": "white"}, 403),
    ],
)
def test_a_bad_mark_is_refused_and_nothing_is_journalled(
    running: Running, body: bytes | dict, status: int
) -> None:
    if isinstance(body, dict) and body.get("token") == "TOKEN":
        body = {**body, "token": running.token("ann")}
    before = running.journal()
    answer_status, answer = post(running.url + "api/mark", body)
    assert answer_status == status and answer["ok"] is False and answer["reason"]
    assert running.journal() == before


def test_a_good_mark_is_journalled_and_an_illegal_one_gets_the_engines_reason(
    running: Running,
) -> None:
    body = {"token": running.token("bob"), "player": "bob", "colour": "red", "action": "white"}
    status, answer = post(running.url + "api/mark", {**body, "number": 8})
    assert status == 409 and answer["reason"].startswith("Not accepted: 8 is not the sum")
    status, answer = post(running.url + "api/mark", {**body, "number": 7})
    assert (status, answer) == (200, {"ok": True})
    view = running.wait_for(lambda view: view["line"] == 3)
    assert view["sheets"][1]["rows"][0]["marked"] == [7]
    assert b'"player": "bob", "action": "white", "colour": "red", "number": 7' in running.journal()
    status, answer = post(
        running.url + "api/undo", {"token": running.token("ann"), "player": "ann"}
    )
    assert status == 409 and answer["reason"] == "Nothing to undo."  # bob's mark is bob's


def test_paper_buttons_need_the_table_pages_token(running: Running) -> None:
    status, _ = post(running.url + "api/button", {"token": running.token("ann"), "button": "red"})
    assert status == 403
    table_token = get_json(running.url + "api/table")["token"]
    status, answer = post(running.url + "api/button", {"token": table_token, "button": "nope"})
    assert status == 400
    status, answer = post(running.url + "api/button", {"token": table_token, "button": "red"})
    assert status == 409 and "sheet mode" in answer["reason"]  # this game keeps its own locks


def test_the_setup_endpoints_need_the_pin(running: Running) -> None:
    assert post(running.url + "setup/login", {"pin": "0000"})[0] == 403
    status, answer = post(running.url + "setup/login", {"pin": "2468"})
    assert status == 200
    with urllib.request.urlopen(f"{running.url}setup/info?token={answer['token']}") as info:
        assert json.load(info)["calibration"] is None
    assert post(running.url + "setup/calibrate", {"token": "guess"})[0] == 403


def test_wrong_pins_in_a_row_make_the_setup_page_wait(running: Running) -> None:
    statuses = [post(running.url + "setup/login", {"pin": "0000"})[0] for _ in range(6)]
    assert statuses == [403] * 5 + [429]
    assert post(running.url + "setup/login", {"pin": "2468"})[0] == 429


def stream(url: str, last: str | None = None, count: int = 1) -> list[dict]:
    """The first ``count`` snapshots of the live stream (after ``last``)."""
    host, port = url.removeprefix("http://").strip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    connection.request("GET", "/api/events", headers={"Last-Event-ID": last} if last else {})
    response = connection.getresponse()
    assert response.status == 200
    views = []
    while len(views) < count:
        line = response.fp.readline().decode()
        if line.startswith("data: "):
            views.append(json.loads(line[6:]))
    connection.close()
    return views


def test_a_page_reconnecting_gets_exactly_what_it_missed(running: Running) -> None:
    first = stream(running.url)[0]
    epoch, seq = first["id"].split("-")
    body = {"token": running.token("bob"), "player": "bob", "colour": "red", "action": "white"}
    post(running.url + "api/mark", {**body, "number": 7})
    post(running.url + "api/pass", {"token": running.token("ann"), "player": "ann"})
    running.wait_for(lambda view: view["id"] != first["id"] and view["line"] == 3)
    missed = stream(running.url, first["id"], count=2)
    assert [view["id"] for view in missed] == [f"{epoch}-{int(seq) + 1}", f"{epoch}-{int(seq) + 2}"]
    # From another run of the appliance (or none): the current state alone.
    latest = stream(running.url, "ffffff-1")[0]
    assert latest["id"] == running.view()["id"]


def test_open_streams_are_bounded(running: Running, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_module, "MAX_STREAMS", 2)
    host, port = running.url.removeprefix("http://").strip("/").split(":")
    held = []
    for _ in range(2):
        connection = http.client.HTTPConnection(host, int(port), timeout=5)
        connection.request("GET", "/api/events")
        assert connection.getresponse().status == 200
        held.append(connection)
    deadline = time.monotonic() + 5
    while len(running.service.hub.subscribers) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        urllib.request.urlopen(running.url + "api/events", timeout=5)
        raise AssertionError("a third stream was let in")
    except urllib.error.HTTPError as error:
        assert error.code == 503
    for connection in held:
        connection.close()


def test_a_join_link_of_another_game_is_refused(running: Running) -> None:
    try:
        urllib.request.urlopen(running.url + "p/not-a-seat", timeout=5)
        raise AssertionError("an unknown join link was served")
    except urllib.error.HTTPError as error:
        assert error.code == 403
    with urllib.request.urlopen(running.url + "p/" + running.token("ann"), timeout=5) as page:
        assert b"player.js" in page.read()
