"""Writing the reader's files (calibrations, annotated pictures) without destroying a user's.

Two rules, the same for every command that writes:

* a calibration replaces an older calibration only, and only whole: it is written to a temporary
  file beside it, fsynced and renamed over it (as the appliance's journal is), so a power cut
  leaves the old file or the new one, never a torn one that stops ``pi-reader run``;
* an annotated picture is only ever a new file: it is created exclusively, so it can replace
  neither an input photo nor another picture, and pictures of distinct inputs get distinct names.

Every refusal is an :class:`OutputError` whose message is one line naming the path and the fix.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePath


class OutputError(ValueError):
    """A place pi-reader will not write to (an input, an existing file, a missing folder...)."""


def fsync_directory(folder: Path) -> None:
    """Make a new name in ``folder`` durable (POSIX; skipped where directories cannot be
    opened)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def write_atomically(path: Path, data: bytes) -> None:
    """``data`` as the whole content of ``path``: a temporary file, fsync, rename, fsync of the
    folder. OSError when the folder cannot be written (the old file, if any, is untouched)."""
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    fsync_directory(path.parent)


def check_calibration_target(out: Path, calibration_format: str, image: Path | None) -> None:
    """Refuse an ``--out`` that is the input image, a folder, in a missing folder, or an existing
    file that is not a calibration (whose owner did not ask for it to be replaced)."""
    if image is not None and out.exists() and image.exists() and out.samefile(image):
        raise OutputError(f"{out} is the image being calibrated; give --out a new .json file")
    if out.is_dir():
        raise OutputError(f"{out} is a folder; give a file name such as {out / 'calibration.json'}")
    if not out.parent.is_dir():
        raise OutputError(f"no folder {out.parent} to write {out.name} in; create it first")
    if out.exists() and not _is_calibration(out, calibration_format):
        raise OutputError(
            f"{out} exists and is not a pi-reader calibration; it is left as it is: "
            "choose another file"
        )


def _is_calibration(path: Path, calibration_format: str) -> bool:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == calibration_format


def prepare_picture_folder(folder: Path) -> None:
    """Make sure annotated pictures can go in ``folder`` (created if missing); OutputError if it
    is a file or cannot be written, before any image is read."""
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder} is a file, not a folder: give --annotate a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"cannot create the folder {folder}: {error.strerror}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write in the folder {folder}: permission denied")


def picture_names(inputs: Sequence[PurePath], suffix: str = ".annotated.jpg") -> list[str]:
    """A file name per input, distinct for distinct inputs: the input's name without its
    extension, with as many of its parent folders (joined by ``_``) as it takes to tell it from
    the others, then a number if even the whole paths collide."""
    parts = [(*(part for part in p.parent.parts if part != p.anchor), p.stem) for p in inputs]
    depth = [1] * len(parts)
    while True:
        names = ["_".join(part[-d:]) for part, d in zip(parts, depth, strict=True)]
        clashing = {n for n in names if names.count(n) > 1}
        grow = [
            i for i, n in enumerate(names) if n in clashing and depth[i] < len(parts[i])
        ]
        if not grow:
            break
        for i in grow:
            depth[i] += 1
    taken: set[str] = set()
    unique = []
    for name in names:
        candidate, number = name, 1
        while candidate in taken:
            number += 1
            candidate = f"{name}-{number}"
        taken.add(candidate)
        unique.append(candidate + suffix)
    return unique


def write_new_picture(path: Path, encoded: bytes) -> None:
    """Create ``path`` with ``encoded`` (an image file's bytes); never replaces a file."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        raise OutputError(
            f"{path} exists already; pi-reader never replaces a file: annotate into a new folder"
        ) from None
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror}") from None
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(encoded)
