"""The web server: pages, live updates, and entries checked before they reach the game.

aiohttp runs in its own thread with its own asyncio loop (:class:`WebServer`), so the camera
loop never waits on a page. Entries (a mark, a pass, an undo, a button, setup actions) go to the
appliance as jobs (``Appliance.submit``) and are taken between frames in the loop's thread; a
request waits for its job's answer, the loop never for a request.

Who may do what: a seat's token (from its join link) in the body of every entry for that seat;
the table page's token for the paper-mode buttons; the setup token, got for the PIN, for the
setup page. A body is at most ``MAX_BODY`` bytes of JSON with exactly the expected fields and
types, or it is refused (400) before anything reaches the appliance; a wrong or missing token is
refused (403). Open streams and requests in progress are bounded (503 past that).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from pi_reader.appliance.events import ButtonEntry, Entry, MarkEntry, PassEntry, UndoEntry
from pi_reader.appliance.loop import ApplianceStopped
from pi_reader.rules import Action, Colour
from pi_reader.web.hub import Hub, Subscriber
from pi_reader.web.pictures import jpeg, qr_svg
from pi_reader.web.setup import Doctor, OpenTable, Setup, SetupRefused, camera_values

log = logging.getLogger(__name__)

MAX_BODY = 2048
MAX_STREAMS = 48  # open live-update streams (pages)
MAX_REQUESTS = 32  # other requests in progress at once
ENTRY_TIMEOUT = 10.0  # seconds an entry may wait for the loop (a frame is 0.1 s)
BODY_TIMEOUT = 5.0  # seconds a client may take to send its body
KEEPALIVE_SECONDS = 15.0  # the stream's comment line, so dead connections are noticed
PIN_TRIES = 5  # wrong PINs in a row before the setup page waits
PIN_WAIT = 30.0
BUTTONS = ("red", "yellow", "green", "blue", "penalty", "undo")
STATIC = resources.files("pi_reader.web") / "static"
PAGES = {"table": "table.html", "player": "player.html", "setup": "setup.html"}


class WebError(RuntimeError):
    """The web app cannot start (the port is taken, the address is not this machine's)."""


class BadRequest(Exception):
    """A body that is not what the endpoint takes: refused with 400 and the reason."""


class Forbidden(Exception):
    """A missing or wrong token: refused with 403 and the reason."""


@dataclass
class _PinGuard:
    wrong: int = 0
    wait_until: float = 0.0


@dataclass
class WebApp:
    """The routes and their state (lives in the web thread)."""

    hub: Hub
    base_url: str
    setup: Setup
    table_token: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    setup_token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    pictures: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="web-pictures")
    )
    requests: int = 0
    pin_guard: _PinGuard = field(default_factory=_PinGuard)
    _still_cache: tuple[int, bytes] | None = None

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._bound])
        app.add_routes(
            [
                web.get("/", self.page("table")),
                web.get("/p/{token}", self.player_page),
                web.get("/setup", self.page("setup")),
                web.get("/static/{name}", self.static),
                web.get("/api/state", self.state),
                web.get("/api/health", self.health),
                web.get("/api/events", self.events),
                web.get("/api/table", self.table_info),
                web.get("/api/seat/{token}", self.seat_info),
                web.get("/api/still.jpg", self.still),
                web.post("/api/mark", self.mark),
                web.post("/api/pass", self.pass_action),
                web.post("/api/undo", self.undo),
                web.post("/api/button", self.button),
                web.post("/setup/login", self.login),
                web.get("/setup/preview.jpg", self.preview),
                web.get("/setup/check.jpg", self.check_image),
                web.get("/setup/info", self.setup_info),
                web.post("/setup/calibrate", self.calibrate),
                web.post("/setup/doctor", self.doctor),
                web.post("/setup/new-game", self.new_game),
            ]
        )
        return app

    # --- bounds ---------------------------------------------------------------------------------
    @web.middleware
    async def _bound(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.path == "/api/events":
            return await handler(request)  # bounded by MAX_STREAMS in the handler
        if self.requests >= MAX_REQUESTS:
            return _error(503, "too many requests at once; try again")
        self.requests += 1
        try:
            return await handler(request)
        except BadRequest as error:
            return _error(400, str(error))
        except Forbidden as error:
            return _error(403, str(error))
        except web.HTTPRequestEntityTooLarge:
            return _error(413, f"a request body is at most {MAX_BODY} bytes")
        finally:
            self.requests -= 1

    # --- pages ----------------------------------------------------------------------------------
    def page(self, name: str) -> Callable[[web.Request], Any]:
        async def handler(request: web.Request) -> web.StreamResponse:
            return _static_file(PAGES[name])

        return handler

    async def player_page(self, request: web.Request) -> web.StreamResponse:
        if self.hub.seats.seat_of(request.match_info["token"]) is None:
            return web.Response(
                status=403,
                text="This join link is not for the current game: scan the code on the table "
                "screen again.",
            )
        return _static_file(PAGES["player"])

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in _static_names():
            raise web.HTTPNotFound()
        return _static_file(name)

    # --- state ----------------------------------------------------------------------------------
    async def state(self, request: web.Request) -> web.StreamResponse:
        if self.hub.view is None:
            return _error(503, "the appliance is starting")
        return web.json_response(self.hub.view, dumps=_dumps)

    async def health(self, request: web.Request) -> web.StreamResponse:
        """The frames the camera loop has taken and the open pages: for monitors and benchmarks."""
        return web.json_response(
            {
                "frames": self.hub.frames_seen,
                "time": time.monotonic(),
                "pages": len(self.hub.subscribers),
                "changes": self.hub.seq,
            }
        )

    async def table_info(self, request: web.Request) -> web.StreamResponse:
        """The table page's token (for the paper buttons) and every seat's join link."""
        if self.hub.view is None:
            return _error(503, "the appliance is starting")
        seats = []
        for player, token in self.hub.seats.tokens.items():
            url = f"{self.base_url}p/{token}"
            seats.append({"player": player, "url": url, "qr": qr_svg(url)})
        return web.json_response({"token": self.table_token, "seats": seats}, dumps=_dumps)

    async def seat_info(self, request: web.Request) -> web.StreamResponse:
        player = self.hub.seats.seat_of(request.match_info["token"])
        if player is None:
            return _error(403, "not a seat of the current game")
        return web.json_response({"player": player})

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-Sent Events: every change as a whole snapshot, numbered; missed ones first."""
        if len(self.hub.subscribers) >= MAX_STREAMS:
            return _error(503, "too many pages open; close one and reload")
        last = request.headers.get("Last-Event-ID") or request.query.get("last")
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            }
        )
        await response.prepare(request)
        subscriber = self.hub.subscribe(last)
        subscriber.task = asyncio.current_task()
        try:
            await response.write(b"retry: 1000\n\n")
            await self._stream(response, subscriber)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.hub.unsubscribe(subscriber)
        return response

    async def _stream(self, response: web.StreamResponse, subscriber: Subscriber) -> None:
        while not subscriber.cut_off:
            try:
                message = await asyncio.wait_for(subscriber.queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                await response.write(b": still here\n\n")
                continue
            await response.write(message.sse())

    async def still(self, request: web.Request) -> web.StreamResponse:
        """The still frame of the last roll read, with the dice found drawn on it."""
        still, number = self.hub.still, (self.hub.view or {}).get("still")
        if still is None or number is None:
            raise web.HTTPNotFound()
        if self._still_cache is None or self._still_cache[0] != number:
            body = await asyncio.get_running_loop().run_in_executor(
                self.pictures, jpeg, still.frame, still.reading
            )
            self._still_cache = (number, body)
        return web.Response(body=self._still_cache[1], content_type="image/jpeg", headers=_NO_STORE)

    # --- entries --------------------------------------------------------------------------------
    async def mark(self, request: web.Request) -> web.StreamResponse:
        body = await _body(
            request, {"token": str, "player": str, "colour": str, "number": int, "action": str}
        )
        player = self._seat(body)
        try:
            colour = Colour(body["colour"])
            action = Action(body["action"])
        except ValueError:
            raise BadRequest(
                "colour: red, yellow, green or blue; action: white or colour"
            ) from None
        if not 2 <= body["number"] <= 12:
            raise BadRequest("number: 2 to 12")
        return await self._enter(MarkEntry(player, colour, body["number"], action))

    async def pass_action(self, request: web.Request) -> web.StreamResponse:
        player = self._seat(await _body(request, {"token": str, "player": str}))
        return await self._enter(PassEntry(player))

    async def undo(self, request: web.Request) -> web.StreamResponse:
        player = self._seat(await _body(request, {"token": str, "player": str}))
        return await self._enter(UndoEntry(player))

    async def button(self, request: web.Request) -> web.StreamResponse:
        body = await _body(request, {"token": str, "button": str})
        if not secrets.compare_digest(body["token"].encode(), self.table_token.encode()):
            return _error(403, "the table page's token is needed to press its buttons")
        if body["button"] not in BUTTONS:
            raise BadRequest(f"button: one of {', '.join(BUTTONS)}")
        return await self._enter(ButtonEntry(body["button"]))

    def _seat(self, body: dict[str, Any]) -> str:
        """The seat the body acts for, when its token is that seat's (else Forbidden)."""
        if self.hub.seats.seat_of(body["token"]) != body["player"]:
            raise Forbidden(f"only {body['player']}'s own page (its join link) acts for that seat")
        return str(body["player"])

    async def _enter(self, entry: Entry) -> web.StreamResponse:
        refusal = await self._job(lambda appliance: appliance.enter(entry))
        if isinstance(refusal, web.StreamResponse):
            return refusal
        if refusal is not None:
            return web.json_response({"ok": False, "reason": refusal}, status=409, dumps=_dumps)
        return web.json_response({"ok": True})

    async def _job(self, job: Callable[[Any], Any], timeout: float = ENTRY_TIMEOUT) -> Any:
        """Run ``job`` in the appliance's loop; a 503 response when it cannot be done."""
        if self.hub.submit is None:
            return _error(503, "the appliance is starting")
        try:
            return await asyncio.wait_for(asyncio.wrap_future(self.hub.submit(job)), timeout)
        except ApplianceStopped:
            return _error(503, "the appliance has stopped taking entries (the game has ended)")
        except TimeoutError:
            return _error(503, "the appliance did not answer in time; try again")

    # --- setup ----------------------------------------------------------------------------------
    async def login(self, request: web.Request) -> web.StreamResponse:
        body = await _body(request, {"pin": str})
        guard, now = self.pin_guard, time.monotonic()
        if now < guard.wait_until:
            return _error(429, f"too many wrong PINs: wait {guard.wait_until - now:.0f} s")
        if not secrets.compare_digest(body["pin"].encode(), self.setup.pin.encode()):
            guard.wrong += 1
            if guard.wrong >= PIN_TRIES:
                guard.wrong, guard.wait_until = 0, now + PIN_WAIT
            return _error(403, "wrong PIN (it is in the config file or was printed at start)")
        guard.wrong = 0
        return web.json_response({"token": self.setup_token})

    def _setup_allowed(self, token: object) -> bool:
        return isinstance(token, str) and secrets.compare_digest(
            token.encode(), self.setup_token.encode()
        )

    async def preview(self, request: web.Request) -> web.StreamResponse:
        if not self._setup_allowed(request.query.get("token")):
            return _error(403, "the setup page needs the PIN")
        body = await self.setup.preview(self._job, self.pictures)
        if body is None:
            raise web.HTTPNotFound()
        return web.Response(body=body, content_type="image/jpeg", headers=_NO_STORE)

    async def check_image(self, request: web.Request) -> web.StreamResponse:
        if not self._setup_allowed(request.query.get("token")):
            return _error(403, "the setup page needs the PIN")
        path = self.setup.check_image
        if path is None or not path.is_file():
            raise web.HTTPNotFound()
        return web.Response(body=path.read_bytes(), content_type="image/jpeg", headers=_NO_STORE)

    async def setup_info(self, request: web.Request) -> web.StreamResponse:
        if not self._setup_allowed(request.query.get("token")):
            return _error(403, "the setup page needs the PIN")
        return web.json_response(self.setup.info(), dumps=_dumps)

    async def calibrate(self, request: web.Request) -> web.StreamResponse:
        if not self._setup_allowed((await _body(request, {"token": str}))["token"]):
            return _error(403, "the setup page needs the PIN")
        return await self._setup_action(self.setup.calibrate(self._job))

    async def doctor(self, request: web.Request) -> web.StreamResponse:
        if not self._setup_allowed((await _body(request, {"token": str}))["token"]):
            return _error(403, "the setup page needs the PIN")
        return await self._setup_action(self.setup.doctor(self.pictures))

    async def new_game(self, request: web.Request) -> web.StreamResponse:
        body = await _body(
            request,
            {"token": str, "players": list, "bots": list, "mode": str, "language": str},
        )
        if not self._setup_allowed(body["token"]):
            return _error(403, "starting a new game needs the PIN")
        names = [*body["players"], *body["bots"]]
        if not all(isinstance(name, str) for name in names):
            raise BadRequest("players and bots: lists of names")
        return await self._setup_action(
            self.setup.new_game(
                self._job, body["players"], body["bots"], body["mode"], body["language"]
            )
        )

    async def _setup_action(self, action: Any) -> web.StreamResponse:
        try:
            result = await action
        except SetupRefused as refusal:
            return web.json_response({"ok": False, "reason": str(refusal)}, status=409)
        if isinstance(result, web.StreamResponse):
            return result
        return web.json_response({"ok": True, **(result or {})}, dumps=_dumps)


_NO_STORE = {"Cache-Control": "no-store"}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _error(status: int, reason: str) -> web.Response:
    return web.json_response({"ok": False, "reason": reason}, status=status)


async def _body(request: web.Request, fields: dict[str, type]) -> dict[str, Any]:
    """The request's JSON object with exactly ``fields`` of those types (else BadRequest)."""
    try:
        raw = await asyncio.wait_for(request.read(), BODY_TIMEOUT)
    except TimeoutError:
        raise BadRequest("the body did not arrive in time") from None
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadRequest("the body must be a JSON object") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    if "token" in fields and not isinstance(body.get("token"), str):
        raise Forbidden("a token is needed (the page's link or the setup PIN gives it)")
    if set(body) != set(fields):
        raise BadRequest(f"the body takes exactly the fields {', '.join(sorted(fields))}")
    for name, kind in fields.items():
        value = body[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise BadRequest(f"{name} must be a {kind.__name__}")
        if isinstance(value, str) and len(value) > 200:
            raise BadRequest(f"{name} is too long")
    return body


def _static_names() -> frozenset[str]:
    return frozenset(item.name for item in STATIC.iterdir() if item.is_file())


def _static_file(name: str) -> web.Response:
    content_types = {
        ".html": "text/html",
        ".css": "text/css",
        ".js": "text/javascript",
        ".svg": "image/svg+xml",
    }
    suffix = name[name.rfind(".") :]
    return web.Response(
        body=(STATIC / name).read_bytes(),
        content_type=content_types.get(suffix, "application/octet-stream"),
        charset="utf-8" if suffix != ".svg" else None,
        headers={"Cache-Control": "no-cache"},
    )


class WebServer:
    """Runs a :class:`WebApp` on its own thread and asyncio loop."""

    def __init__(self, hub: Hub, setup: Setup, host: str, port: int) -> None:
        self.hub = hub
        self.setup = setup
        self.host = host
        self.port = port
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._runner: web.AppRunner | None = None

    def start(self, advertised_host: str) -> str:
        """Listen; returns the URL to print. WebError when the address cannot be had."""
        self._thread = threading.Thread(
            target=self._serve, args=(advertised_host,), name="web", daemon=True
        )
        self._thread.start()
        self._started.wait()
        if self._error is not None:
            raise WebError(
                f"cannot listen on {self.host}:{self.port}: {self._error}; choose another "
                "--web-port (or [web] port in the config)"
            )
        return self.url

    def _serve(self, advertised_host: str) -> None:
        asyncio.set_event_loop(self._loop)
        self.hub.loop = self._loop
        try:
            self._loop.run_until_complete(self._listen(advertised_host))
        except (OSError, ValueError) as error:
            self._error = error
            self._started.set()
            return
        self._started.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.run_until_complete(self._close())
            self._loop.close()

    async def _listen(self, advertised_host: str) -> None:
        port = self.port
        placeholder = WebApp(self.hub, "", self.setup)
        self._runner = web.AppRunner(
            placeholder.application(),
            access_log=None,
            keepalive_timeout=KEEPALIVE_SECONDS,
            shutdown_timeout=1.0,
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, port, backlog=64)
        await site.start()
        server = site._server
        sockets: Sequence[Any] = getattr(server, "sockets", ()) or ()
        if sockets:
            port = sockets[0].getsockname()[1]
        self.url = f"http://{_url_host(advertised_host)}:{port}/"
        placeholder.base_url = self.url

    async def _close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def stop(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class WebService:
    """The web app as ``pi-reader run --web`` starts it: the hub, the setup page, the server."""

    def __init__(
        self,
        *,
        state_dir: Path,
        pin: str,
        calibration_out: Path,
        open_table: OpenTable | None,
        run_doctor: Doctor | None,
        reader: object,
    ) -> None:
        self.hub = Hub(state_dir)
        self.setup = Setup(
            pin,
            self.hub,
            calibration_out,
            open_table=open_table,
            run_doctor=run_doctor,
            camera_values=camera_values(reader),
        )
        self.server: WebServer | None = None

    def start(self, host: str, port: int, advertised: str) -> str:
        """Listen (WebError if the address cannot be had); returns the URL to print."""
        self.server = WebServer(self.hub, self.setup, host, port)
        return self.server.start(advertised)

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
