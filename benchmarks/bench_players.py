"""How well and how fast the computer players play: solo means, a table tournament, latency.

Run: ``python benchmarks/bench_players.py [--solo N] [--solo-strategies A,B] [--table N]
[--table-players A,B,C,D] [--decisions N] [--seed S] [--jobs J] [--json [PATH]]``.

* solo: N seeded solo games per strategy; mean score with its 95% interval, beside the exact
  optimum of solo play (about 116 expected points, from a published exact solver).
* table: N seeded games at one table (default: look-ahead against three heuristics), the first
  player rotating; per seat the mean score and the win rate with 95% intervals (ties shared).
* decisions: CPU time per decision of the look-ahead (white action with the colour plan for the
  active player, white only for the others, colour) over the positions of seeded 4-player games,
  on one core. Games are independent, so --jobs spreads them over processes; the results are the
  same for any number of jobs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmarks/result_file.py
from benchmarks.result_file import add_json_option, emit
from pi_reader.players import strategy
from pi_reader.players.dice import SeededDice
from pi_reader.players.evaluation import ValueModel
from pi_reader.players.match import TableResult, solo_game, summarize, table_game
from pi_reader.players.stats import mean_interval
from pi_reader.rules import Action, Game

SOLO_OPTIMUM = 116  # expected score of optimal solo play, published exact solver (rounded)
SOLO_TARGET = 100  # the look-ahead's solo mean asked for
DECISION_BUDGET_MS = 50  # per decision on this machine (200 ms on a Raspberry Pi 4)
T = TypeVar("T")  # what one game of a series gives


def _solo(name: str, seed: int, number: int) -> int:
    return solo_game(strategy(name), seed, number)


def _table(names: tuple[str, ...], seed: int, number: int) -> TableResult:
    return table_game([strategy(n) for n in names], seed, number)


def _map(function: Callable[[int], T], games: int, jobs: int) -> list[T]:
    if jobs <= 1:
        return [function(n) for n in range(games)]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(function, range(games), chunksize=max(1, games // (jobs * 8))))


def solo(names: list[str], games: int, seed: int, jobs: int) -> dict[str, dict[str, Any]]:
    report = {}
    for name in names:
        start = time.perf_counter()
        scores = _map(partial(_solo, name, seed), games, jobs)
        mean = mean_interval([float(s) for s in scores])
        report[name] = {
            "games": games,
            "mean": round(mean.estimate, 2),
            "ci95": [round(mean.low, 2), round(mean.high, 2)],
            "share_of_optimum": round(mean.estimate / SOLO_OPTIMUM, 3),
            "seconds": round(time.perf_counter() - start, 1),
        }
    return report


def table(names: list[str], games: int, seed: int, jobs: int) -> list[dict[str, Any]]:
    results = _map(partial(_table, tuple(names), seed), games, jobs)
    seats = summarize([strategy(n) for n in names], results)
    return [
        {
            "seat": r.seat,
            "strategy": r.strategy,
            "mean": round(r.score.estimate, 2),
            "mean_ci95": [round(r.score.low, 2), round(r.score.high, 2)],
            "win_rate": round(r.win_rate.estimate, 4),
            "win_ci95": [round(r.win_rate.low, 4), round(r.win_rate.high, 4)],
            "excludes_fair_share": r.win_rate.excludes(1 / len(names)),
        }
        for r in seats
    ]


def decisions(count: int, seed: int) -> dict[str, float]:
    """CPU milliseconds per look-ahead decision over the positions of seeded 4-player games."""
    player = strategy("lookahead")
    _ = ValueModel(4).rows  # the row tables are built once per game size; not part of a decision
    times: list[float] = []
    game_number = 0
    while len(times) < count:
        names = ["P1", "P2", "P3", "P4"]
        game = Game(names)
        dice = SeededDice(seed * 7919 + game_number)
        game_number += 1
        while not game.over and len(times) < count:
            game.roll(dice.roll(game.dice_in_play))
            marks = []
            for name in names:
                start = time.process_time()
                marks.append(player.choose(game, name, Action.WHITE))
                times.append(time.process_time() - start)
            for mark in marks:
                if mark is not None:
                    game.play(mark)
            start = time.process_time()
            colour = player.choose(game, game.active, Action.COLOUR)
            times.append(time.process_time() - start)
            if colour is not None:
                game.play(colour)
            if not game.over:
                game.end_turn()
    ms = sorted(t * 1000 for t in times)
    return {
        "decisions": len(ms),
        "mean_ms": round(statistics.fmean(ms), 2),
        "p50_ms": round(ms[len(ms) // 2], 2),
        "p95_ms": round(ms[int(len(ms) * 0.95)], 2),
        "max_ms": round(ms[-1], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solo", type=int, default=10_000, help="solo games per strategy")
    parser.add_argument("--solo-strategies", default="lookahead,heuristic,cautious")
    parser.add_argument("--table", type=int, default=2_000, help="games at the table")
    parser.add_argument("--table-players", default="lookahead,heuristic,heuristic,heuristic")
    parser.add_argument("--decisions", type=int, default=2_000, help="timed decisions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="processes for the game series")
    add_json_option(parser)
    args = parser.parse_args()
    report: dict[str, Any] = {"seed": args.seed}
    if args.solo:
        report["solo"] = solo(args.solo_strategies.split(","), args.solo, args.seed, args.jobs)
    if args.table:
        players = args.table_players.split(",")
        report["table"] = table(players, args.table, args.seed, args.jobs)
    if args.decisions:
        report["decision_time"] = decisions(args.decisions, args.seed)
    if emit(args.json, "players", "Computer players: solo, at a table, decision time", report,
            tables=_tables(report), headline=_headline(report),
            notes="Seeded dice: the same command gives the same games. Decision times are CPU "
            "time on one core."):
        return
    for name, row in report.get("solo", {}).items():
        print(
            f"solo {name:<10} {row['games']} games: mean {row['mean']:.1f} "
            f"[{row['ci95'][0]:.1f}, {row['ci95'][1]:.1f}] = {row['share_of_optimum']:.0%} of "
            f"the exact optimum {SOLO_OPTIMUM} ({row['seconds']} s)"
        )
    for row in report.get("table", []):
        print(
            f"table seat {row['seat']} {row['strategy']:<10} mean {row['mean']:.1f} "
            f"win rate {row['win_rate']:.1%} [{row['win_ci95'][0]:.1%}, {row['win_ci95'][1]:.1%}]"
        )
    if "decision_time" in report:
        d = report["decision_time"]
        print(
            f"look-ahead decision CPU time, {d['decisions']} decisions: mean {d['mean_ms']} ms, "
            f"median {d['p50_ms']} ms, 95th percentile {d['p95_ms']} ms, max {d['max_ms']} ms"
        )


def _tables(report: dict[str, Any]) -> list[dict[str, Any]]:
    tables = []
    if "solo" in report:
        tables.append({
            "caption": f"solo games, seed {report['seed']}; the exact optimum is about "
            f"{SOLO_OPTIMUM}",
            "columns": ["strategy", "games", "mean score [95% interval]", "share of optimum"],
            "rows": [[name, f"{r['games']:,}", f"{r['mean']:.1f} [{r['ci95'][0]:.1f}, "
                      f"{r['ci95'][1]:.1f}]", f"{r['share_of_optimum']:.0%}"]
                     for name, r in report["solo"].items()],
        })
    if "table" in report:
        seats = report["table"]
        tables.append({
            "caption": f"one table, seed {report['seed']}, the first player rotating; ties "
            "shared",
            "columns": ["seat", "strategy", "mean score [95%]", "win rate [95%]"],
            "rows": [[str(r["seat"]), r["strategy"],
                      f"{r['mean']:.1f} [{r['mean_ci95'][0]:.1f}, {r['mean_ci95'][1]:.1f}]",
                      f"{r['win_rate']:.1%} [{r['win_ci95'][0]:.1%}, {r['win_ci95'][1]:.1%}]"]
                     for r in seats],
        })
    if "decision_time" in report:
        d = report["decision_time"]
        tables.append({
            "caption": f"look-ahead decision CPU time, {d['decisions']:,} decisions of 4-player "
            "games",
            "columns": ["mean", "median", "95th percentile", "max"],
            "rows": [[f"{d['mean_ms']} ms", f"{d['p50_ms']} ms", f"{d['p95_ms']} ms",
                      f"{d['max_ms']} ms"]],
        })
    return tables


def _headline(report: dict[str, Any]) -> list[dict[str, str]]:
    rows = []
    lookahead = report.get("solo", {}).get("lookahead")
    if lookahead:
        rows.append({
            "what": f"look-ahead player: solo mean over {lookahead['games']:,} games",
            "measured": f"{lookahead['mean']:.1f} [{lookahead['ci95'][0]:.1f}, "
            f"{lookahead['ci95'][1]:.1f}] (optimum about {SOLO_OPTIMUM})",
            "target": f">= {SOLO_TARGET}",
        })
    seats = report.get("table", [])
    if seats:
        first = seats[0]
        others = ", ".join(r["strategy"] for r in seats[1:])
        rows.append({
            "what": f"{first['strategy']} against {others}: win rate, 95% interval",
            "measured": f"{first['win_rate']:.1%} [{first['win_ci95'][0]:.1%}, "
            f"{first['win_ci95'][1]:.1%}]",
            "target": f"interval above {1 / len(seats):.0%}",
        })
    if "decision_time" in report:
        d = report["decision_time"]
        rows.append({
            "what": "look-ahead decision, CPU time on one core: mean / 95th percentile",
            "measured": f"{d['mean_ms']} / {d['p95_ms']} ms",
            "target": f"< {DECISION_BUDGET_MS} ms",
        })
    return rows


if __name__ == "__main__":
    main()
