"""``pi-reader calibrate``, ``read`` and ``replay``: the reader on files, for people and checks.

``read`` prints one JSON object per image per line with ``--json``. An image that cannot be
read (missing, corrupt) still gets its line, with empty ``dice``, ``white_sum: null``, an
``error`` message and no problems; the command goes on with the other images and exits 1 at the
end. A calibration file that cannot be trusted stops the command at once (exit 2), since every
image would be read wrongly.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pi_reader.cli.live_calibrate import add_live_options, run_live_calibration
from pi_reader.rules import COLOURS
from pi_reader.vision.annotate import annotate, encode_jpeg
from pi_reader.vision.calibration import FORMAT as CALIBRATION_FORMAT
from pi_reader.vision.calibration import Calibration, CalibrationError, calibrate
from pi_reader.vision.images import ImageError, load_frame
from pi_reader.vision.output_files import (
    OutputError,
    check_calibration_target,
    picture_names,
    prepare_picture_folder,
    write_new_picture,
)
from pi_reader.vision.reader import read_roll
from pi_reader.vision.recorded import RecordedSetError, load_recorded_set
from pi_reader.vision.replay import mistake_picture_name, replay
from pi_reader.vision.types import RollReading

EXIT_OK = 0
EXIT_SOME_FAILED = 1
EXIT_USAGE = 2
MAX_REMOVED = 3


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cal = subparsers.add_parser(
        "calibrate",
        help="learn the tray, the dice's size and colours from a frame of the six dice",
        description="Learn the tray, the six dice's size and colours from one frame of "
        "the six dice lying apart and flat (two white, red, yellow, green, blue). With --image "
        "the frame is a photo and --out names the calibration file; without it the frame comes "
        "from the camera (its exposure and colour gains are frozen and stored too) and the file "
        "goes to the state folder, where 'pi-reader run' looks for it. An existing calibration "
        "is replaced whole; any other existing file is left alone.",
    )
    cal.add_argument(
        "--image", type=Path, help="a frame of the six dice (without it: live, from the camera)"
    )
    cal.add_argument(
        "--out", type=Path, help="where to write the calibration (live: the state folder)"
    )
    add_live_options(cal)
    cal.set_defaults(func=run_calibrate)

    read = subparsers.add_parser("read", help="read the dice in image files")
    read.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    read.add_argument("--calibration", type=Path, help="a calibration file (else generic mode)")
    read.add_argument(
        "--removed", type=_removed_list, default=(), help="dice out of play, e.g. red,blue"
    )
    read.add_argument("--json", action="store_true", help="one JSON object per image per line")
    read.add_argument(
        "--annotate",
        type=Path,
        metavar="DIR",
        help="write each image annotated to DIR as NAME.annotated.jpg (never over a file)",
    )
    read.set_defaults(func=run_read)

    rep = subparsers.add_parser("replay", help="read a recorded set and score it")
    rep.add_argument("folder", type=Path, metavar="DIR", help="a folder with labels.jsonl")
    rep.add_argument("--json", action="store_true", help="the report as one JSON object")
    rep.add_argument(
        "--annotate",
        type=Path,
        metavar="DIR",
        help="write pictures of mistakes to DIR (never over a file)",
    )
    rep.add_argument(
        "--generic", action="store_true", help="ignore the calibration frames (generic mode)"
    )
    rep.set_defaults(func=run_replay)


def _removed_list(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    bad = [n for n in names if n not in COLOURS]
    if bad:
        raise argparse.ArgumentTypeError(
            f"unknown die {', '.join(bad)}: choose among {', '.join(COLOURS)}"
        )
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise argparse.ArgumentTypeError(f"{', '.join(twice)} named twice")
    if len(names) > MAX_REMOVED:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_REMOVED} dice can be out of play (the game ends at the second lock, "
            "and a third row can lock in the same turn), not all four"
        )
    return names


def run_calibrate(args: argparse.Namespace) -> int:
    if args.image is None:
        return run_live_calibration(args)
    if args.out is None:
        print("pi-reader calibrate: --image needs --out", file=sys.stderr)
        return EXIT_USAGE
    try:
        check_calibration_target(args.out, CALIBRATION_FORMAT, args.image)
    except OutputError as error:
        print(f"pi-reader calibrate: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        calibration = calibrate(load_frame(args.image))
        calibration.save(args.out)
    except (ImageError, CalibrationError) as error:
        print(f"pi-reader calibrate: {error}", file=sys.stderr)
        return EXIT_SOME_FAILED
    except OSError as error:
        print(f"pi-reader calibrate: cannot write {args.out}: {error.strerror}", file=sys.stderr)
        return EXIT_SOME_FAILED
    print(f"calibrated: die side {calibration.die_side_px:.0f} px; written to {args.out}")
    return EXIT_OK


def reading_json(image: str, reading: RollReading) -> dict[str, object]:
    return {
        "image": image,
        "dice": [d.to_json() for d in reading.dice],
        "white_sum": reading.white_sum,
        "problems": [p.to_json() for p in reading.problems],
        "ok": reading.ok,
    }


def run_read(args: argparse.Namespace) -> int:
    calibration = None
    if args.calibration is not None:
        try:
            calibration = Calibration.load(args.calibration)
        except CalibrationError as error:
            print(f"pi-reader read: {error}", file=sys.stderr)
            return EXIT_USAGE
    pictures: list[Path | None] = [None] * len(args.images)
    if args.annotate is not None:
        try:
            pictures = list(_annotation_targets(args.annotate, args.images))
        except OutputError as error:
            print(f"pi-reader read: {error}", file=sys.stderr)
            return EXIT_USAGE
    status = EXIT_OK
    for path, picture in zip(args.images, pictures, strict=True):
        try:
            frame = load_frame(path)
        except ImageError as error:
            status = EXIT_SOME_FAILED
            _print_failure(str(path), str(error), args.json)
            continue
        reading = read_roll(frame, calibration, args.removed)
        if picture is not None:
            try:
                write_new_picture(picture, encode_jpeg(annotate(frame, reading)))
            except OutputError as error:
                status = EXIT_SOME_FAILED
                print(f"pi-reader read: {error}", file=sys.stderr)
        if args.json:
            print(json.dumps(reading_json(str(path), reading)), flush=True)
        else:
            print(_table(str(path), reading), flush=True)
    return status


def _annotation_targets(folder: Path, images: list[Path]) -> list[Path]:
    """Where each image's annotated picture goes; OutputError before anything is read if the
    folder cannot take them or one of them would replace a file."""
    prepare_picture_folder(folder)
    targets = [folder / name for name in picture_names(images)]
    taken = [target for target in targets if target.exists()]
    if taken:
        more = f" (and {len(taken) - 1} more)" if len(taken) > 1 else ""
        raise OutputError(
            f"{taken[0]}{more} exists already; pi-reader never replaces a file: "
            "annotate into a new folder"
        )
    return targets


def _check_mistake_pictures(folder: Path, images: list[str]) -> None:
    """The folder can take replay's pictures and none of them would replace a file."""
    prepare_picture_folder(folder)
    taken = [folder / n for n in map(mistake_picture_name, images) if (folder / n).exists()]
    if taken:
        raise OutputError(
            f"{taken[0]} exists already; pi-reader never replaces a file: annotate into a "
            "new folder"
        )


def _print_failure(image: str, message: str, as_json: bool) -> None:
    if as_json:
        line: dict[str, object] = {
            "image": image, "dice": [], "white_sum": None, "problems": [], "error": message
        }
        print(json.dumps(line), flush=True)
    else:
        print(f"{image}: ERROR {message}", flush=True)


def _table(image: str, reading: RollReading) -> str:
    lines = [image]
    for die in sorted(reading.dice, key=lambda d: (d.colour, d.centre)):
        value = "?" if die.value is None else die.value
        lines.append(f"  {die.colour:<8} {value}   confidence {die.confidence:.2f}")
    lines.append(f"  white sum: {reading.white_sum if reading.white_sum is not None else '-'}")
    lines.extend(f"  problem: {p.message}" for p in reading.problems)
    return "\n".join(lines)


class _ProgressBar:
    """The replay's progress on stderr. On a terminal one line is redrawn in place; elsewhere (a
    log file, journald, CI) a plain line at each tenth of the set, since a carriage return per
    frame would make one line of the whole run. ``close`` ends an open line so that whatever is
    printed next (an error, the report) starts on a line of its own."""

    WIDTH = 30
    STEPS_OFF_TERMINAL = 10

    def __init__(self) -> None:
        self._on_terminal = sys.stderr.isatty()
        self._line_open = False
        self._last_step = 0

    def __call__(self, done: int, total: int, image: str) -> None:
        if self._on_terminal:
            filled = self.WIDTH * done // max(total, 1)
            bar = "#" * filled + "." * (self.WIDTH - filled)
            sys.stderr.write(f"\r[{bar}] {done}/{total} {image[:40]:<40}")
            self._line_open = True
            if done == total:
                self.close()
        else:
            step = self.STEPS_OFF_TERMINAL * done // max(total, 1)
            if step > self._last_step:
                sys.stderr.write(f"replay: {done}/{total} frames read\n")
                self._last_step = step
        sys.stderr.flush()

    def close(self) -> None:
        if self._line_open:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self._line_open = False


def run_replay(args: argparse.Namespace) -> int:
    try:
        recorded = load_recorded_set(args.folder)
    except RecordedSetError as error:
        print(f"pi-reader replay: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.annotate is not None:
        try:
            _check_mistake_pictures(args.annotate, [frame.image for frame in recorded.rolls()])
        except OutputError as error:
            print(f"pi-reader replay: {error}", file=sys.stderr)
            return EXIT_USAGE
    progress = _ProgressBar()
    try:
        result = replay(
            recorded,
            annotate_dir=args.annotate,
            progress=progress,
            calibrated=not args.generic,
        )
    except (ImageError, OutputError) as error:
        progress.close()
        print(f"pi-reader replay: {error}", file=sys.stderr)
        return EXIT_SOME_FAILED
    summary = {"set": str(args.folder), **result.summary()}
    if args.json:
        print(json.dumps(summary))
    else:
        print(_report_text(summary))
    return EXIT_OK


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * float(value):.1f}%"


def _count(n: int, thing: str, things: str | None = None) -> str:
    """``1 mistake``, ``2 mistakes``: a number with its noun in the right number."""
    return f"{n} {thing if n == 1 else (things or thing + 's')}"


def _report_text(s: dict[str, Any]) -> str:
    lines = [
        f"set {s['set']}: {_count(s['frames'], 'roll frame')}, "
        f"{_count(s['labelled_dice'], 'labelled die', 'labelled dice')}"
        + (f" ({s['unreadable_dice']} no one can read)" if s["unreadable_dice"] else ""),
        f"  dice right (colour and value, readable dice): {_percent(s['dice_right'])}",
        f"  value accuracy: {_percent(s['value_accuracy'])}   "
        f"colour accuracy: {_percent(s['colour_accuracy'])}",
        f"  rolls all right: {_percent(s['rolls_right'])}   right and trusted: "
        f"{_percent(s['rolls_right_and_trusted'])}   flagged: {_percent(s['rolls_flagged'])}",
        f"  silently wrong rolls: {s['silently_wrong_rolls']}"
        + (f" ({', '.join(s['silently_wrong'])})" if s["silently_wrong"] else ""),
        f"  refusal rate on rolls with every die readable: {_percent(s['refusal_rate'])} "
        f"({s['refused_readable_rolls']} of {s['fully_readable_rolls']})",
        f"  dice misread: {s['misread_dice']}   declined: {s['declined_dice']}",
        f"  missed: {s['missed']}   phantoms: {s['phantoms']} ({_percent(s['phantom_rate'])})",
    ]
    if s["unreadable_dice"]:
        lines.append(
            f"  faces no one can read: {s['unreadable_declined']} declined, "
            f"{s['unreadable_misread']} given a value (misread)"
        )
    if s["expect_refusal_rolls"]:
        accepted = s["expect_refusal_accepted"]
        lines.append(
            f"  frames that must be refused: {s['expect_refusal_refused']} of "
            f"{s['expect_refusal_rolls']} refused"
            + (f"; accepted: {', '.join(accepted)}" if accepted else "")
        )
    lines += [
        f"  time per frame: mean {s['mean_ms']} ms, p95 {s['p95_ms']} ms",
        "  slowest: " + ", ".join(f"{f['image']} {f['ms']} ms" for f in s["slowest"]),
        f"  problems reported: {s['problems']}",
    ]
    for scenario, error in s["calibration_errors"].items():
        lines.append(f"  calibration of {scenario} refused: {error}")
    lines.append("  value confusion (label: read counts):")
    lines.extend(f"    {k}: {v}" for k, v in s["value_confusion"].items())
    lines.append("  colour confusion (label: read counts):")
    lines.extend(f"    {k}: {v}" for k, v in s["colour_confusion"].items())
    lines.append("  worst frames:")
    for f in s["worst"]:
        detail = "; ".join(f["wrong"])
        lines.append(
            f"    {f['image']}: {_count(f['mistakes'], 'mistake')} ({f['missed']} missed, "
            f"{_count(f['phantoms'], 'phantom')}; {'refused' if f['refused'] else 'accepted'})"
            + (f" {detail}" if detail else "")
        )
    return "\n".join(lines)
