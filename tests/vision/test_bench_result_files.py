"""The robustness and close-up benchmarks write result files of the generic shape, holding the
table they print: checked on a set of one calibration frame and one roll, not a whole set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import bench_closeup, bench_robustness, render_docs

KEYS = {"benchmark", "title", "command", "commit", "uncommitted_changes", "date", "notes",
        "figures", "tables", "headline"}


@pytest.fixture
def one_roll(datasets_dir: Path, tmp_path: Path) -> Path:
    """A recorded set of the first rendered scenario's calibration frame and first roll."""
    source = datasets_dir / "qwixx-rendered"
    lines = [json.loads(line) for line in (source / "labels.jsonl").read_text().splitlines()]
    scenario = [line for line in lines if line.get("scenario") == "s00"]
    calibration = next(line for line in scenario if line["kind"] == "calibration")
    roll = next(line for line in scenario if line["kind"] == "roll")
    folder = tmp_path / "sets" / "one-roll"
    folder.mkdir(parents=True)
    (folder / "s00").symlink_to(source / "s00")
    (folder / "labels.jsonl").write_text(f"{json.dumps(calibration)}\n{json.dumps(roll)}\n")
    return folder


def printed_rows(text: str) -> list[list[str]]:
    """The cells of a printed markdown table's rows, below its header and rule."""
    return [line.strip("| ").split(" | ") for line in text.splitlines()[2:]]


def rendered(result_file: Path) -> str:
    return render_docs.render_benchmarks(render_docs.load_results(result_file.parent))


def test_robustness_writes_the_table_it_prints(one_roll, tmp_path, capsys):
    path = tmp_path / "results" / "robustness.json"
    path.parent.mkdir()
    bench_robustness.main(["--sets", one_roll.name, "--datasets", str(one_roll.parent),
                           "--changes", "none", "warm", "--json", str(path)])
    result = json.loads(path.read_text(encoding="utf-8"))
    assert set(result) == KEYS and result["benchmark"] == "robustness"
    [table] = result["tables"]
    assert table["columns"] == bench_robustness.COLUMNS
    assert table["rows"] == printed_rows(capsys.readouterr().out)
    assert [(r["set"], r["change"]) for r in result["figures"]["results"]] == [
        ("one-roll", "none"), ("one-roll", "warm")]
    first = result["figures"]["results"][0]
    assert 0 <= first["dice_right"] <= 1 and first["calibrations_refused"] == []
    assert first["silently_wrong_rolls"] in (0, 1) and 0 <= first["rolls_refused"] <= 1
    assert "## Robustness: the calibrated reader with another camera or light" in rendered(path)


def test_closeup_writes_the_table_it_prints(one_roll, tmp_path, capsys):
    path = tmp_path / "results" / "closeup.json"
    path.parent.mkdir()
    bench_closeup.main(["--set", one_roll.name, "--datasets", str(one_roll.parent),
                        "--window", "4", "--json", str(path)])
    result = json.loads(path.read_text(encoding="utf-8"))
    assert set(result) == KEYS and result["benchmark"] == "closeup"
    [table] = result["tables"]
    assert table["columns"] == bench_closeup.COLUMNS
    assert table["rows"] == printed_rows(capsys.readouterr().out)
    [window] = result["figures"]["windows"]
    assert window["window"] == 4.0 and window["dice"] == 3  # every other of the six dice
    assert window["right"] + window["wrong"] + window["not_found"] <= window["dice"]
    assert "| 4 | 3 |" in rendered(path)


def test_json_alone_leaves_stdout_to_the_figures(one_roll, monkeypatch, capsys):
    monkeypatch.setattr(bench_closeup, "read_alone", lambda image, die, window: die.value)
    bench_closeup.main(["--set", one_roll.name, "--datasets", str(one_roll.parent),
                        "--window", "4", "2.5", "--json"])
    out, err = capsys.readouterr()
    assert [w["right"] for w in json.loads(out)["windows"]] == [3, 3]
    assert printed_rows(err) == [["4", "3", "100.0%", "0", "0"], ["2.5", "3", "100.0%", "0", "0"]]
