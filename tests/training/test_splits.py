"""The split policy: test-only sets, whole sessions on one side, loud failures, generated scenes."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import datetime, timedelta

import numpy as np
import pytest

from pi_reader.vision.recorded import LabelledDie, LabelledFrame, RecordedSet, load_recorded_set
from training import make_splits, sessions
from training.splits import (
    SESSION_SPLIT_SETS,
    SPLITS,
    TEST_ONLY_SETS,
    SplitError,
    check_manifest,
    frame_split,
    held_out,
    load_manifest,
    scene_split,
    select,
    session_of,
    shared_set,
    split_of,
)


@pytest.mark.parametrize("name", SESSION_SPLIT_SETS)
def test_no_session_of_a_real_set_is_on_two_sides(datasets_dir, name):
    recorded = shared_set(datasets_dir, name)  # the manifest matches the set's labels
    sides: dict[str, set[str]] = defaultdict(set)
    for frame in recorded.frames:
        sides[session_of(name, frame.image)].add(split_of(name, frame.image))
    assert all(len(splits) == 1 for splits in sides.values())
    # Every split has photos, and sessions on one table went to one split together.
    assert set(Counter(split_of(name, f.image) for f in recorded.frames)) == set(SPLITS)
    tables: dict[str, set[str]] = defaultdict(set)
    for session, table in sessions.SAME_TABLE.items():
        if session in sides:
            tables[table] |= sides[session]
    assert all(len(splits) == 1 for splits in tables.values())


def test_the_manifests_counts_add_up(datasets_dir):
    for name in SESSION_SPLIT_SETS:
        manifest = load_manifest(name)
        recorded = shared_set(datasets_dir, name)
        assert sum(c["photos"] for c in manifest["counts"].values()) == len(recorded.frames)
        assert sum(c["dice"] for c in manifest["counts"].values()) == sum(
            len(f.dice) for f in recorded.frames
        )
        assert sum(c["sessions"] for c in manifest["counts"].values()) == len(
            manifest["sessions"]
        )


@pytest.mark.parametrize("name", TEST_ONLY_SETS)
def test_the_rendered_qwixx_sets_are_test_only(datasets_dir, name):
    recorded = shared_set(datasets_dir, name)
    assert {frame_split(recorded, f) for f in recorded.frames} == {"test"}
    assert select(recorded, "train", "validation").frames == ()
    assert all(held_out(name, f.image) for f in recorded.frames)


def test_a_missing_or_renamed_set_folder_fails_loudly(tmp_path, datasets_dir):
    (tmp_path / "real-d6-top").mkdir()  # real-d6-overhead, renamed
    with pytest.raises(SplitError, match=r"real-d6-overhead is missing.*found: real-d6-top"):
        shared_set(tmp_path, "real-d6-overhead")
    with pytest.raises(SplitError, match="not a shared set"):
        shared_set(tmp_path, "real-d6-top")
    renamed = RecordedSet(root=tmp_path / "real-d6-top", frames=(roll("images/a.jpg"),))
    with pytest.raises(SplitError, match="not a set the split policy knows"):
        frame_split(renamed, renamed.frames[0])
    with pytest.raises(SplitError, match="no split manifest"):
        split_of("real-d6-top", "images/a.jpg")


def test_a_set_that_no_longer_matches_its_manifest_is_refused(datasets_dir, tmp_path):
    real = load_recorded_set(datasets_dir / "real-d6-overhead")
    changed = RecordedSet(root=real.root, frames=(*real.frames[1:], roll("images/new.jpg")))
    with pytest.raises(SplitError, match=r"1 labelled images not in it.*1 in it not labelled"):
        check_manifest(changed)
    with pytest.raises(SplitError, match=r"re-run python training/make_splits\.py"):
        select(changed, "test")
    with pytest.raises(SplitError, match="not in the split manifest"):
        split_of("real-d6-overhead", "images/new.jpg")


def test_select_keeps_the_calibration_frames_of_the_scenarios_it_keeps(tmp_path):
    root = generated_set(tmp_path, ["a00000", "a00004"])  # scene 0: test, scene 4: validation
    recorded = load_recorded_set(root)
    test = select(recorded, "test")
    assert {f.image for f in test.frames} == {"a00000/calibration.jpg", "a00000/roll_001.jpg"}
    assert test.calibration_for("a00000") is not None
    with pytest.raises(SplitError, match="splits must be among"):
        select(recorded, "held-out")  # type: ignore[arg-type]


def test_generated_scenes_are_split_by_scene_index():
    splits = Counter(scene_split(i) for i in range(200))
    assert splits == {"train": 140, "validation": 30, "test": 30}
    assert [scene_split(i) for i in (0, 2, 3, 5, 6, 19, 20)] == [
        "test", "test", "validation", "validation", "train", "train", "test",
    ]


def test_a_generated_frame_must_name_its_scene_and_agree_with_the_policy(tmp_path):
    root = generated_set(tmp_path, ["a00007"], written_split="test")  # scene 7 is train
    recorded = load_recorded_set(root)
    with pytest.raises(SplitError, match="the generator and the policy disagree"):
        select(recorded, "train")
    nameless = RecordedSet(root=root, frames=(roll("x.jpg"),))
    with pytest.raises(SplitError, match="no scene index"):
        frame_split(nameless, nameless.frames[0])


def test_the_session_manifests_are_dealt_deterministically():
    sizes = {f"s{i}": (i + 1, 3 * i + 1) for i in range(12)}
    dealt = make_splits.deal(sizes)
    assert dealt == make_splits.deal(sizes)
    assert set(dealt.values()) == set(SPLITS)


def test_overhead_sessions_end_at_a_pause_or_a_change_of_background():
    start = datetime(2019, 12, 8, 11, 0, 0)
    # Seconds after the start, and on the box lid or not: a pause of 40 s, a change to the
    # lid, and a two-photo run on the lid after a pause (a pause inside the lid session).
    shots = [(0, False), (10, False), (20, False), (30, False), (40, False), (80, False),
             (90, False), (100, False), (110, False), (120, False), (125, True), (130, True),
             (135, True), (140, True), (145, True), (200, True), (205, True)]
    frames = tuple(
        roll(f"images/IMG_{(start + timedelta(seconds=s)):%Y%m%d_%H%M%S}.jpg", lid=lid)
        for s, lid in shots
    )

    def read(frame):
        image = np.full((80, 80, 3), 200, np.uint8)
        if frame.extra["lid"]:
            image[:, :6] = 20  # the lid's dark rim
        return image, 1.0

    found = sessions.overhead_sessions(RecordedSet(root=None, frames=frames), read)  # type: ignore[arg-type]
    runs = Counter(found.values())
    assert runs == {
        "20191208_110000-board": 5, "20191208_110120-board": 5, "20191208_110205-box-lid": 7,
    }


def test_average_linkage_groups_what_looks_alike():
    points = np.array([[0.0], [1.0], [2.0], [50.0], [51.0], [200.0]])
    assert sorted(sessions.average_linkage(points, 10.0)) == [[0, 1, 2], [3, 4], [5]]


def test_every_gamedice_stem_is_in_one_session(datasets_dir):
    recorded = load_recorded_set(datasets_dir / "real-d6-gamedice")
    found = sessions.gamedice_sessions(recorded)
    assert len(found) == len(recorded.frames)
    with pytest.raises(ValueError, match="in 0 sessions"):
        sessions.gamedice_sessions(RecordedSet(root=None, frames=(roll("dice_9999_jpg.jpg"),)))  # type: ignore[arg-type]


@pytest.mark.slow
def test_the_committed_manifests_are_what_the_script_makes(datasets_dir):
    assert make_splits.main(["--datasets", str(datasets_dir), "--check"]) == 0


def roll(image, scenario=None, **extra):
    die = LabelledDie(colour=None, value=3, box=(1.0, 1.0, 5.0, 5.0))
    return LabelledFrame(image=image, path=None, kind="roll", dice=(die,),  # type: ignore[arg-type]
                         scenario=scenario, extra=extra)


def generated_set(tmp_path, scenes, written_split=None):
    """A generated set's labels and manifest (no images: the split needs none)."""
    root = tmp_path / "dr-test"
    root.mkdir()
    (root / "manifest.json").write_text(json.dumps({"split_rule": "scene index mod 20"}))
    lines = []
    for scene in scenes:
        for kind, name in (("calibration", "calibration"), ("roll", "roll_001")):
            line = {"image": f"{scene}/{name}.jpg", "scenario": scene, "kind": kind,
                    "dice": [{"colour": "red", "value": 2, "box": [1, 1, 5, 5]}]}
            if written_split:
                line["conditions"] = {"split": written_split}
            lines.append(json.dumps(line))
    (root / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return root
