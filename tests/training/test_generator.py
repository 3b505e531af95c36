"""The training-data generator renders a tiny set end to end: Blender, the camera finish, labels.

The frames are a few pixels and one sample (``render_scenes.SMOKE``): what is checked is the
pipeline and the recorded-set format, not the pictures. Needs Blender (``apt-get install
blender``; ``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pi_reader.vision.recorded import load_recorded_set
from training import render_scenes
from training.splits import frame_split, is_generated


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("blender") is None:
        pytest.fail("Blender is not installed: apt-get install blender (.ci/run installs it)")
    out = tmp_path_factory.mktemp("renders") / "tiny"
    render_scenes.run(out, seed=3, count=2, jobs=2, chunk=1, quality=render_scenes.SMOKE)
    return out


def test_a_tiny_set_is_a_recorded_set_with_an_appliance_and_a_generic_scene(rendered: Path):
    recorded = load_recorded_set(rendered)
    by_scene: dict[str, list[str]] = {}
    for frame in recorded.frames:
        by_scene.setdefault(frame.scenario or "", []).append(frame.kind)
    assert by_scene == {
        "a00000": ["calibration"] + ["roll"] * render_scenes.APPLIANCE_ROLLS,
        "g00001": ["roll"] * render_scenes.GENERIC_ROLLS,
    }
    for frame in recorded.frames:
        assert frame.path.is_file()
        width, height = render_scenes.SMOKE.size("appliance" if frame.scenario == "a00000"
                                                 else "generic")
        for die in frame.dice:
            x, y, w, h = die.box
            assert x >= 0 and y >= 0 and x + w <= width + 0.1 and y + h <= height + 0.1
            if die.value is None:
                assert die.unreadable and die.rendered_value in range(1, 7)
            else:
                assert die.value in range(1, 7)
    # Scenes are written as they finish (two jobs: either may be first), so frames are found by
    # name, not by place.
    calibration = next(f for f in recorded.frames if f.kind == "calibration")
    assert sorted(d.colour for d in calibration.dice) == sorted(
        ["white", "white", "red", "yellow", "green", "blue"])
    assert all(d.colour is None for f in recorded.frames if f.scenario == "g00001"
               for d in f.dice)


def test_the_geometry_sidecar_has_a_line_per_frame_and_a_die_per_label(rendered: Path):
    labels = [json.loads(line) for line in (rendered / "labels.jsonl").read_text().splitlines()]
    geometry = [json.loads(line) for line in (rendered / "geometry.jsonl").read_text().splitlines()]
    assert [g["image"] for g in geometry] == [line["image"] for line in labels]
    for line, geo in zip(labels, geometry, strict=True):
        assert len(geo["dice"]) == len(line["dice"])
        for die in geo["dice"]:
            assert len(die["top_face"]) == 4 and die["pips"]
            assert len(die["places_seen"]) == 9  # the 3 x 3 places a pip could be


def test_the_manifest_names_seed_counts_ranges_and_the_split_rule(rendered: Path):
    manifest = json.loads((rendered / "manifest.json").read_text())
    assert manifest["seed"] == 3
    assert manifest["scenes_finished"] == manifest["scenes_planned"] == 2
    assert manifest["frame_size"]["appliance"] == list(render_scenes.SMOKE.appliance_size)
    assert "die_mm" in manifest["parameter_ranges"]
    recorded = load_recorded_set(rendered)
    assert is_generated(rendered)
    assert {frame_split(recorded, f) for f in recorded.frames} == {"test"}  # scenes 0 and 1


def test_a_set_cut_short_goes_on_where_it_stopped_and_the_same_seed_gives_the_same_scenes(
    rendered: Path, tmp_path: Path
):
    again = tmp_path / "again"
    render_scenes.run(again, seed=3, count=1, jobs=1, chunk=1, quality=render_scenes.SMOKE)
    render_scenes.run(again, seed=3, count=2, jobs=1, chunk=1, quality=render_scenes.SMOKE)
    first = [json.loads(line) for line in (rendered / "labels.jsonl").read_text().splitlines()]
    second = [json.loads(line) for line in (again / "labels.jsonl").read_text().splitlines()]
    assert ({line["image"]: line["dice"] for line in second}
            == {line["image"]: line["dice"] for line in first})


def test_a_filtered_run_renders_only_its_scenes_and_they_are_those_of_the_whole_set(
    rendered: Path, tmp_path: Path
):
    part = tmp_path / "part"
    render_scenes.run(part, seed=3, count=2, jobs=1, chunk=1, quality=render_scenes.SMOKE,
                      kinds=frozenset({"generic"}))
    lines = [json.loads(line) for line in (part / "labels.jsonl").read_text().splitlines()]
    whole = {json.loads(line)["image"]: json.loads(line)["dice"]
             for line in (rendered / "labels.jsonl").read_text().splitlines()}
    assert {line["scenario"] for line in lines} == {"g00001"}
    assert all(whole[line["image"]] == line["dice"] for line in lines)
    manifest = json.loads((part / "manifest.json").read_text())
    assert manifest["finished_by_split"] == {"test": {"generic": 1}}
    with pytest.raises(SystemExit) as usage_error:
        render_scenes.main(["--out", str(part), "--split", "nonsense"])
    assert usage_error.value.code == 2


def test_a_set_rich_in_cocked_dice_says_so_and_is_never_mixed_with_another_share(
    rendered: Path, tmp_path: Path
):
    default = json.loads((rendered / "manifest.json").read_text())
    assert default["leaning_throws"] is None and "--leaning" not in default["command"]
    rich = tmp_path / "rich"
    render_scenes.run(rich, seed=3, count=1, jobs=1, chunk=1, quality=render_scenes.SMOKE,
                      leaning_throws=1.0)
    manifest = json.loads((rich / "manifest.json").read_text())
    assert manifest["leaning_throws"] == 1.0 and "--leaning-throws 1.0" in manifest["command"]
    with pytest.raises(render_scenes.OtherGenerator, match="leaning throws"):
        render_scenes.run(rich, seed=3, count=2, jobs=1, chunk=1, quality=render_scenes.SMOKE)
    with pytest.raises(render_scenes.OtherGenerator, match=r"throws 1\.0, not 0\.0"):
        render_scenes.check_version(rich, 0.0)
    with pytest.raises(SystemExit) as usage_error:
        render_scenes.main(["--out", str(rich), "--leaning-throws", "1.5"])
    assert usage_error.value.code == 2


def test_the_manifest_names_the_generator_version(rendered: Path):
    manifest = json.loads((rendered / "manifest.json").read_text())
    assert manifest["generator_version"] == render_scenes.GENERATOR_VERSION


def test_a_set_begun_by_another_generator_version_is_not_resumed(tmp_path: Path):
    (tmp_path / "manifest.json").write_text(json.dumps({"seed": 1}))  # version 1 wrote none
    with pytest.raises(render_scenes.OtherGenerator, match=r"version 1.*checkout of 34e6b84"):
        render_scenes.run(tmp_path, seed=1, count=1, jobs=1, chunk=1,
                          quality=render_scenes.SMOKE)
    assert render_scenes.main(["--out", str(tmp_path), "--scenes", "1"]) == 2
    assert not (tmp_path / "raw").exists()


def test_measure_throws_counts_cocked_throws_in_blenders_simulation():
    script = Path(render_scenes.__file__).with_name("measure_throws.py")
    done = subprocess.run(["blender", "-b", "--factory-startup", "-P", str(script), "--", "1", "1"],
                          capture_output=True, text=True, timeout=300, check=True)
    assert re.search(r"throws ending with a die cocked: [01] of 1; leans \[", done.stdout)


def test_huddled_dice_end_against_each_other_more_often_than_thrown_ones():
    # Version 5's huddles drop the dice into an invisible pen a few dice wide (blender_scene).
    script = Path(render_scenes.__file__).with_name("measure_throws.py")
    done = subprocess.run(["blender", "-b", "--factory-startup", "-P", str(script), "--", "2", "6",
                           "1000"], capture_output=True, text=True, timeout=300, check=True)
    found = re.search(r"dice against another: (\d+) of (\d+) in huddles, (\d+) of (\d+) in the "
                      r"other throws", done.stdout)
    assert found, done.stdout
    huddled, huddles, thrown, throws = (int(n) for n in found.groups())
    assert huddles > 0 and throws > 0
    assert huddled / huddles > 2 * thrown / throws


def test_a_face_is_seen_through_every_invisible_wall_and_not_behind_a_visible_one():
    # Version 5 gave up after 8 invisible walls: faces in plain view in a corner of a huddle's
    # pen were labelled "pips hidden from the camera".
    script = Path(__file__).with_name("blender_seen_check.py")
    done = subprocess.run(["blender", "-b", "--factory-startup", "-P", str(script)],
                          capture_output=True, text=True, timeout=300, check=True)
    assert "seen through every invisible wall: True" in done.stdout, done.stdout
    assert "seen behind a visible box: False" in done.stdout, done.stdout


def test_a_frame_is_refused_as_overexposed_only_where_it_is_clipped_white():
    # A bright magenta felt clips red and blue but keeps its green: dice on it are readable.
    felt = np.zeros((60, 80, 3), dtype=np.uint8)
    felt[:] = (255, 90, 255)
    assert render_scenes.overexposure(felt) is None
    white = felt.copy()
    white[:40] = 255
    assert render_scenes.overexposure(white) == "overexposed: 67% of the frame clipped white"
    white[:20] = (255, 253, 255)
    assert render_scenes.overexposure(white) is None
