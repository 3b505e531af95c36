"""``pi-reader config check``: validate the config file and print the effective settings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pi_reader.appliance.seating import FROM_CONFIG, seating_problems, table_mode
from pi_reader.config import DEFAULT_CONFIG_PATH, ConfigError, load_config, to_toml


def add_config_option(parser: argparse.ArgumentParser) -> None:
    """The ``--config PATH`` option, the same for every command that reads the config."""
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"the TOML config file (default: {DEFAULT_CONFIG_PATH} if it exists, else defaults)",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("config", help="check the configuration file")
    actions = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="list every problem in the config file (exit 1), or print 'ok' and the settings",
    )
    add_config_option(check)
    check.set_defaults(func=check_config)


def check_config(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
        game = config.game
        problems = seating_problems(
            game.players, game.bots, table_mode(None, game.bots, game.mode), FROM_CONFIG
        )
        if problems:  # the same check pi-reader run makes of these names when it starts
            raise ConfigError(str(config.source or "built-in defaults"), problems)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 1
    source = config.source or "no config file: built-in defaults"
    print(f"ok ({source})")
    print()
    print(to_toml(config), end="")
    return 0
