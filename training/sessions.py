"""Finding the photo sessions of the shared real-photo sets (for ``make_splits.py``).

A session is a run of photos of one scene setting taken in one go: the same table or
background, the same light, often the same dice moved between shots. Photos of one session are
near-duplicates of each other, so a session must lie wholly on one side of a split. Each set
shows its sessions differently (docs/reader-data.md has the details and the thumbnails that
were checked by eye):

- ``real-d6-overhead``: file names carry the time taken (``IMG_20191208_111228``). A session
  ends at a pause longer than ``PAUSE_S`` or where the background changes between the open
  board and the box lid (the lid's dark rim); a run shorter than ``MIN_RUN`` photos is a pause
  inside the session before it on the same background (the box-lid runs of two and one photos
  at 11:15).
- ``real-d6-gamedice``: the Roboflow stems ``dice_N`` number the photos in the order they were
  taken, setting after setting; the sessions are the stem ranges of ``GAMEDICE_SESSIONS``,
  read off the thumbnails in stem order (each stock photo from the web is its own session).
  Three of them are bursts on one white table (single dice, small dice beside the board game,
  the board game): ``SAME_TABLE`` deals them to one split together, since the appliance must
  be measured on tables it has not seen.
- ``real-d6-fisheye``: stems are reused across sessions, so photos are grouped by appearance
  alone: the background (the frame with the labelled dice painted over by its median colour,
  16x16 pixels in Lab) clustered by average linkage, merging while clusters differ by less than
  ``FISHEYE_LINKAGE`` on average (per pixel and channel, 8-bit).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

import cv2
import numpy as np

from pi_reader.vision.recorded import LabelledFrame, RecordedSet

Sessions = dict[str, str]  # image -> session name

# real-d6-overhead: the photographer shot every 3 to 19 s; pauses of 33 s and more separate
# settings (measured: the gaps between consecutive photos are 2-19 s, then 33, 40, 42, 44, 57,
# 72 s and the night between the two days).
PAUSE_S = 30.0
MIN_RUN = 5
# The box lid's dark rim: more than this share of the pixels outside the dice darker than
# LID_DARK (8-bit grey) is the lid (measured: board photos at most 0.003, lid photos 0.054).
LID_RIM_SHARE = 0.02
LID_DARK = 80

# real-d6-gamedice: (first stem, last stem, session) in stem order, read off the thumbnails.
GAMEDICE_SESSIONS: tuple[tuple[int, int, str], ...] = (
    *((n, n, f"stock-photo-{n}") for n in range(1, 8)),
    (8, 172, "grey-table-single-dice"),
    (173, 173, "stock-photo-173"),
    (174, 174, "stock-photo-174"),
    (175, 210, "white-table-small-dice-by-the-board"),
    (211, 368, "board-game-on-white-table"),
    (369, 378, "blue-cloth"),
    (379, 429, "purple-cloth"),
    (430, 432, "desk-with-electronics"),
    (433, 433, "grey-floor"),
    (434, 434, "wooden-shelf"),
    (435, 436, "white-surface"),
    (437, 437, "pink-paper"),
    (438, 438, "paper-on-floor"),
    (439, 442, "blue-folder-on-desk"),
    (443, 443, "stock-photo-443"),
    (444, 444, "stock-photo-444"),
    (445, 446, "stock-photo-446"),
)
# Sessions on one table, dealt to one split together (name -> the table's name).
SAME_TABLE = {
    "grey-table-single-dice": "white-table",
    "white-table-small-dice-by-the-board": "white-table",
    "board-game-on-white-table": "white-table",
}

# real-d6-fisheye: how unlike (mean absolute Lab difference of the 16x16 backgrounds) two
# clusters may be and still be one session. At 12 (checked on thumbnails) the wood-grain table
# is one cluster (with the grid paper seen under the same lamp), the plain paper another, the
# bright novelty dice and the printed papers small ones; at 10 the wood table falls into two
# clusters (near and far), which a split could then put on two sides; at 15 most photos are one.
FISHEYE_LINKAGE = 12.0
BACKGROUND_PX = 16

# Reads a frame's image, perhaps scaled down: the image and its scale (image px per label px).
ImageReader = Callable[[LabelledFrame], tuple[np.ndarray, float]]


def overhead_sessions(recorded: RecordedSet, read: ImageReader) -> Sessions:
    """Sessions of ``real-d6-overhead`` by time taken and background (see the module doc)."""
    frames = sorted(recorded.frames, key=lambda f: _taken(f.image))
    runs: list[tuple[bool, list[LabelledFrame]]] = []
    previous: LabelledFrame | None = None
    for frame in frames:
        lid = _on_box_lid(frame, *read(frame))
        pause = previous is not None and (
            (_taken(frame.image) - _taken(previous.image)).total_seconds() > PAUSE_S
        )
        if not runs or pause or lid != runs[-1][0]:
            runs.append((lid, []))
        runs[-1][1].append(frame)
        previous = frame
    merged: list[tuple[bool, list[LabelledFrame]]] = []
    for lid, run in runs:
        if merged and len(run) < MIN_RUN and merged[-1][0] == lid:
            merged[-1][1].extend(run)
        else:
            merged.append((lid, run))
    sessions: Sessions = {}
    for lid, run in merged:
        start = re.search(r"IMG_(\d{8}_\d{6})", run[0].image)
        name = f"{start.group(1) if start else run[0].image}-{'box-lid' if lid else 'board'}"
        sessions.update({frame.image: name for frame in run})
    return sessions


def gamedice_sessions(recorded: RecordedSet) -> Sessions:
    """Sessions of ``real-d6-gamedice`` from the stem ranges of ``GAMEDICE_SESSIONS``."""
    sessions: Sessions = {}
    for frame in recorded.frames:
        stem = re.search(r"dice_(\d+)_", frame.image)
        number = int(stem.group(1)) if stem else -1
        names = [name for first, last, name in GAMEDICE_SESSIONS if first <= number <= last]
        if len(names) != 1:
            raise ValueError(f"{frame.image}: stem {number} is in {len(names)} sessions, not 1")
        sessions[frame.image] = names[0]
    return sessions


def fisheye_sessions(recorded: RecordedSet, read: ImageReader) -> Sessions:
    """Sessions of ``real-d6-fisheye`` by clustering the photos' backgrounds."""
    frames = sorted(recorded.frames, key=lambda f: f.image)
    backgrounds = np.array([background(f, *read(f)) for f in frames])
    clusters = average_linkage(backgrounds, FISHEYE_LINKAGE)
    clusters.sort(key=lambda members: (-len(members), min(members)))
    return {
        frames[i].image: f"look-{number:02d}"
        for number, members in enumerate(clusters)
        for i in members
    }


def background(frame: LabelledFrame, image: np.ndarray, scale: float) -> np.ndarray:
    """The frame without its dice: labelled boxes (a tenth larger) painted the median colour
    of the rest, in Lab, BACKGROUND_PX square, flattened."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab)
    dice = _dice_mask(frame, lab.shape, scale, margin=0.1)
    rest = lab[~dice] if (~dice).any() else lab.reshape(-1, 3)
    lab[dice] = np.median(rest, axis=0)
    small = cv2.resize(lab, (BACKGROUND_PX, BACKGROUND_PX), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32).ravel()


def average_linkage(points: np.ndarray, threshold: float) -> list[list[int]]:
    """Agglomerative clusters (indices) of ``points`` under the mean absolute difference,
    merging the two closest clusters (average linkage) while they are closer than threshold.
    Deterministic: ties go to the lowest indices."""
    distance = np.abs(points[:, None, :] - points[None, :, :]).mean(axis=2).astype(np.float64)
    np.fill_diagonal(distance, np.inf)
    size = np.ones(len(points))
    members = {i: [i] for i in range(len(points))}
    while len(members) > 1:
        i, j = np.unravel_index(int(np.argmin(distance)), distance.shape)
        if distance[i, j] >= threshold:
            break
        i, j = min(i, j), max(i, j)
        merged = (distance[i] * size[i] + distance[j] * size[j]) / (size[i] + size[j])
        distance[i], distance[:, i] = merged, merged
        distance[i, i] = np.inf
        distance[j], distance[:, j] = np.inf, np.inf
        size[i] += size[j]
        members[i] += members.pop(j)
    return [sorted(m) for m in members.values()]


def _taken(image: str) -> datetime:
    stamp = re.search(r"IMG_(\d{8}_\d{6})", image)
    if stamp is None:
        raise ValueError(f"{image}: no IMG_YYYYMMDD_HHMMSS time in the file name")
    return datetime.strptime(stamp.group(1), "%Y%m%d_%H%M%S")


def _on_box_lid(frame: LabelledFrame, image: np.ndarray, scale: float) -> bool:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    outside = ~_dice_mask(frame, grey.shape, scale, margin=0.0)
    return float(((grey < LID_DARK) & outside).sum() / max(outside.sum(), 1)) > LID_RIM_SHARE


def _dice_mask(
    frame: LabelledFrame, shape: tuple[int, ...], scale: float, margin: float
) -> np.ndarray:
    """The labelled dice's boxes, ``margin`` of a side larger, on an image scaled by ``scale``."""
    mask = np.zeros(shape[:2], dtype=bool)
    for die in frame.dice:
        x, y, w, h = (v * scale for v in die.box)
        x0, y0 = max(int(x - margin * w), 0), max(int(y - margin * h), 0)
        mask[y0 : int(y + (1 + margin) * h) + 1, x0 : int(x + (1 + margin) * w) + 1] = True
    return mask
