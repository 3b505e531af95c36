"""The cameras: spec parsing, the fake, recorded folders and videos, and the factory."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import pytest

from pi_reader.camera_spec import CameraKind, CameraSpec, parse_camera_spec
from pi_reader.devices.camera import Camera, as_bgr_frame
from pi_reader.devices.camera_choice import open_camera
from pi_reader.devices.directory_camera import DirectoryCamera
from pi_reader.devices.errors import (
    CameraExhausted,
    CameraNotStarted,
    CameraSpecError,
    CameraUnavailable,
)
from pi_reader.devices.fake_camera import FakeCamera
from pi_reader.devices.opencv_camera import OpenCVCamera
from pi_reader.devices.picamera import PiCamera


def solid(value: int, shape: tuple[int, int] = (24, 32)) -> np.ndarray:
    return np.full((*shape, 3), value, dtype=np.uint8)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("picamera", CameraSpec(CameraKind.PICAMERA, 0)),
        ("picamera:1", CameraSpec(CameraKind.PICAMERA, 1)),
        ("usb:0", CameraSpec(CameraKind.USB, 0)),
        ("USB:2", CameraSpec(CameraKind.USB, 2)),
        ("dir:/tmp/frames", CameraSpec(CameraKind.DIRECTORY, path=Path("/tmp/frames"))),
        ("video:game.mp4", CameraSpec(CameraKind.VIDEO, path=Path("game.mp4"))),
        ("dir:C:/odd:name", CameraSpec(CameraKind.DIRECTORY, path=Path("C:/odd:name"))),
    ],
)
def test_specs_parse(text: str, expected: CameraSpec) -> None:
    assert parse_camera_spec(text) == expected


@pytest.mark.parametrize("spec", ["picamera", "picamera:1", "usb:0", "dir:/x", "video:a.mp4"])
def test_spec_round_trips_through_str(spec: str) -> None:
    assert str(parse_camera_spec(spec)) == spec


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("", "empty camera spec"),
        ("webcam", "unknown camera kind 'webcam'"),
        ("usb", "whole number"),
        ("usb:first", "whole number"),
        ("usb:-1", "whole number"),
        ("dir:", "names no path"),
        ("video:", "names no path"),
    ],
)
def test_bad_specs_say_what_is_wrong(text: str, complaint: str) -> None:
    with pytest.raises(CameraSpecError, match=complaint) as caught:
        parse_camera_spec(text)
    assert "a camera spec is one of" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_open_camera_rejects_missing_paths(tmp_path: Path) -> None:
    with pytest.raises(CameraSpecError, match="no folder"):
        open_camera(f"dir:{tmp_path / 'absent'}")
    with pytest.raises(CameraSpecError, match="no file"):
        open_camera(f"video:{tmp_path / 'absent.avi'}")


def test_open_camera_picks_the_class(tmp_path: Path) -> None:
    video = tmp_path / "game.avi"
    write_video(video, [30])
    assert isinstance(open_camera("picamera"), PiCamera)
    assert isinstance(open_camera("usb:1"), OpenCVCamera)
    assert isinstance(open_camera(f"dir:{tmp_path}"), DirectoryCamera)
    assert isinstance(open_camera(f"video:{video}"), OpenCVCamera)
    for camera in (open_camera("picamera"), open_camera(f"dir:{tmp_path}"), FakeCamera([])):
        assert isinstance(camera, Camera)


def test_as_bgr_frame_widens_grey_and_drops_alpha() -> None:
    assert as_bgr_frame(np.zeros((4, 5), np.uint8)).shape == (4, 5, 3)
    assert as_bgr_frame(np.zeros((4, 5, 4), np.uint8)).shape == (4, 5, 3)
    with pytest.raises(ValueError, match="uint8"):
        as_bgr_frame(np.zeros((4, 5, 3), np.float32))
    with pytest.raises(ValueError, match="height x width x 3"):
        as_bgr_frame(np.zeros((4, 5, 2), np.uint8))


class TestFakeCamera:
    def test_serves_frames_in_order_then_is_exhausted(self) -> None:
        with FakeCamera([solid(1), solid(2)]) as camera:
            assert camera.capture()[0, 0, 0] == 1
            assert camera.capture()[0, 0, 0] == 2
            with pytest.raises(CameraExhausted):
                camera.capture()
        assert camera.frames_served == 2
        assert (camera.starts, camera.stops) == (1, 1)

    def test_loops(self) -> None:
        with FakeCamera([solid(1), solid(2)], loop=True) as camera:
            values = [camera.capture()[0, 0, 0] for _ in range(5)]
        assert values == [1, 2, 1, 2, 1]

    def test_capture_needs_start(self) -> None:
        with pytest.raises(CameraNotStarted):
            FakeCamera([solid(1)]).capture()

    def test_fails_to_start_then_recovers(self) -> None:
        camera = FakeCamera([solid(1)], fail_starts=2)
        for _ in range(2):
            with pytest.raises(CameraUnavailable):
                camera.start()
        camera.start()
        assert camera.capture()[0, 0, 0] == 1
        assert camera.failures == 2

    def test_lost_mid_stream_keeps_its_place(self) -> None:
        camera = FakeCamera([solid(1), solid(2), solid(3)])
        camera.start()
        camera.capture()
        camera.fail_next(2)
        for _ in range(2):
            with pytest.raises(CameraUnavailable):
                camera.capture()
        assert camera.capture()[0, 0, 0] == 2
        assert camera.frames_served == 2

    def test_returned_frames_are_copies(self) -> None:
        camera = FakeCamera([solid(1)], loop=True)
        camera.start()
        camera.capture()[:] = 9
        assert camera.capture()[0, 0, 0] == 1

    def test_records_controls(self) -> None:
        auto = {"exposure_time_us": 8000, "analogue_gain": 1.5, "colour_gains": (1.8, 1.4)}
        camera = FakeCamera([], auto_values=auto)  # type: ignore[arg-type]
        assert camera.auto_controls() == auto
        camera.apply_controls(10000, 2, (2, 1.5))
        assert camera.applied_controls == [
            {"exposure_time_us": 10000, "analogue_gain": 2.0, "colour_gains": (2.0, 1.5)}
        ]


class TestDirectoryCamera:
    def test_serves_images_in_name_order_and_skips_broken_ones(self, tmp_path: Path) -> None:
        cv2.imwrite(str(tmp_path / "002.png"), solid(20))
        cv2.imwrite(str(tmp_path / "001.png"), solid(10))
        cv2.imwrite(str(tmp_path / "010.jpg"), solid(200))
        (tmp_path / "003.png").write_bytes(b"torn")
        (tmp_path / "notes.txt").write_text("not a frame")
        with open_camera(f"dir:{tmp_path}") as camera:
            frames = [camera.capture() for _ in range(3)]
            with pytest.raises(CameraExhausted):
                camera.capture()
        assert [int(frame[0, 0, 0]) for frame in frames[:2]] == [10, 20]
        assert abs(int(frames[2][0, 0, 0]) - 200) <= 2  # JPEG is lossy
        assert all(frame.shape == (24, 32, 3) and frame.dtype == np.uint8 for frame in frames)
        assert isinstance(camera, DirectoryCamera)
        assert camera.skipped == [tmp_path / "003.png"]

    def test_loops(self, tmp_path: Path) -> None:
        cv2.imwrite(str(tmp_path / "a.png"), solid(1))
        cv2.imwrite(str(tmp_path / "b.png"), solid(2))
        with DirectoryCamera(tmp_path, loop=True) as camera:
            values = [int(camera.capture()[0, 0, 0]) for _ in range(5)]
        assert values == [1, 2, 1, 2, 1]

    def test_empty_folder_is_exhausted_even_when_looping(self, tmp_path: Path) -> None:
        (tmp_path / "broken.png").write_bytes(b"")
        with DirectoryCamera(tmp_path, loop=True) as camera, pytest.raises(CameraExhausted):
            camera.capture()

    def test_folder_removed_before_start(self, tmp_path: Path) -> None:
        camera = DirectoryCamera(tmp_path / "gone")
        with pytest.raises(CameraSpecError, match="no such folder"):
            camera.start()

    def test_capture_needs_start(self, tmp_path: Path) -> None:
        with pytest.raises(CameraNotStarted):
            DirectoryCamera(tmp_path).capture()


def write_video(path: Path, values: list[int]) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (32, 24))
    assert writer.isOpened()
    for value in values:
        writer.write(solid(value))
    writer.release()


class TestVideoFile:
    def test_plays_to_the_end(self, tmp_path: Path) -> None:
        video = tmp_path / "game.avi"
        write_video(video, [30, 120, 220])
        with open_camera(f"video:{video}") as camera:
            values = [int(camera.capture()[0, 0, 1]) for _ in range(3)]
            with pytest.raises(CameraExhausted, match="after 3 frames"):
                camera.capture()
        assert all(abs(a - b) <= 4 for a, b in zip(values, [30, 120, 220], strict=True))

    def test_loops(self, tmp_path: Path) -> None:
        video = tmp_path / "game.avi"
        write_video(video, [30, 220])
        with open_camera(f"video:{video}", loop=True) as camera:
            values = [int(camera.capture()[0, 0, 1]) for _ in range(4)]
        assert values[0] == values[2] and values[1] == values[3] and values[0] < values[1]

    def test_a_file_that_is_no_video_is_refused_when_named(self, tmp_path: Path) -> None:
        # Before, only start() found out, after pi-reader run had opened a new journal.
        bogus = tmp_path / "bogus.avi"
        bogus.write_text("not a video")
        with pytest.raises(CameraSpecError, match="cannot decode"):
            open_camera(f"video:{bogus}")


class ScriptedCapture:
    """Stands in for cv2.VideoCapture on a webcam: opens or not, then delivers or stops."""

    instances: ClassVar[list[ScriptedCapture]] = []

    def __init__(self, source: object, opens: bool = True, frames: int = 1) -> None:
        self.source = source
        self.opens = opens
        self.frames_left = frames
        self.properties: dict[int, float] = {}
        self.released = False
        ScriptedCapture.instances.append(self)

    def isOpened(self) -> bool:
        return self.opens

    def set(self, prop: int, value: float) -> bool:
        self.properties[prop] = value
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.frames_left <= 0:
            return False, None
        self.frames_left -= 1
        return True, solid(77)

    def release(self) -> None:
        self.released = True


class TestWebcam:
    def test_requests_resolution_and_fps_then_reports_a_lost_device(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(cv2, "VideoCapture", lambda source: ScriptedCapture(source))
        camera = open_camera("usb:0", resolution=(640, 480), fps=15)
        with camera:
            assert camera.capture()[0, 0, 0] == 77
            with pytest.raises(CameraUnavailable, match="stopped delivering"):
                camera.capture()
        capture = ScriptedCapture.instances[-1]
        assert capture.source == 0
        assert capture.properties[cv2.CAP_PROP_FRAME_WIDTH] == 640
        assert capture.properties[cv2.CAP_PROP_FRAME_HEIGHT] == 480
        assert capture.properties[cv2.CAP_PROP_FPS] == 15
        assert capture.released

    def test_no_webcam(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(
            cv2, "VideoCapture", lambda source: ScriptedCapture(source, opens=False)
        )
        with pytest.raises(CameraUnavailable, match="no webcam answers"):
            open_camera("usb:3").start()
        assert ScriptedCapture.instances[-1].released

    def test_webcam_ignores_controls(self) -> None:
        camera = OpenCVCamera(0)
        assert camera.supports_controls is False
        camera.apply_controls(1000, 1.0, (1.0, 1.0))
        assert camera.auto_controls() is None
