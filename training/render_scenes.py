"""Render a domain-randomised training set of dice scenes, as a recorded set, from one seed.

    python training/render_scenes.py --out /work/renders/dr1 --seed 1 --scenes 1000 --jobs 2

Blender (``apt-get install blender``) renders each scene with ``training/blender_scene.py``;
this script plans the scenes from the seed, runs Blender in ``--jobs`` processes of one thread
each, and finishes every rendered frame the way a camera would (auto exposure frozen per
appliance scene, white-balance error, tone curve, sensor noise, defocus, vignetting, JPEG),
writing the recorded-set format: ``labels.jsonl`` with the dice and the faces no one can read
(``"value": null`` with ``"rendered_value"`` and ``"unreadable"``), and beside it
``geometry.jsonl`` with each die's top face and pips in pixels for training. It can be stopped
and started again: scenes already finished are kept, so a run that was cut short goes on where
it stopped, and the same seed always gives the same scenes.

The set's ``manifest.json`` holds the seed, the counts, the parameter ranges and the split rule
(by scene: ``splits.scene_split``): a scene is wholly train, validation or test.

``--split`` and ``--kind`` render only some of the planned scenes (say the appliance validation
scenes a chooser reads, a seventh of the set): the plan is drawn from the seed whatever is
rendered, so those scenes are the very ones the whole set holds, and a later run without the
filters fills in the rest.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script or a module

from training.cocked import MAX_LEAN_DEG
from training.pip_layouts import values_fitting
from training.splits import scene_split

BLENDER_SCRIPT = Path(__file__).with_name("blender_scene.py")


@dataclass(frozen=True)
class Quality:
    """Frame sizes and path-tracing samples of the two kinds of scene."""

    appliance_size: tuple[int, int] = (800, 600)  # dice 25-60 px: frames are scaled to the die
    generic_size: tuple[int, int] = (512, 384)  # photos are read scaled down: cheaper, more
    appliance_samples: int = 10
    generic_samples: int = 12

    def size(self, kind: str) -> tuple[int, int]:
        return self.appliance_size if kind == "appliance" else self.generic_size

    def samples(self, kind: str) -> int:
        return self.appliance_samples if kind == "appliance" else self.generic_samples


# What a test renders: a few pixels and one sample, to check the pipeline, not the pictures.
SMOKE = Quality((96, 72), (64, 48), 1, 1)
APPLIANCE_ROLLS, GENERIC_ROLLS = 4, 2
SPLITS = ("train", "validation", "test")
KINDS = ("appliance", "generic")
# A pip is taken as seen when its median differs from the face's by this much in some channel
# (8-bit): a person reads pips at about this contrast; under it the lamp or the dark took them.
MIN_PIP_CONTRAST = 14
# A top face smaller than this (pixels on a side) is too small to count pips on.
MIN_FACE_PX = 7.0
# A frame with more than this share of its pixels clipped white (every channel at the top) is
# one nobody can read.
REFUSE_CLIPPED_SHARE = 0.5
# What a set's frames were made by: a set is rendered by one version only (resuming a set with
# another version would mix two kinds of scenes under one manifest). 1: dropped dice only
# (/work/renders/dr1); 2: two in five throws start one die cocked against another; 3: a frame
# is refused as overexposed only when clipped white in all three channels (2 counted a pixel
# with any channel clipped, and flagged readable frames of bright red or magenta felt); 4: a
# face is unreadable also when its pips are in view but a hidden place leaves it fitting
# another value (a two whose middle is hidden may be a three); 5: 30 % of throws are huddles
# (the dice dropped into an invisible pen a few dice wide, so they settle pressed together),
# and a die is ``touching`` when no gap of 4 % of a side lies between it and another (4 asked
# for centres within 1.08 sides, which only dice squared face to face meet); 6: a place on a
# face is seen through any number of invisible walls (5 gave up after 8, and labelled faces in
# plain view in a corner of a huddle's pen "pips hidden from the camera").
GENERATOR_VERSION = 6
# The last commit of each earlier version: a set that version began is resumed from a checkout
# of it (git worktree add), since it is never resumed by another.
LAST_COMMIT_OF_VERSION = {1: "34e6b84", 2: "2bd2e67", 3: "695641c", 4: "b5decf5",
                          5: "5de07dd"}
PARAMETER_RANGES = {
    "die_mm": [12, 20], "rounding": [0.05, 0.2], "pip_radius_of_side": [0.065, 0.105],
    "pips": ["drilled 60 %", "painted 40 %"], "finish": "matte to glossy (0..1, skewed matte)",
    "surfaces": ["felt", "cloth", "wood", "print", "mat", "score pad paper (20 %)", "tray walls"],
    "lights": "1-3, 2700-6500 K, area (soft, 0.05-0.8 m) or point (hard), 0.3-1.4 m away",
    "camera_height_m": {"appliance": [0.25, 0.6], "generic": [0.10, 0.6]},
    "camera_tilt_deg": {"appliance": [0, 30], "generic": [0, 60]},
    "field_of_view_deg": [25, 100], "distractors": ["coin", "pencil", "screw", "hand (15 %)"],
    "throws": "dropped by the rigid-body simulation; 30 % are huddles, dropped into an "
              "invisible pen of 1.8-3 die footprints a die, the rest spread 0.3-1 of the tray "
              "and 40 % of those start one die leaning 35-44 degrees on another's side "
              "(friction 1); 11 of 36 throws end with a die cocked, 35 of 60 huddled dice and "
              "22 of 156 others touch another (training/measure_throws.py)",
    "dice": {"appliance": "the six Qwixx dice, 10 % with dark pips on coloured dice",
             "generic": "1-20 dice, 40 % Qwixx colours, others any colour; "
                        "10 % marbled, 10 % translucent"},
    "camera_finish": {"exposure_error_ev": "normal sd 0.5; 12 % of scenes -2..+2",
                      "white_balance_error": "R and B gains x0.85-1.15",
                      "gamma": [1.8, 2.6], "noise": "shot and read noise",
                      "blur_px": [0, 1.5], "vignetting": [0, 0.35], "jpeg_quality": [55, 95]},
}


def plan(seed: int, count: int) -> list[dict]:
    """The scenes of a set: every second scene of five an appliance scene, the rest generic."""
    rng = random.Random(seed)
    scenes = []
    for index in range(count):
        kind = "appliance" if index % 5 in (0, 2) else "generic"
        scenes.append({"id": f"{kind[0]}{index:05d}", "index": index,
                       "seed": rng.randrange(2**31), "kind": kind,
                       "rolls": APPLIANCE_ROLLS if kind == "appliance" else GENERIC_ROLLS,
                       "split": scene_split(index)})
    return scenes


# --- the camera the renders are finished with ----------------------------------------------

@dataclass(frozen=True)
class CameraFinish:
    """How one camera turns scene light into a JPEG (drawn per scene from its seed)."""

    exposure_error: float
    wb_gains: tuple[float, float, float]
    gamma: float
    contrast: float
    shot_noise: float
    read_noise: float
    blur: float
    vignetting: float
    jpeg_quality: int

    @classmethod
    def draw(cls, rng: random.Random) -> CameraFinish:
        error = rng.uniform(-2, 2) if rng.random() < 0.12 else rng.gauss(0, 0.5)
        return cls(exposure_error=error,
                   wb_gains=(rng.uniform(0.85, 1.15), 1.0, rng.uniform(0.85, 1.15)),
                   gamma=rng.uniform(1.8, 2.6), contrast=rng.uniform(0.0, 0.3),
                   shot_noise=10 ** rng.uniform(-3.5, -2.0),
                   read_noise=10 ** rng.uniform(-3.5, -2.2),
                   blur=rng.uniform(0, 1.5) if rng.random() < 0.35 else 0.0,
                   vignetting=rng.uniform(0, 0.35), jpeg_quality=rng.randint(55, 95))


def linear_render(png: Path) -> np.ndarray:
    """The render as linear light (BGR float), undoing Blender's sRGB and its two stops under."""
    encoded = cv2.imread(str(png), cv2.IMREAD_UNCHANGED).astype(np.float32) / 65535.0
    linear = np.where(encoded <= 0.04045, encoded / 12.92, ((encoded + 0.055) / 1.055) ** 2.4)
    return linear * 4.0


def auto_exposure(linear: np.ndarray) -> float:
    """The gain a camera's auto exposure picks: centre-weighted mean luminance to 18 % grey."""
    h, w = linear.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    weight = np.exp(-(((xx - w / 2) / (0.35 * w)) ** 2 + ((yy - h / 2) / (0.35 * h)) ** 2))
    luminance = linear @ np.array([0.0722, 0.7152, 0.2126], np.float32)
    return 0.18 / max(float((luminance * weight).sum() / weight.sum()), 1e-6)


def white_balance(lights: list[dict]) -> np.ndarray:
    """The gains (BGR) of a camera's auto white balance that found the lamps' colour: the
    irradiance-weighted mean of the lights (its errors are the finish's ``wb_gains``). A
    grey-world guess instead turns a red die purple on a yellow cloth, which no camera's
    white balance, held near the colours of real lamps, does."""
    weights = np.array([light["irradiance"] for light in lights], np.float64)
    rgb = (np.array([light["rgb"] for light in lights]) * weights[:, None]).sum(axis=0)
    bgr = rgb[::-1] / weights.sum()
    return (bgr[1] / np.maximum(bgr, 1e-6)).astype(np.float32)


def finish_frame(linear: np.ndarray, gain: float, wb: np.ndarray, camera: CameraFinish,
                 rng: np.random.Generator) -> np.ndarray:
    """Linear light to an 8-bit BGR frame as the camera records it."""
    h, w = linear.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    exposed = linear * gain * wb[None, None, :] * (1.0 - camera.vignetting * r2)[..., None]
    exposed *= np.array(camera.wb_gains[::-1], np.float32)  # gains are RGB, frame is BGR
    if camera.blur > 0:
        exposed = cv2.GaussianBlur(exposed, (0, 0), camera.blur)
    noise = rng.normal(size=exposed.shape).astype(np.float32)
    exposed = exposed + noise * np.sqrt(np.maximum(exposed, 0) * camera.shot_noise
                                        + camera.read_noise ** 2)
    clipped = np.clip(exposed, 0.0, 1.0)
    encoded = clipped ** (1.0 / camera.gamma)
    if camera.contrast:
        s_curve = 0.5 - 0.5 * np.cos(np.pi * encoded)
        encoded = (1 - camera.contrast) * encoded + camera.contrast * s_curve
    return np.clip(encoded * 255.0 + 0.5, 0, 255).astype(np.uint8)


# --- labels --------------------------------------------------------------------------------

def pip_contrast(frame: np.ndarray, die: dict) -> float:
    """How far the top face's pips stand out of the face in the finished frame (8-bit)."""
    h, w = frame.shape[:2]
    face = np.zeros((h, w), np.uint8)
    corners = np.array(die["top_face"], np.float32)
    middle = corners.mean(axis=0)
    cv2.fillPoly(face, [np.round(middle + (corners - middle) * 0.85).astype(np.int32)], 1)
    pips = np.zeros((h, w), np.uint8)
    for pip in die["pips"]:
        cv2.circle(pips, (round(pip["x"]), round(pip["y"])), max(1, round(pip["r"] * 0.5)), 1, -1)
        cv2.circle(face, (round(pip["x"]), round(pip["y"])), max(2, round(pip["r"] * 1.6)), 0, -1)
    pip_pixels, face_pixels = frame[pips > 0], frame[face > 0]
    if len(pip_pixels) == 0 or len(face_pixels) == 0:
        return 0.0
    return float(np.abs(np.median(pip_pixels, axis=0) - np.median(face_pixels, axis=0)).max())


def why_unreadable(frame: np.ndarray, die: dict, contrast: float) -> str | None:
    """Why no one could read this die's top face from the frame, or None when one could."""
    h, w = frame.shape[:2]
    if die["lean_deg"] > MAX_LEAN_DEG:
        return f"cocked: leaning {die['lean_deg']:.0f} degrees"
    if any(not (0 <= p["x"] < w and 0 <= p["y"] < h) for p in die["pips"]):
        return "top face partly outside the frame"
    if not all(p["visible"] for p in die["pips"]):
        return "pips hidden from the camera"
    fitting = values_fitting(die["value"], die["places_seen"])
    if len(fitting) > 1:
        return (f"part of the top face hidden from the camera: what is in view fits "
                f"{', '.join(map(str, sorted(fitting)))}")
    corners = np.array(die["top_face"], np.float32)
    side = min(np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4))
    if side < MIN_FACE_PX:
        return f"top face too small ({side:.0f} px)"
    if contrast < MIN_PIP_CONTRAST:
        return f"pips washed out by the light (pip contrast {contrast:.0f})"
    return None


def clipped_box(box: list[float], w: int, h: int) -> list[float] | None:
    x0, y0 = max(0.0, box[0]), max(0.0, box[1])
    x1, y1 = min(float(w), box[0] + box[2]), min(float(h), box[1] + box[3])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    return [round(x0, 1), round(y0, 1), round(x1 - x0, 1), round(y1 - y0, 1)]


def frame_labels(raw: dict, frame: np.ndarray, generic: bool) -> tuple[dict, dict]:
    """The recorded-set line of a frame and its geometry line."""
    h, w = frame.shape[:2]
    dice, geometry = [], []
    for die in raw["dice"]:
        box = clipped_box(die["box"], w, h)
        if box is None:
            continue
        contrast = pip_contrast(frame, die)
        why = why_unreadable(frame, die, contrast)
        label: dict = {"colour": None if generic else die["colour"],
                       "value": None if why else die["value"], "box": box}
        if why:
            label["rendered_value"] = die["value"]
            label["unreadable"] = why
        if die["touching"]:
            label["touching"] = True
        if die["flipped"]:
            label["pips"] = "flipped"
        dice.append(label)
        geometry.append({"top_face": die["top_face"], "pips": die["pips"],
                         "places_seen": die["places_seen"],
                         "lean_deg": die["lean_deg"], "pip_contrast": round(contrast, 1),
                         "qwixx_colour": die["colour"]})
    line = {"image": raw["image"], "scenario": raw["scenario"], "kind": raw["kind"],
            "dice": dice, "removed": raw["removed"], "conditions": raw["conditions"]}
    why_refused = overexposure(frame)
    if why_refused:
        line["expect_refusal"] = why_refused
    return line, {"image": raw["image"], "dice": geometry}


def overexposure(frame: np.ndarray) -> str | None:
    """Why nobody can read the frame, when the lamp clipped most of it white; else None. A
    pixel clipped in one or two channels still shows colour and shape (a saturated felt)."""
    clipped_share = float((frame.min(axis=2) >= 254).mean())
    if clipped_share > REFUSE_CLIPPED_SHARE:
        return f"overexposed: {clipped_share:.0%} of the frame clipped white"
    return None


def finish_scene(scene: dict, raw_dir: Path, out: Path) -> tuple[list[dict], list[dict]]:
    """Turn a rendered scene into JPEG frames and their label lines."""
    rng = random.Random(scene["seed"] ^ 0x5EED)
    camera = CameraFinish.draw(rng)
    noise_rng = np.random.default_rng(scene["seed"])
    names = sorted(p.stem for p in raw_dir.glob("*.png"))
    names.sort(key=lambda name: name != "calibration")
    generic = scene["kind"] == "generic"
    lines, geometry = [], []
    gain = wb = None
    (out / scene["id"]).mkdir(parents=True, exist_ok=True)
    for name in names:
        linear = linear_render(raw_dir / f"{name}.png")
        raw = json.loads((raw_dir / f"{name}.json").read_text())
        if gain is None or generic:  # appliance scenes freeze what calibration measured
            wb = white_balance(raw["conditions"]["lights"])
            gain = auto_exposure(linear * wb) * 2.0 ** camera.exposure_error
        frame = finish_frame(linear, gain, wb, camera, noise_rng)
        raw["conditions"] = {**raw["conditions"],
                             "exposure_error_ev": round(camera.exposure_error, 2),
                             "jpeg_quality": camera.jpeg_quality, "blur_px": round(camera.blur, 2),
                             "split": scene["split"]}
        cv2.imwrite(str(out / raw["image"]), frame,
                    [cv2.IMWRITE_JPEG_QUALITY, camera.jpeg_quality])
        line, geo = frame_labels(raw, frame, generic)
        lines.append(line)
        geometry.append(geo)
    return lines, geometry


# --- running Blender -----------------------------------------------------------------------

def blender_job(scenes: list[dict], raw_root: Path, quality: Quality) -> subprocess.Popen:
    kind = scenes[0]["kind"]
    width, height = quality.size(kind)
    spec = {"out": str(raw_root), "width": width, "height": height,
            "samples": quality.samples(kind), "scenes": scenes}
    spec_file = raw_root / f"{scenes[0]['id']}.spec.json"
    spec_file.write_text(json.dumps(spec))
    log = (raw_root / f"{scenes[0]['id']}.log").open("w")
    return subprocess.Popen(
        ["nice", "-n", "19", "blender", "-b", "--factory-startup", "-t", "1",
         "-P", str(BLENDER_SCRIPT), "--", str(spec_file)], stdout=log, stderr=subprocess.STDOUT)


def write_manifest(out: Path, seed: int, scenes: list[dict], done: set[str],
                   quality: Quality, leaning_throws: float | None = None) -> None:
    counts: dict[str, dict[str, int]] = {}
    for scene in scenes:
        if scene["id"] in done:
            per = counts.setdefault(scene["split"], {})
            per[scene["kind"]] = per.get(scene["kind"], 0) + 1
    manifest = {
        "generator": "training/render_scenes.py + training/blender_scene.py",
        "generator_version": GENERATOR_VERSION,
        "command": f"python training/render_scenes.py --out {out} --seed {seed} "
                   f"--scenes {len(scenes)}"
                   + ("" if leaning_throws is None else f" --leaning-throws {leaning_throws}"),
        "leaning_throws": leaning_throws,
        "seed": seed, "scenes_planned": len(scenes), "scenes_finished": len(done),
        "finished_by_split": counts,
        "frame_size": {"appliance": quality.appliance_size, "generic": quality.generic_size},
        "samples": {"appliance": quality.appliance_samples, "generic": quality.generic_samples},
        "frames_per_scene": {"appliance": 1 + APPLIANCE_ROLLS, "generic": GENERIC_ROLLS},
        "split_rule": "scene index mod 20: 0-2 test, 3-5 validation, else train",
        "unreadable_rule": {"min_pip_contrast": MIN_PIP_CONTRAST, "max_lean_deg": MAX_LEAN_DEG,
                            "min_face_px": MIN_FACE_PX,
                            "hidden": "any pip, or places leaving it fitting another value",
                            "refuse_clipped_share": REFUSE_CLIPPED_SHARE},
        "parameter_ranges": PARAMETER_RANGES,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def finished_ids(out: Path) -> set[str]:
    labels = out / "labels.jsonl"
    if not labels.exists():
        return set()
    return {json.loads(line)["scenario"] for line in labels.read_text().splitlines() if line}


def append_scene(out: Path, lines: list[dict], geometry: list[dict]) -> None:
    with (out / "labels.jsonl").open("a") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in lines)
    with (out / "geometry.jsonl").open("a") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in geometry)


class OtherGenerator(RuntimeError):
    """The set was begun by another generator version: resuming it would mix two kinds."""


def check_version(out: Path, leaning_throws: float | None = None) -> None:
    """Raise OtherGenerator when ``out`` holds scenes of another generator version (a set
    without the field was made by version 1) or with another share of leaning throws."""
    manifest = out / "manifest.json"
    if not manifest.is_file():
        return
    made = json.loads(manifest.read_text())
    version = made.get("generator_version", 1)
    if version != GENERATOR_VERSION:
        where = LAST_COMMIT_OF_VERSION.get(version)
        resume = f" or resume it from a checkout of {where}" if where else ""
        raise OtherGenerator(f"{out} was rendered by generator version {version}, this is "
                             f"version {GENERATOR_VERSION}: render into a new folder{resume}")
    if made.get("leaning_throws") != leaning_throws:
        raise OtherGenerator(f"{out} was rendered with leaning throws "
                             f"{_leaning(made.get('leaning_throws'))}, not "
                             f"{_leaning(leaning_throws)}: render into a new folder")


def _leaning(share: float | None) -> str:
    return "as the version leans them" if share is None else f"{share}"


def run(out: Path, seed: int, count: int, jobs: int, chunk: int,
        quality: Quality = Quality(), splits: frozenset[str] = frozenset(SPLITS),
        kinds: frozenset[str] = frozenset(KINDS), leaning_throws: float | None = None) -> None:
    """Render the planned scenes of ``splits`` and ``kinds`` not yet finished in ``out``;
    ``leaning_throws``: the share of throws that start with a die leaning (None: the
    version's own, ``blender_scene.LEANING_THROWS``)."""
    check_version(out, leaning_throws)
    scenes = plan(seed, count)
    if leaning_throws is not None:
        scenes = [s | {"leaning_throws": leaning_throws} for s in scenes]
    raw_root = out / "raw"
    raw_root.mkdir(parents=True, exist_ok=True)
    wanted = [s for s in scenes if s["split"] in splits and s["kind"] in kinds]
    done = finished_ids(out)
    todo = [s for s in wanted if s["id"] not in done]
    running: list[tuple[subprocess.Popen, list[dict]]] = []
    while todo or running:
        while todo and len(running) < jobs:
            kind = todo[0]["kind"]
            batch = [s for s in todo if s["kind"] == kind][:chunk]
            for scene in batch:
                todo.remove(scene)
            running.append((blender_job(batch, raw_root, quality), batch))
        while all(process.poll() is None for process, _ in running):
            time.sleep(1.0)
        finished = next(job for job in running if job[0].poll() is not None)
        running.remove(finished)
        batch = finished[1]
        for scene in batch:
            raw_dir = raw_root / scene["id"]
            if not (raw_dir / "done").exists():
                print(f"{scene['id']}: Blender failed (see {raw_root}/{batch[0]['id']}.log)",
                      file=sys.stderr)
                continue
            lines, geometry = finish_scene(scene, raw_dir, out)
            append_scene(out, lines, geometry)
            shutil.rmtree(raw_dir)
            done.add(scene["id"])
        write_manifest(out, seed, scenes, done, quality, leaning_throws)
        print(f"{sum(s['id'] in done for s in wanted)}/{len(wanted)} scenes finished",
              flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True,
                        help="the set's folder (outside the repository)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scenes", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2, help="Blender processes, one thread each")
    parser.add_argument("--chunk", type=int, default=2, help="scenes per Blender process")
    parser.add_argument("--split", action="append", choices=SPLITS,
                        help="render only this split's scenes; repeatable (default: all)")
    parser.add_argument("--kind", action="append", choices=KINDS,
                        help="render only this kind of scene; repeatable (default: both)")
    parser.add_argument("--leaning-throws", type=float,
                        help="the share of throws that start with a die leaning on another "
                             "(default: the version's, 0.4): a set rich in cocked dice")
    args = parser.parse_args(argv)
    if args.leaning_throws is not None and not 0.0 <= args.leaning_throws <= 1.0:
        parser.error("--leaning-throws is a share of the throws, from 0 to 1")
    if shutil.which("blender") is None:
        print("blender is not installed (apt-get install blender)", file=sys.stderr)
        return 2
    try:
        run(args.out, args.seed, args.scenes, args.jobs, args.chunk,
            splits=frozenset(args.split or SPLITS), kinds=frozenset(args.kind or KINDS),
            leaning_throws=args.leaning_throws)
    except OtherGenerator as error:
        print(error, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
