"""A benchmark's figures as a result file: what ``benchmarks/render_docs.py`` turns into docs.

Every benchmark takes ``--json [PATH]``: alone it prints its figures as JSON; with a path it
writes them there as a result file (committed as ``benchmarks/results/<name>.json``) holding,
beside the figures, the exact command, the commit, whether the tree had uncommitted changes and
the date, so each figure in the docs says where it came from. The shape, which
``render_docs.py`` documents in full:

    {"benchmark": "rules", "title": "...", "command": "python benchmarks/...",
     "commit": "<40 hex>", "uncommitted_changes": false, "date": "2026-12-01T12:00:00Z",
     "notes": "...", "figures": {...}, "tables": [{"caption", "columns", "rows"}],
     "headline": [{"what", "measured", "target"}]}
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return ""
    return done.stdout.strip()


def provenance() -> dict[str, Any]:
    """The command as typed (relative to the checkout), the commit, dirty or not, the date."""
    script = Path(sys.argv[0]).resolve()
    try:
        shown = script.relative_to(REPO)
    except ValueError:
        shown = script
    changed = [
        line for line in _git("status", "--porcelain", "--untracked-files=no").splitlines()
        if not line[3:].startswith("benchmarks/results/")
    ]
    return {
        "command": shlex.join(["python", str(shown), *sys.argv[1:]]),
        "commit": _git("rev-parse", "HEAD"),
        "uncommitted_changes": bool(changed),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def add_json_option(parser: Any) -> None:
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="print the figures as JSON, or with PATH write them there as a result file "
        "(benchmarks/results/<name>.json is what the docs are rendered from)",
    )


def emit(
    target: str | None,
    name: str,
    title: str,
    figures: dict[str, Any],
    *,
    tables: Sequence[dict[str, Any]] = (),
    headline: Sequence[dict[str, str]] = (),
    notes: str = "",
) -> bool:
    """Print or write the result for ``--json``; False when no JSON was asked for."""
    if target is None:
        return False
    if target == "-":
        print(json.dumps(figures, indent=2))
        return True
    result = {
        "benchmark": name,
        "title": title,
        **provenance(),
        "notes": notes,
        "figures": figures,
        "tables": list(tables),
        "headline": list(headline),
    }
    Path(target).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"result written to {target}", file=sys.stderr)
    return True
