"""``pi-reader run``: the table-side appliance (what the systemd service starts).

``--no-hardware`` puts console stand-ins in place of the speaker (``SAY: ...`` lines), the LCD (a
drawn box) and the LEDs (``LEDS: ...`` lines), so the whole appliance runs on any laptop. With
``--camera dir:FOLDER`` holding a ``recorded-game.json`` it plays that recorded game end to end
(see :mod:`pi_reader.appliance.recorded`) and stops when the frames run out. ``--web`` also serves
the web app (:mod:`pi_reader.web`): a recording then plays at real pace, and the pages stay
served after the game until the appliance is stopped.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from pi_reader.appliance.bots import BotsUnavailable, bot_name, seat_bots
from pi_reader.appliance.catalogue import LANGUAGES, Catalogue
from pi_reader.appliance.device_setup import open_devices
from pi_reader.appliance.live_calibration import CalibratedReader
from pi_reader.appliance.loop import Appliance, FrameClock, Notifier
from pi_reader.appliance.notices import notice
from pi_reader.appliance.recorded import RealPace, RecordedGame, RecordedGameError, Recording
from pi_reader.appliance.seating import (
    FROM_CONFIG,
    FROM_OPTIONS,
    Source,
    seating_problems,
    table_mode,
)
from pi_reader.appliance.sheet import SheetGame
from pi_reader.appliance.table import Table, TableError
from pi_reader.camera_spec import CameraKind, parse_camera_spec
from pi_reader.cli.config import add_config_option
from pi_reader.cli.terminal import TerminalCommands, prompt
from pi_reader.config import Config, ConfigError, load_config
from pi_reader.devices import BUTTON_NAMES, CameraSpecError
from pi_reader.devices.bundle import Devices
from pi_reader.devices.systemd_notify import SystemdNotifier
from pi_reader.rules import Colour

log = logging.getLogger(__name__)
CALIBRATION_FILE = "calibration.json"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run the table-side appliance (camera, reader, game, speaker, LCD, LEDs)",
        description=(
            "Watch the dice tray, read each roll when the dice stop, announce it and keep the "
            "game. Resumes an unfinished game of the same players and mode from the state "
            "directory, unless --new-game; a recorded game (--camera dir:FOLDER with a "
            "recorded-game.json) always starts a new one, archiving the one before."
        ),
    )
    parser.add_argument("--players", help="comma-separated names, 2 to 5 with the bots")
    parser.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="NAME[:STRATEGY]",
        help="a computer player (repeatable; sheet mode); STRATEGY: a pi_reader.players "
        "strategy (default: its strongest)",
    )
    parser.add_argument(
        "--mode", choices=("paper", "sheet"), help="default: paper, or sheet with bots"
    )
    parser.add_argument(
        "--no-hardware", action="store_true", help="console stand-ins for speaker, LCD and LEDs"
    )
    parser.add_argument("--camera", metavar="SPEC", help="picamera, usb:N, dir:PATH or video:FILE")
    add_config_option(parser)
    parser.add_argument("--calibration", type=Path, metavar="PATH", help="the calibration file")
    parser.add_argument("--language", choices=LANGUAGES, help="announcement language")
    parser.add_argument(
        "--state-dir",
        type=Path,
        metavar="DIR",
        help="where the game log lives (default: the config's; with --no-hardware "
        "$XDG_STATE_HOME/pi-reader)",
    )
    parser.add_argument(
        "--new-game", action="store_true", help="archive the current game and start a new one"
    )
    parser.add_argument(
        "--pace",
        choices=("real", "fast"),
        help="how a recorded camera plays: at its frame rate, or as fast as it is read "
        "(default: real at a terminal or with --web, else fast)",
    )
    parser.add_argument(
        "--web",
        action="store_true",
        help="serve the table, player and setup pages (prints 'web: http://ADDRESS:PORT/')",
    )
    parser.add_argument(
        "--web-port", type=int, metavar="N", help="the web app's port (default: the config's, 8080)"
    )
    parser.add_argument(
        "--web-bind",
        metavar="ADDRESS",
        help="listen on this address (default: the config's; every address, or only localhost "
        "with --no-hardware)",
    )
    parser.set_defaults(func=run_command)


def _fail(message: str) -> int:
    print(f"pi-reader run: {message}", file=sys.stderr)
    return 2


def run_command(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        config = load_config(args.config)
    except ConfigError as error:
        return _fail(str(error))
    try:
        return run_appliance(args, config)
    except (TableError, RecordedGameError, CameraSpecError, BotsUnavailable) as error:
        return _fail(str(error))


def _seating(args: argparse.Namespace, config: Config) -> tuple[list[str], list[str], str]:
    """The people, the computer players and the mode: from the options when --players or --bot
    is given, else from the config; refused (TableError) with every problem, each naming the
    option or config key it came from."""
    from_options = args.players is not None or bool(args.bot)
    if from_options:
        people = [] if args.players is None else args.players.split(",")
        bots = list(args.bot)
    else:
        people, bots = list(config.game.players), list(config.game.bots)
    mode = table_mode(args.mode, bots, config.game.mode)
    source = Source(
        FROM_OPTIONS.players if from_options else FROM_CONFIG.players,
        FROM_OPTIONS.bots if from_options else FROM_CONFIG.bots,
        FROM_OPTIONS.mode if args.mode else FROM_CONFIG.mode,
    )
    if not people and not bots:
        raise TableError("who plays? give --players ann,bob (or [game] players in the config)")
    problems = seating_problems(people, bots, mode, source)
    if problems:
        raise TableError("\npi-reader run: ".join(problems))
    return [name.strip() for name in people], bots, mode


def _state_dir(args: argparse.Namespace, config: Config) -> Path:
    if args.state_dir is not None:
        given: Path = args.state_dir
        return given
    if args.no_hardware:
        base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        return Path(base) / "pi-reader"
    return config.paths.state_dir


def load_calibration(calibration_path: Path | None, recording: Recording | None) -> Any:
    """The table's calibration: loaded from its file, or made from the recording's frame."""
    from pi_reader.vision.calibration import Calibration, CalibrationError, calibrate

    if calibration_path is not None:
        try:
            calibration = Calibration.load(calibration_path)
        except (CalibrationError, OSError, ValueError) as error:
            raise TableError(
                f"the calibration file {calibration_path} cannot be used: {error}"
            ) from None
    elif recording is not None and recording.calibration is not None:
        import cv2

        frame = cv2.imread(str(recording.calibration), cv2.IMREAD_COLOR)
        if frame is None:
            raise TableError(f"{recording.calibration} is not an image")
        try:
            calibration = calibrate(frame)
        except (CalibrationError, ValueError) as error:
            raise TableError(f"cannot calibrate from {recording.calibration}: {error}") from None
    else:
        raise TableError(
            "no calibration: put the six dice in the tray and run 'pi-reader calibrate', "
            "or give --calibration PATH"
        )

    return calibration


def load_reader(calibration_path: Path | None, recording: Recording | None) -> CalibratedReader:
    """The reader bound to the table's calibration."""
    return CalibratedReader(load_calibration(calibration_path, recording))


def _undecided(appliance: Appliance) -> bool:
    game = appliance.table.game
    return isinstance(game, SheetGame) and bool(game.undecided())


def _weights_unusable() -> bool:
    """Say at start, as doctor does, when the trained weights are missing or broken (the reader
    cannot read a die without them), and refuse to start a game that could never take a roll."""
    from pi_reader.cli.doctor import check_reader_weights
    from pi_reader.devices.doctor import Status

    check = check_reader_weights(generic=False)
    if check.status is Status.OK:
        return False
    print(f"pi-reader run: {check.detail}; fix: {check.fix}", file=sys.stderr)
    return True


def _notifier() -> Notifier:
    return SystemdNotifier()


def run_appliance(args: argparse.Namespace, config: Config) -> int:
    people, bot_names, mode = _seating(args, config)
    players = [*people, *(bot_name(spec) for spec in bot_names)]
    if _weights_unusable():
        return 2
    language = args.language or config.speaker.language
    config = dataclasses.replace(
        config, speaker=dataclasses.replace(config.speaker, language=language)
    )
    catalogue = Catalogue.load(language)
    state_dir = _state_dir(args, config)

    devices = open_devices(config, no_hardware=args.no_hardware, camera_spec=args.camera)
    try:
        return _play(args, config, devices, catalogue, state_dir, mode, players, bot_names)
    finally:
        devices.close()


def open_table(
    state_dir: Path,
    mode: str,
    people: list[str],
    bot_specs: list[str],
    catalogue: Catalogue,
    new_game: bool,
) -> Table:
    """The table's game: resumed from the state directory, or new (bots seated, words known)."""
    bots = seat_bots(bot_specs)
    colour_words = {catalogue.word(f"colour.{c}"): c.value for c in Colour}
    players = [*people, *(bot_name(spec) for spec in bot_specs if bot_name(spec) not in people)]
    try:
        return Table.open(
            state_dir, mode, players, bots=bots, colour_words=colour_words, new_game=new_game
        )
    except OSError as error:
        raise TableError(
            f"cannot keep the game in {state_dir}: {error.strerror}; choose --state-dir DIR"
        ) from None


def _play(
    args: argparse.Namespace,
    config: Config,
    devices: Devices,
    catalogue: Catalogue,
    state_dir: Path,
    mode: str,
    players: list[str],
    bot_names: list[str],
) -> int:
    spec = parse_camera_spec(args.camera or config.camera.spec)
    recording = None
    if spec.kind is CameraKind.DIRECTORY and spec.path and Recording.is_recording(spec.path):
        recording = Recording.load(spec.path)
    calibration = args.calibration
    if calibration is None and recording is None and (state_dir / CALIBRATION_FILE).exists():
        calibration = state_dir / CALIBRATION_FILE
    read = load_reader(calibration, recording)
    people = [p for p in players if p not in {bot_name(b) for b in bot_names}]
    table = open_table(
        state_dir, mode, people, bot_names, catalogue, args.new_game or recording is not None
    )
    # A recorded sheet-mode game played from a terminal waits for the people typing at it: real
    # pace, a prompt, and each roll held until they have marked or passed.
    at_terminal = mode == "sheet" and sys.stdin.isatty()
    commands = TerminalCommands((lambda: prompt(appliance.table.game)) if at_terminal else None)
    camera = devices.camera
    # Recordings are timed by their frame rate, live cameras by the clock.
    recorded = spec.kind in (CameraKind.DIRECTORY, CameraKind.VIDEO)
    clock = FrameClock(config.camera.fps if recorded else None)
    if recording is not None:

        def act(action: str) -> None:
            if action in BUTTON_NAMES:
                appliance.press(action)
            else:
                commands.put(action)

        def deciding() -> bool:
            return at_terminal and not appliance.stop_requested and _undecided(appliance)

        camera = RecordedGame(recording, act, hold_while=deciding)
        print(
            f"pi-reader run: playing the recorded game in {recording.folder} "
            f"({len(recording.rolls)} rolls, and what the players pressed or typed after them)",
            file=sys.stderr,
        )
        clock = FrameClock(recording.fps)
    if mode == "sheet" and (recording is None or at_terminal):
        commands.start_reading()
    pace = args.pace or ("real" if args.web or sys.stdin.isatty() else "fast")
    if pace == "real" and recorded:
        camera = RealPace(camera, recording.fps if recording is not None else config.camera.fps)
    web = _start_web(args, config, devices, state_dir, read) if args.web else None
    appliance = Appliance(
        camera=camera,
        read_roll=read,
        table=table,
        catalogue=catalogue,
        speaker=devices.speaker,
        display=devices.display,
        leds=devices.leds,
        buttons=devices.buttons,
        commands=commands,
        notifier=_notifier(),
        clock=clock,
        on_camera_start=read.fix_picture,
        listeners=[web.hub] if web is not None else [],
    )
    for warning in table.warnings:
        print(f"pi-reader run: {warning}", file=sys.stderr)
    for missing in devices.warnings:
        appliance.say([notice("app.device_missing", device=missing.device)])
    print(f"pi-reader run: game log {table.journal.path}", file=sys.stderr)
    stopped = threading.Event()

    def stop(signum: int, frame: object) -> None:
        appliance.stop_requested = True
        stopped.set()

    signal.signal(signal.SIGTERM, stop)
    try:
        if web is not None:
            web.hub.submit = appliance.submit
        status = appliance.run()
        if web is not None and not stopped.is_set():
            print(
                "pi-reader run: the game has ended; the pages stay served until the appliance is "
                "stopped (Ctrl-C or SIGTERM)",
                file=sys.stderr,
            )
            stopped.wait()
    except KeyboardInterrupt:
        status = 0
    finally:
        if web is not None:
            web.stop()
    appliance.say_only([notice("app.stopped")])
    return status


def _start_web(
    args: argparse.Namespace,
    config: Config,
    devices: Devices,
    state_dir: Path,
    read: CalibratedReader,
) -> Any:
    """Serve the web app (imported only with --web); prints the ``web:`` line once it listens."""
    import secrets

    from pi_reader.appliance.device_setup import device_settings
    from pi_reader.cli.doctor import check_reader_weights
    from pi_reader.devices import doctor
    from pi_reader.web.address import advertised_host, bind_address
    from pi_reader.web.server import WebError, WebService

    def open_game(people: Any, bots: Any, mode: str, language: str) -> tuple[Table, Catalogue]:
        catalogue = Catalogue.load(language)
        return open_table(state_dir, mode, list(people), list(bots), catalogue, True), catalogue

    def run_doctor() -> list[Any]:
        # The camera and the GPIO pins are the running appliance's: their probes would fail.
        settings = device_settings(config)
        return [
            doctor.check_espeak(settings.speaker),
            doctor.check_aplay(settings.speaker),
            doctor.check_lcd(settings.lcd),
            doctor.check_state_dir(state_dir),
            check_reader_weights(generic=False),
        ]

    pin = config.web.pin or f"{secrets.randbelow(10**6):06d}"
    host = bind_address(config.web.bind, args.web_bind, args.no_hardware)
    port = args.web_port if args.web_port is not None else config.web.port
    if not 0 <= port <= 65535:
        raise TableError(f"--web-port {port}: a TCP port is 1 to 65535 (0: any free port)")
    service = WebService(
        state_dir=state_dir,
        pin=pin,
        calibration_out=state_dir / CALIBRATION_FILE,
        open_table=open_game,
        run_doctor=run_doctor,
        reader=read,
    )
    try:
        url = service.start(host, port, advertised_host(host))
    except WebError as error:
        raise TableError(str(error)) from None
    print(f"web: {url}", flush=True)
    if not config.web.pin:
        print(
            f"pi-reader run: setup page {url}setup, PIN {pin} (new at each start)", file=sys.stderr
        )
    return service
