"""The figures in docs/benchmarks.md and the README's headline table are generated, not typed:
they must be what ``benchmarks/render_docs.py`` makes of the committed result files."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def render_docs():
    spec = importlib.util.spec_from_file_location(
        "render_docs", REPO / "benchmarks" / "render_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["render_docs"] = module
    spec.loader.exec_module(module)
    return module


def test_the_docs_are_up_to_date_with_the_result_files(render_docs):
    results = render_docs.load_results()
    assert {name for name, _ in results} >= {"rules", "players", "loop"}
    assert render_docs.BENCHMARKS_MD.read_text(encoding="utf-8") == (
        render_docs.render_benchmarks(results)
    ), "docs/benchmarks.md is out of date: run python benchmarks/render_docs.py"
    readme = render_docs.README.read_text(encoding="utf-8")
    assert readme == render_docs.render_readme(readme, results), (
        "the README's headline table is out of date: run python benchmarks/render_docs.py"
    )


def test_every_result_says_how_when_and_on_what_it_was_measured(render_docs):
    for name, result in render_docs.load_results():
        # a benchmark, or a training script that measures on validation data (the chooser)
        assert result["command"].startswith(("python benchmarks/", "python training/")), name
        assert len(result["commit"]) == 40 and result["date"].endswith("Z"), name


def test_a_new_result_file_of_the_generic_shape_needs_no_new_code(render_docs, tmp_path):
    result = {
        "benchmark": "new", "title": "A new benchmark", "command": "python benchmarks/new.py",
        "commit": "0" * 40, "uncommitted_changes": True, "date": "2026-12-01T12:00:00Z",
        "notes": "", "figures": {"x": 1},
        "tables": [{"caption": "the figure", "columns": ["x"], "rows": [["1"]]}],
        "headline": [{"what": "the new thing", "measured": "1", "target": "> 0"}],
    }
    (tmp_path / "new.json").write_text(json.dumps(result))
    results = render_docs.load_results(tmp_path)
    page = render_docs.render_benchmarks(results)
    assert "## A new benchmark" in page and "| 1 |" in page
    assert "plus uncommitted changes" in page
    table = render_docs.render_headline(results)
    assert "| the new thing | 1 | > 0 | `python benchmarks/new.py` | `0000000000` (+) |" in table


def test_a_file_of_an_unknown_shape_is_named_not_a_crash(render_docs, tmp_path):
    result = {"benchmark": "odd", "command": "python benchmarks/odd.py", "commit": "1" * 40,
              "date": "2026-12-01T12:00:00Z", "numbers": [1, 2]}
    (tmp_path / "odd.json").write_text(json.dumps(result))
    page = render_docs.render_benchmarks(render_docs.load_results(tmp_path))
    assert "## odd" in page and "benchmarks/results/odd.json" in page


def test_a_sweep_of_some_constants_renders_as_the_sweep_of_all_does(render_docs, tmp_path):
    figures = {"dice_right": 0.9, "silently_wrong_rolls": 1, "refusal_rate": 0.2}
    result = {"benchmark": "reader constants at half and double", "command":
              "python benchmarks/bench_sensitivity.py --constants reader.X", "commit": "2" * 40,
              "date": "2026-12-01T12:00:00Z", "baseline": {"dr2": figures},
              "constants": [{"constant": "reader.X", "value": 4.0,
                             "x0.5": {"sets": {"dr2": {**figures, "silently_wrong_rolls": 3}}},
                             "x2": {"sets": {"dr2": figures}}}]}
    (tmp_path / "sensitivity-some.json").write_text(json.dumps(result))
    page = render_docs.render_benchmarks(render_docs.load_results(tmp_path))
    assert "| reader.X | 4.0 | dr2 | 90.0 % / 90.0 % / 90.0 % | 3 / 1 / 1 |" in page
