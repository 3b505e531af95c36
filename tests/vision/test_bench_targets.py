"""The targets benchmark's own logic: targets checked, generated sets found, the baseline."""

from __future__ import annotations

import json

from benchmarks import bench_targets

from ..training.test_splits import generated_set


def test_each_target_is_checked_against_its_figure():
    targets = {"a": (">=", 0.9), "b": ("<=", 0), "c": ("<", 150.0), "d": (">=", 1.0)}
    checked = bench_targets.checked({"a": 0.95, "b": 1, "c": 149.9}, targets)
    assert [t["met"] for t in checked] == [True, False, True, None]
    assert checked[0] == {"figure": "a", "value": 0.95, "target": ">= 0.9", "met": True}


def test_generated_sets_are_the_folders_with_the_generators_manifest(tmp_path):
    assert bench_targets.generated_sets(tmp_path / "absent") == []
    for name, manifest in (("dr1", {"split_rule": "mod 20"}), ("other", {"seed": 1})):
        (tmp_path / name).mkdir()
        (tmp_path / name / "labels.jsonl").write_text("")
        (tmp_path / name / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "no-labels").mkdir()
    assert bench_targets.generated_sets(tmp_path) == [tmp_path / "dr1"]
    assert bench_targets.generated_sets(tmp_path / "dr1") == [tmp_path / "dr1"]


def test_a_generated_set_without_test_scenes_is_skipped_not_read(tmp_path, capsys):
    # Scene 10 is a training scene, scene 1 a test one (training/splits.py).
    for folder, scene in (("train-only", "a00010"), ("with-test", "a00001")):
        (tmp_path / folder).mkdir()
        generated_set(tmp_path / folder, [scene])
    found = [tmp_path / "train-only" / "dr-test", tmp_path / "with-test" / "dr-test"]
    skipped: list[dict[str, str]] = []
    splits = bench_targets.generated_test_splits(found, skipped)
    assert [folder for folder, _ in splits] == [found[1]]
    assert skipped == [{"set": f"generated:{found[0]}", "why": "no test scenes rendered"}]
    assert "no test scenes rendered" in capsys.readouterr().out


def test_the_baseline_holds_every_shared_set_and_says_its_tolerance():
    figures = dict.fromkeys(bench_targets.BASELINE_TOLERANCE, 0.5)
    results = {
        "command": "python benchmarks/bench_targets.py", "commit": "abc", "date": "today",
        "sets": [
            {"set": "qwixx-rendered", "split": "all", "mode": "calibrated", **figures},
            {"set": "generated:/work/renders/dr1", "split": "test", "mode": "x", **figures},
        ],
    }
    baseline = bench_targets.baseline(results)
    assert list(baseline["sets"]) == ["qwixx-rendered"]
    assert baseline["sets"]["qwixx-rendered"]["dice_right"] == 0.5
    assert baseline["tolerance"]["silently_wrong_rolls"] == {
        "direction": "may not rise by more than", "by": 0,
    }
