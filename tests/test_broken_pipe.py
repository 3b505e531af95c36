"""A command whose output is cut short by the reader of a pipe stops quietly, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).resolve().parent / "data" / "demo-game"


def test_reading_into_a_pipe_closed_early_ends_without_a_traceback():
    images = [str(DEMO / f"roll_00{i}.jpg") for i in range(1, 9)] * 4
    command = [sys.executable, "-c", "import sys; from pi_reader.cli import main; sys.exit(main())",
               "read", "--json", *images]
    reader = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.readline()
    reader.stdout.close()  # as `| head -1` does
    errors = reader.stderr.read().decode()
    assert reader.wait(timeout=120) == 141
    assert "Traceback" not in errors, errors
