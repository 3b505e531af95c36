"""The sensitivity benchmark's command line: a missing shared set is a usage message."""

from __future__ import annotations

import pytest

from benchmarks import bench_sensitivity


def test_a_missing_shared_set_is_named_in_the_usage_message(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        bench_sensitivity.main(["--datasets", str(tmp_path), "--renders", str(tmp_path / "none"),
                                "--constants", "reader.COCKED_LEAN_DEG"])
    assert stopped.value.code == 2
    assert "the shared set real-d6-overhead is missing" in capsys.readouterr().err
