"""The data-set benchmarks' command lines: a missing set is a usage message, not a traceback."""

from __future__ import annotations

import pytest

from benchmarks import bench_closeup, bench_robustness, bench_sensitivity

from ..training.test_splits import generated_set


@pytest.mark.parametrize(("main", "argv", "said"), [
    (bench_sensitivity.main, ["--constants", "reader.COCKED_LEAN_DEG"],
     "the shared set real-d6-overhead is missing"),
    (bench_closeup.main, ["--set", "nowhere"], "nowhere"),
    (bench_robustness.main, ["--sets", "nowhere"], "nowhere"),
])
def test_a_missing_set_is_named_in_the_usage_message(main, argv, said, tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--datasets", str(tmp_path), *argv])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_a_generated_set_without_validation_rolls_gives_no_figures(datasets_dir, tmp_path):
    # Scene 10 is a training scene, scene 4 a validation one (training/splits.py).
    for folder, scene in (("train-only", "a00010"), ("with-validation", "a00004")):
        (tmp_path / folder).mkdir()
        generated_set(tmp_path / folder, [scene])
    read = {folder: [name for name, _, _ in
                     bench_sensitivity.validation_sets(datasets_dir, tmp_path / folder)]
            for folder in ("train-only", "with-validation")}
    assert read["train-only"] == list(bench_sensitivity.REAL_SETS)
    assert read["with-validation"] == [*bench_sensitivity.REAL_SETS, "generated:dr-test"]
