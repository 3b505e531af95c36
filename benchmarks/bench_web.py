"""Load and faults on the web app: a long sheet game at 10 frames a second, many pages, one
misbehaving client, all on the loopback address and bounded in time.

The appliance runs as its own process (``pi-reader run --no-hardware --web``, the real reader on
the bundled demo's frames cycled into a recorded game of ``--minutes``), with five player pages
and three table pages connected (Server-Sent Events) in this process. Each player page plays:
after every change it marks its first white option, or the active player's first colour option,
or passes, after a random pause. One misbehaving client sends ``--bad-rate`` random or malformed
requests a second (garbage, wrong types, wrong tokens, oversized bodies, and connections that
vanish mid-request). Measured:

- every page got every change exactly once, in order (ids ``EPOCH-SEQ``, none missing, none
  twice, the last one the server's last);
- the latency from a change in the appliance to each page receiving it (p50 / p95 / max);
- the misbehaving client's answers by status, none of them taken (200) or seen by the game
  (409), and the journals hold exactly the marks the player pages had accepted;
- the appliance's resident memory after the first minute and at the end, and its peak (VmHWM);
- the camera loop's frame rate (frames seen by the web hub over time) against the recording's.

Run: ``.venv/bin/python benchmarks/bench_web.py [--minutes 30] [--json]``; ``--minutes 0.5`` is a
quick check. Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "tests" / "data" / "demo-game"
PLAYERS = ("ann", "bob", "cid", "dan", "eve")
TABLE_PAGES = 3
ROLL_IMAGES = ("roll_001", "roll_002", "roll_003", "roll_004", "roll_005")
SAMPLE_SECONDS = 5.0
WARM_UP_SECONDS = 60.0
MOTION_FRAMES = 4
ENDPOINTS = ("/api/mark", "/api/pass", "/api/undo", "/api/button", "/setup/login")


def make_recording(folder: Path, minutes: float, hold: float, fps: float) -> int:
    """A recorded game of the demo's rolls, cycled for ``minutes``; returns its frame count."""
    per_roll = MOTION_FRAMES + round(hold * fps)
    rolls = max(2, round(minutes * 60 * fps / per_roll))
    folder.mkdir(parents=True)
    manifest = {
        "fps": fps,
        "hold_seconds": hold,
        "calibration": str(DEMO / "calibration.jpg"),
        "rolls": [{"image": str(DEMO / f"{ROLL_IMAGES[n % 5]}.jpg")} for n in range(rolls)],
    }
    (folder / "recorded-game.json").write_text(json.dumps(manifest))
    return rolls * per_roll


class Appliance:
    """The appliance process, its output drained (and watched for the end)."""

    def __init__(self, recording: Path, state: Path) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pi_reader",
                "run",
                "--no-hardware",
                "--web",
                "--web-port",
                "0",
                "--state-dir",
                str(state),
                "--mode",
                "sheet",
                "--players",
                ",".join(PLAYERS),
                "--camera",
                f"dir:{recording}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            cwd=REPO,
        )
        self.url = ""
        self.frames_over = threading.Event()
        self._url_known = threading.Event()
        threading.Thread(target=self._watch, args=(self.process.stdout,), daemon=True).start()
        threading.Thread(target=self._watch, args=(self.process.stderr,), daemon=True).start()
        if not self._url_known.wait(60):
            self.process.kill()
            raise SystemExit("the appliance printed no 'web:' line")

    def _watch(self, stream: Any) -> None:
        for line in stream:
            if line.startswith("web: "):
                self.url = line.split()[1].rstrip("/")
                self._url_known.set()
            elif "No more frames" in line:
                self.frames_over.set()

    def memory(self) -> dict[str, float]:
        """VmRSS and VmHWM in MB, from /proc."""
        values = {}
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) / 1024
        return values

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


@dataclass
class Page:
    """One open page's stream: what it received, and when."""

    name: str
    ids: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    reconnects: int = 0
    latest: dict[str, Any] | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)


async def follow(
    session: aiohttp.ClientSession, url: str, page: Page, done: asyncio.Event
) -> None:
    """Read the live stream, reconnecting with the last id as a browser's EventSource does."""
    while not done.is_set():
        headers = {"Last-Event-ID": page.ids[-1]} if page.ids else {}
        try:
            async with session.get(url + "/api/events", headers=headers) as response:
                async for raw in response.content:
                    line = raw.decode()
                    if line.startswith("data: "):
                        view = json.loads(line[6:])
                        page.latencies.append(time.time() - view["at"])
                        page.ids.append(view["id"])
                        page.latest = view
                        page.changed.set()
                    if done.is_set():
                        return
        except (TimeoutError, aiohttp.ClientError):
            pass
        if not done.is_set():
            page.reconnects += 1
            await asyncio.sleep(0.5)


@dataclass
class Player:
    name: str
    page: Page
    token: str = ""
    game: int = -1
    accepted_marks: int = 0
    answers: dict[int, int] = field(default_factory=dict)
    round_trips: list[float] = field(default_factory=list)


async def play(
    session: aiohttp.ClientSession, url: str, player: Player, done: asyncio.Event
) -> None:
    """Act on every change like a person with a phone: mark a lit cell or pass."""
    rng = random.Random(player.name)
    while not done.is_set():
        await player.page.changed.wait()
        player.page.changed.clear()
        view = player.page.latest
        if view is None:
            continue
        if view["game"] != player.game:  # a new game: new join links
            async with session.get(url + "/api/table") as response:
                seats = (await response.json())["seats"]
            player.token = next(s["url"] for s in seats if s["player"] == player.name)
            player.token = player.token.rsplit("/", 1)[1]
            player.game = view["game"]
        sheet = next((s for s in view.get("sheets", []) if s["player"] == player.name), None)
        if sheet is None or not sheet["may_pass"]:
            continue
        await asyncio.sleep(rng.uniform(0.1, 0.8))
        white = [o for o in sheet["options"] if o["action"] == "white"]
        colour = [o for o in sheet["options"] if o["action"] == "colour"]
        body: dict[str, Any] = {"token": player.token, "player": player.name}
        if white or colour:
            option = (white or colour)[0]
            path = "/api/mark"
            body |= {
                "colour": option["colour"],
                "number": option["number"],
                "action": option["action"],
            }
        else:
            path = "/api/pass"
        started = time.perf_counter()
        async with session.post(url + path, json=body) as response:
            await response.read()
            player.answers[response.status] = player.answers.get(response.status, 0) + 1
            if path == "/api/mark" and response.status == 200:
                player.accepted_marks += 1
        player.round_trips.append(time.perf_counter() - started)


def bad_request(rng: random.Random, tokens: list[str]) -> tuple[str, bytes]:
    """A random or malformed request body for a random endpoint."""
    path = rng.choice(ENDPOINTS)
    kind = rng.randrange(6)
    if kind == 0:
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    elif kind == 1:
        body = b"{" * rng.randrange(1, 50)
    elif kind == 2:
        body = json.dumps(
            {
                "token": rng.choice(tokens or ["x"]),
                "player": "nobody",
                "colour": "red",
                "number": 7,
                "action": "white",
            }
        ).encode()
    elif kind == 3:
        body = json.dumps({"token": rng.choice([1, None, [], {}]), "number": "seven"}).encode()
    elif kind == 4:
        body = json.dumps({"pin": "0" * rng.randrange(1, 400)}).encode()
    else:
        body = b'{"token": "' + b"A" * 5000 + b'"}'
    return path, body


async def vanish(host: str, port: int, rng: random.Random) -> None:
    """Start a request and go away in the middle of its body."""
    _, writer = await asyncio.open_connection(host, port)
    writer.write(
        b"POST /api/mark HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 200\r\n\r\n{"token": "' + b"x" * rng.randrange(0, 50)
    )
    await writer.drain()
    writer.close()
    await writer.wait_closed()


async def misbehave(
    session: aiohttp.ClientSession, url: str, rate: float, players: list[Player],
    done: asyncio.Event, statuses: dict[int | str, int],
) -> None:
    rng = random.Random(7)
    host, port = url.removeprefix("http://").split(":")
    pending: set[asyncio.Task[Any]] = set()

    async def one() -> None:
        if rng.random() < 0.1:
            try:
                await vanish(host, int(port), rng)
                statuses["vanished"] = statuses.get("vanished", 0) + 1
            except OSError:
                statuses["connect-error"] = statuses.get("connect-error", 0) + 1
            return
        path, body = bad_request(rng, [p.token for p in players if p.name == "nobody"])
        async with session.post(url + path, data=body) as response:
            await response.read()
            statuses[response.status] = statuses.get(response.status, 0) + 1

    while not done.is_set():
        task = asyncio.create_task(one())
        pending.add(task)
        task.add_done_callback(pending.discard)
        await asyncio.sleep(1 / rate)
    await asyncio.gather(*pending, return_exceptions=True)


async def sample(
    session: aiohttp.ClientSession, url: str, appliance: Appliance, done: asyncio.Event,
    samples: list[dict[str, Any]],
) -> None:
    while not done.is_set():
        try:
            async with session.get(url + "/api/health") as response:
                health = await response.json()
            samples.append({"t": time.monotonic(), **health, **appliance.memory()})
        except (aiohttp.ClientError, OSError):
            pass
        await asyncio.sleep(SAMPLE_SECONDS)


async def run(args: argparse.Namespace, appliance: Appliance) -> dict[str, Any]:
    url = appliance.url
    done = asyncio.Event()
    timeout = aiohttp.ClientTimeout(total=None, sock_read=60)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        for _ in range(600):
            async with session.get(url + "/api/table") as response:
                if response.status == 200:
                    break
            await asyncio.sleep(0.1)
        pages = [Page(f"player-{name}") for name in PLAYERS]
        pages += [Page(f"table-{n}") for n in range(TABLE_PAGES)]
        players = [Player(name, page) for name, page in zip(PLAYERS, pages, strict=False)]
        statuses: dict[int | str, int] = {}  # by HTTP status, or "vanished", "connect-error"
        samples: list[dict[str, Any]] = []
        if args.no_clients:  # the baseline: the camera loop alone
            pages, players = [], []
        tasks = [asyncio.create_task(follow(session, url, page, done)) for page in pages]
        tasks += [asyncio.create_task(play(session, url, player, done)) for player in players]
        if not args.no_clients:
            bad = misbehave(session, url, args.bad_rate, players, done, statuses)
            tasks.append(asyncio.create_task(bad))
        tasks.append(asyncio.create_task(sample(session, url, appliance, done, samples)))
        started = time.monotonic()
        limit = args.minutes * 60 * 1.5 + 120
        while not appliance.frames_over.is_set() and time.monotonic() - started < limit:
            await asyncio.sleep(0.5)
        await asyncio.sleep(3)  # the last changes reach the pages
        async with session.get(url + "/api/state") as response:
            final_id = (await response.json())["id"]
        done.set()
        for page in pages:
            page.changed.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "pages": pages,
        "players": players,
        "statuses": statuses,
        "samples": samples,
        "final_id": final_id,
        "seconds": time.monotonic() - started,
    }


def check_stream(ids: list[str], final_id: str) -> tuple[int, int]:
    """Missing and doubled changes in one page's ids (from its first to the server's last)."""
    epoch = final_id.split("-")[0]
    numbers = [int(i.split("-")[1]) for i in ids if i.startswith(epoch + "-")]
    doubled = len(numbers) - len(set(numbers))
    expected = set(range(numbers[0], int(final_id.split("-")[1]) + 1)) if numbers else set()
    return len(expected - set(numbers)), doubled


def marks_in_journals(state: Path) -> int:
    count = 0
    for path in [state / "game.jsonl", *sorted((state / "archive").glob("*.jsonl"))]:
        if path.exists():
            count += sum(1 for line in path.read_text().splitlines() if '"event": "mark"' in line)
    return count


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--hold", type=float, default=10.0, help="seconds each roll lies still")
    parser.add_argument("--bad-rate", type=float, default=100.0, help="bad requests a second")
    parser.add_argument(
        "--no-clients", action="store_true", help="the baseline: no page, no bad client"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        frames = make_recording(root / "game", args.minutes, args.hold, args.fps)
        appliance = Appliance(root / "game", root / "state")
        try:
            result = asyncio.run(run(args, appliance))
        finally:
            appliance.stop()
        journal_marks = marks_in_journals(root / "state")
    pages, players, samples = result["pages"], result["players"], result["samples"]
    latencies = [value for page in pages for value in page.latencies] or [0.0]
    streams = {page.name: check_stream(page.ids, result["final_id"]) for page in pages}
    warm = [s for s in samples if s["t"] - samples[0]["t"] >= WARM_UP_SECONDS] or samples
    rates = [
        (b["frames"] - a["frames"]) / (b["time"] - a["time"])
        for a, b in itertools.pairwise(samples)
        if b["time"] > a["time"]
    ]
    accepted = sum(p.accepted_marks for p in players)
    round_trips = [value for p in players for value in p.round_trips]
    report = {
        "command": " ".join(["python benchmarks/bench_web.py", *sys.argv[1:]]),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
        ).stdout.strip(),
        "minutes_played": round(result["seconds"] / 60, 2),
        "recording_frames": frames,
        "changes": int(result["final_id"].split("-")[1]),
        "pages": len(pages),
        "missing_or_doubled": {name: list(v) for name, v in streams.items() if any(v)},
        "reconnects": sum(page.reconnects for page in pages),
        "latency_ms": {
            "p50": round(1000 * statistics.median(latencies), 1),
            "p95": round(1000 * percentile(latencies, 0.95), 1),
            "max": round(1000 * max(latencies), 1),
            "samples": len(latencies),
        },
        "entry_round_trip_ms": {
            "p50": round(1000 * statistics.median(round_trips), 1),
            "p95": round(1000 * percentile(round_trips, 0.95), 1),
        }
        if round_trips
        else None,
        "player_answers": {
            str(k): v
            for k, v in sorted(
                (status, sum(p.answers.get(status, 0) for p in players))
                for status in {s for p in players for s in p.answers}
            )
        },
        "marks_accepted": accepted,
        "marks_in_journals": journal_marks,
        "bad_client": {str(k): v for k, v in sorted(result["statuses"].items(), key=str)},
        "rss_mb": {
            "after_first_minute": round(warm[0]["VmRSS"], 1),
            "end": round(samples[-1]["VmRSS"], 1),
            "growth": round(samples[-1]["VmRSS"] - warm[0]["VmRSS"], 1),
            "peak_hwm": round(max(s["VmHWM"] for s in samples), 1),
        },
        "camera_fps": {
            "recording": args.fps,
            "mean": round(
                (samples[-1]["frames"] - samples[0]["frames"])
                / (samples[-1]["time"] - samples[0]["time"]),
                2,
            ),
            "lowest_5s": round(min(rates), 2) if rates else None,
        },
    }
    taken = {k: v for k, v in result["statuses"].items() if k in (200, 409)}
    failures = [
        *(["a page missed or doubled changes"] if report["missing_or_doubled"] else []),
        *(["p95 latency >= 200 ms"] if report["latency_ms"]["p95"] >= 200 else []),
        *(["a bad request was taken"] if taken else []),
        *(
            ["the journals do not hold exactly the accepted marks"]
            if accepted != journal_marks
            else []
        ),
        *(["memory grew by 10 MB or more"] if report["rss_mb"]["growth"] >= 10 else []),
        *(["the appliance used 150 MB or more"] if report["rss_mb"]["peak_hwm"] >= 150 else []),
    ]
    report["failures"] = failures
    print(json.dumps(report, indent=None if args.json else 2))
    return 1 if failures else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
