"""PiCamera against a stand-in ``picamera2`` module: what it asks Picamera2 for, and its errors.

The real Picamera2 only runs on a Raspberry Pi; these tests pin down our side of the contract
(configuration, the BGR format name, controls, metadata) with a recording stand-in.
"""

from __future__ import annotations

import sys
import types
from typing import Any, ClassVar

import numpy as np
import pytest

from pi_reader.devices.errors import CameraNotStarted, CameraUnavailable
from pi_reader.devices.picamera import PiCamera

# What the stand-in may imitate: Picamera2's documented API (picamera2 cannot install here, so
# its source cannot be asked). Methods and attributes of ``Picamera2``, from the Picamera2 manual
# (https://datasheets.raspberrypi.com/camera/picamera2-manual.pdf: "Configuring the camera",
# "Camera controls", "Capturing images", "Autofocus", "Multiple cameras"); control and metadata
# names from libcamera's control reference
# (https://libcamera.org/api-html/namespacelibcamera_1_1controls.html), plus Picamera2's own
# "FrameRate" convenience control (manual, "Camera controls").
PICAMERA2_METHODS = frozenset(
    {
        "autofocus_cycle",
        "camera_controls",
        "capture_array",
        "capture_metadata",
        "close",
        "configure",
        "create_preview_configuration",
        "global_camera_info",
        "set_controls",
        "start",
        "stop",
    }
)
PICAMERA2_CONTROLS = frozenset(
    {"AeEnable", "AwbEnable", "AfMode", "AnalogueGain", "ColourGains", "ExposureTime", "FrameRate"}
)
PICAMERA2_METADATA = frozenset({"AnalogueGain", "ColourGains", "ExposureTime", "Lux"})
# Formats of a "main" stream as [byte order in memory] (manual, "Image formats"): the names count
# from the most significant byte of a little-endian word, so "RGB888" is B, G, R in memory.
PICAMERA2_BYTE_ORDER = {"RGB888": "BGR", "BGR888": "RGB"}
# The stand-in's own bookkeeping, which no Picamera2 has.
STAND_IN_ONLY = frozenset(
    {"calls", "camera_num", "cameras_present", "has_autofocus", "instances", "metadata"}
)


class RecordingPicamera2:
    """Records every call PiCamera makes; behaves like a camera that works."""

    instances: ClassVar[list[RecordingPicamera2]] = []
    cameras_present = 1
    has_autofocus = False

    def __init__(self, camera_num: int = 0) -> None:
        if camera_num >= self.cameras_present:
            raise IndexError("list index out of range")
        self.camera_num = camera_num
        self.calls: list[tuple[str, Any]] = []
        self.camera_controls: dict[str, Any] = {"ExposureTime": (1, 66666, None)}
        if self.has_autofocus:
            self.camera_controls["AfMode"] = (0, 2, 0)
        self.metadata: dict[str, Any] = {
            "ExposureTime": 12345,
            "AnalogueGain": 2.5,
            "ColourGains": (1.9, 1.6),
            "Lux": 300.0,
        }
        RecordingPicamera2.instances.append(self)

    def create_preview_configuration(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("create_preview_configuration", kwargs))
        return {"configuration": kwargs}

    def configure(self, configuration: dict[str, Any]) -> None:
        self.calls.append(("configure", configuration))

    def start(self) -> None:
        self.calls.append(("start", None))

    def capture_array(self, stream: str = "main") -> np.ndarray:
        """A pure red scene, its bytes in the order the configured format puts them."""
        self.calls.append(("capture_array", stream))
        main = self.calls[0][1]["main"]
        width, height = main["size"]
        order = PICAMERA2_BYTE_ORDER[main["format"]]
        frame = np.zeros((height, width, 3), np.uint8)
        frame[:, :, order.index("R")] = 255
        return frame

    def capture_metadata(self) -> dict[str, Any]:
        return self.metadata

    def autofocus_cycle(self) -> bool:
        self.calls.append(("autofocus_cycle", None))
        return True

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append(("set_controls", controls))

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def close(self) -> None:
        self.calls.append(("close", None))


@pytest.fixture
def picamera2(monkeypatch: pytest.MonkeyPatch) -> type[RecordingPicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = RecordingPicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    RecordingPicamera2.instances.clear()
    monkeypatch.setattr(RecordingPicamera2, "has_autofocus", False)
    return RecordingPicamera2


def test_streams_bgr_at_the_requested_size(picamera2: type[RecordingPicamera2]) -> None:
    with PiCamera(resolution=(1024, 768), fps=10) as camera:
        frame = camera.capture()
    assert frame.shape == (768, 1024, 3) and frame.dtype == np.uint8
    calls = picamera2.instances[0].calls
    assert calls[0] == (
        "create_preview_configuration",
        {"main": {"size": (1024, 768), "format": "RGB888"}, "controls": {"FrameRate": 10.0}},
    )
    assert [name for name, _ in calls] == [
        "create_preview_configuration",
        "configure",
        "start",
        "capture_array",
        "stop",
        "close",
    ]


def test_a_lens_with_autofocus_focuses_once_at_start(
    picamera2: type[RecordingPicamera2], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RecordingPicamera2, "has_autofocus", True)
    with PiCamera() as camera:
        camera.capture()
        camera.capture()
    names = [name for name, _ in picamera2.instances[0].calls]
    assert names.count("autofocus_cycle") == 1
    assert names.index("autofocus_cycle") == names.index("start") + 1


def test_frames_are_bgr_as_picamera2_lays_out_its_format(
    picamera2: type[RecordingPicamera2],
) -> None:
    with PiCamera(resolution=(64, 48)) as camera:
        frame = camera.capture()
    assert (frame[0, 0] == (0, 0, 255)).all()  # red is OpenCV's third channel


def test_the_stand_in_imitates_only_documented_picamera2(
    picamera2: type[RecordingPicamera2],
) -> None:
    public = {name for name in vars(RecordingPicamera2) if not name.startswith("_")}
    with PiCamera() as camera:
        public |= {name for name in vars(picamera2.instances[0]) if not name.startswith("_")}
        camera.apply_controls(10000, 2.0, (1.8, 1.5))
    assert public - STAND_IN_ONLY <= PICAMERA2_METHODS
    calls = picamera2.instances[0].calls
    configured = calls[0][1]
    controls = set(configured["controls"]) | {
        name for call, argument in calls if call == "set_controls" for name in argument
    }
    assert controls <= PICAMERA2_CONTROLS
    assert set(configured["main"]) == {"size", "format"} and configured["main"]["format"] in (
        PICAMERA2_BYTE_ORDER
    )
    assert set(picamera2.instances[0].metadata) <= PICAMERA2_METADATA
    assert set(picamera2.instances[0].camera_controls) <= PICAMERA2_CONTROLS


def test_apply_controls_freezes_exposure_and_white_balance(
    picamera2: type[RecordingPicamera2],
) -> None:
    with PiCamera() as camera:
        camera.apply_controls(10000, 2.0, (1.8, 1.5))
    assert (
        "set_controls",
        {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": 10000,
            "AnalogueGain": 2.0,
            "ColourGains": (1.8, 1.5),
        },
    ) in picamera2.instances[0].calls


def test_auto_controls_reads_the_settled_values(picamera2: type[RecordingPicamera2]) -> None:
    with PiCamera() as camera:
        assert camera.auto_controls() == {
            "exposure_time_us": 12345,
            "analogue_gain": 2.5,
            "colour_gains": (1.9, 1.6),
        }
        picamera2.instances[0].metadata = {"SensorTimestamp": 1}
        assert camera.auto_controls() is None


def test_no_such_camera(picamera2: type[RecordingPicamera2]) -> None:
    with pytest.raises(CameraUnavailable, match="no Raspberry Pi camera number 1"):
        PiCamera(camera_num=1).start()


def test_picamera2_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import raises ImportError
    with pytest.raises(CameraUnavailable, match="apt install python3-picamera2"):
        PiCamera().start()


def test_controls_need_a_started_camera() -> None:
    with pytest.raises(CameraNotStarted):
        PiCamera().apply_controls(1, 1.0, (1.0, 1.0))
    PiCamera().stop()  # stopping a camera never started is harmless


def test_on_a_real_pi() -> None:
    picamera2 = pytest.importorskip("picamera2")
    if not picamera2.Picamera2.global_camera_info():
        pytest.skip("no camera attached to this Raspberry Pi")
    with PiCamera(resolution=(640, 480)) as camera:
        frame = camera.capture()
        assert frame.shape == (480, 640, 3)
        assert camera.auto_controls() is not None
