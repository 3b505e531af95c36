"""The data-set benchmarks' command lines: a missing set is a usage message, not a traceback."""

from __future__ import annotations

import pytest

from benchmarks import bench_closeup, bench_robustness, bench_sensitivity


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
