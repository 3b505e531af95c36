"""A recorded camera at real pace: frames no sooner than their time, counted afresh per start."""

from __future__ import annotations

import numpy as np

from pi_reader.appliance.recorded import RealPace
from pi_reader.devices import FakeCamera


def test_frames_come_at_the_frame_rate_and_a_restart_counts_afresh() -> None:
    now = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(round(seconds, 6))
        now[0] += seconds

    frames = [np.full((2, 2, 3), i, np.uint8) for i in range(6)]
    camera = RealPace(FakeCamera(frames), 10.0, sleep=sleep, clock=lambda: now[0])
    camera.start()
    served = [int(camera.capture()[0, 0, 0]) for _ in range(3)]
    assert served == [0, 1, 2] and slept == [0.1, 0.1]
    now[0] += 5.0  # a pause (a calibration): no rush of frames after it
    camera.stop()
    camera.start()
    camera.capture()
    camera.capture()
    assert slept == [0.1, 0.1, 0.1]
