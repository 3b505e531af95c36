"""Motion and settle detection on synthetic frame sequences (deterministic: frame time only)."""

from __future__ import annotations

import numpy as np
import pytest

from pi_reader.appliance.motion import MotionSettings, SettleDetector, TrayState

FPS = 10.0


def tray(rng: np.random.Generator, dice: list[tuple[int, int]], noise: float = 3.0) -> np.ndarray:
    """A 640x480 green tray with sensor noise and a 36-pixel white square per die position."""
    frame = np.full((480, 640, 3), (40, 110, 50), dtype=np.float32)
    frame += rng.normal(0.0, noise, frame.shape)
    for x, y in dice:
        frame[y : y + 36, x : x + 36] = (230, 230, 230)
    return np.clip(frame, 0, 255).astype(np.uint8)


def run(frames: list[np.ndarray], detector: SettleDetector | None = None) -> list:
    detector = detector or SettleDetector()
    return [detector.update(frame, i / FPS) for i, frame in enumerate(frames)]


def rolling_then_still(rng: np.random.Generator, moving: int, still: int) -> list[np.ndarray]:
    frames = [tray(rng, [(50 + 40 * i, 100 + 15 * i)]) for i in range(moving)]
    return frames + [tray(rng, [(50 + 40 * moving, 100 + 15 * moving)]) for _ in range(still)]


def test_noise_alone_is_not_motion_and_nothing_is_read_before_motion() -> None:
    rng = np.random.default_rng(1)
    observations = run([tray(rng, [(300, 200)]) for _ in range(30)])
    assert not any(o.moving for o in observations)
    assert not any(o.settled_now for o in observations)
    assert {o.state for o in observations} == {TrayState.EMPTY}


def test_settles_once_after_four_still_frames_at_ten_fps() -> None:
    rng = np.random.default_rng(2)
    observations = run(rolling_then_still(rng, moving=6, still=12))
    assert all(o.moving for o in observations[1:6])
    assert all(o.state is TrayState.ROLLING for o in observations[1:6])
    # The last motion is at frame 6 (the die jumps to its final place); still from frame 7 on.
    settled = [i for i, o in enumerate(observations) if o.settled_now]
    assert settled == [10]  # 0.4 s after frame 6
    assert observations[-1].state is TrayState.SETTLED


def test_a_single_small_die_moving_is_seen() -> None:
    rng = np.random.default_rng(3)
    frames = [tray(rng, [(300, 200)]), tray(rng, [(318, 200)])]
    assert run(frames)[1].moving


def test_time_comes_from_timestamps_not_frame_count() -> None:
    rng = np.random.default_rng(4)
    detector = SettleDetector()
    frames = rolling_then_still(rng, moving=3, still=3)
    times = [0.0, 0.1, 0.2, 0.3, 0.5, 0.75]  # a slow camera: 3 still frames span 0.45 s
    observations = [detector.update(f, t) for f, t in zip(frames, times, strict=True)]
    assert [o.settled_now for o in observations] == [False] * 5 + [True]


def test_motion_again_rearms_and_empty_is_reported_after_a_read() -> None:
    rng = np.random.default_rng(5)
    detector = SettleDetector()
    first = run(rolling_then_still(rng, 3, 6), detector)
    assert sum(o.settled_now for o in first) == 1
    detector.mark_empty()
    assert detector.state is TrayState.EMPTY
    again = [detector.update(f, 10 + i / FPS) for i, f in enumerate(rolling_then_still(rng, 3, 6))]
    assert sum(o.settled_now for o in again) == 1


def test_resolution_change_counts_as_motion() -> None:
    detector = SettleDetector()
    detector.update(np.zeros((480, 640, 3), np.uint8), 0.0)
    assert detector.update(np.zeros((600, 640, 3), np.uint8), 0.1).moving


@pytest.mark.parametrize(
    "kwargs",
    [{"width": 4}, {"pixel_threshold": 0}, {"min_changed_pixels": 0}, {"settle_seconds": -1}],
)
def test_bad_settings_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        MotionSettings(**kwargs)  # type: ignore[arg-type]
