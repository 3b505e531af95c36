"""The check of which constants the suite holds, run on a suite of its own: a constant a test
pins is held on both sides, one no test looks at on neither, and a suite that cannot run is an
error, not a constant left unheld."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import bench_constant_tests as bench
from pi_reader.vision import faces


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "test_pins.py").write_text(
        "from pi_reader.vision import faces\n\n"
        "def test_the_spread_is_pinned():\n"
        f"    assert faces.MIN_PATCH_SPREAD == {faces.MIN_PATCH_SPREAD!r}\n",
        encoding="utf-8")
    return folder


def test_a_pinned_constant_is_held_on_both_sides(suite):
    row = bench.checked("faces.MIN_PATCH_SPREAD", suites=[[str(suite)]])
    assert row["value"] == faces.MIN_PATCH_SPREAD
    assert [row["x0.5"]["held"], row["x2"]["held"]] == [True, True]
    assert row["x0.5"]["value"] == faces.MIN_PATCH_SPREAD / 2


def test_a_constant_no_test_looks_at_is_held_on_neither_side(suite):
    row = bench.checked("faces.NO_DIE_SHARE", suites=[[str(suite)]])
    assert [row["x0.5"]["held"], row["x2"]["held"]] == [False, False]
    assert row["x2"]["held_by"] is None


def test_a_side_the_first_suite_leaves_is_looked_for_in_the_next(suite, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "test_share.py").write_text(
        "from pi_reader.vision import faces\n\n"
        "def test_the_share_is_at_most_a_half():\n"
        "    assert faces.NO_DIE_SHARE <= 0.5\n", encoding="utf-8")
    row = bench.checked("faces.NO_DIE_SHARE", suites=[[str(suite)], [str(other)]])
    assert (row["x0.5"]["held_by"], row["x2"]["held_by"]) == (None, str(other))


def test_a_suite_that_does_not_run_is_an_error(tmp_path):
    broken = tmp_path / "test_broken.py"
    broken.write_text("import a_module_that_is_not_there\n", encoding="utf-8")
    with pytest.raises(bench.SuiteError, match="did not run"):
        bench.suite_fails("faces.NO_DIE_SHARE", 0.25, suite=[str(broken)])


def test_the_result_file_counts_the_sides_held(suite, tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "SUITE", (str(suite),))
    monkeypatch.setattr(bench, "WHOLE_SUITE", (str(suite),))
    out = tmp_path / "constant_tests.json"
    assert bench.main(["--constants", "faces.MIN_PATCH_SPREAD", "--out", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["figures"]["held_sides"] == 2 and data["figures"]["sides"] == 2
    assert data["tables"][0]["rows"] == [["faces.MIN_PATCH_SPREAD", "4", "2: held", "8: held"]]


def test_an_unknown_constant_is_a_usage_error(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--constants", "faces.NOT_A_CONSTANT"])
    assert "not in bench_sensitivity's list" in capsys.readouterr().err
