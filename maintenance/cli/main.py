"""The ``memmaint`` command line (click).

Commands live beside the code they drive and are registered here lazily by name, so
``memmaint --help`` stays fast and an optional dependency is only imported when its command
runs. Every command reports user errors as one line on stderr:

exit 0 success, 1 runtime failure, 2 usage/config/input error (nothing written), 3 another
run holds the lock, 4 the run was skipped (too few new memories), 5 the run finished and is
recorded (its changes applied), but an output file could not be written.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from pathlib import Path
from typing import Any

import click

from memmaint.maintenance.core.errors import LockHeldError, MemmaintError, UserError

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_LOCKED, EXIT_SKIPPED = 0, 1, 2, 3, 4
EXIT_OUTPUT = 5


class OutputError(MemmaintError):
    """The work is done and recorded, but an output file could not be written (exit 5)."""


def check_output(path: str | os.PathLike[str] | None, option: str) -> None:
    """Refuse (``UserError``, exit 2) an output path that cannot be written: its folder is
    missing or not writable, or the path is a folder or an unwritable file. Commands call
    this before their first write."""
    if path is None:
        return
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise UserError(f"{option} {path}: is a directory")
    if not parent.is_dir():
        raise UserError(f"{option} {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"{option} {path}: folder {parent} is not writable")
    if target.exists() and not os.access(target, os.W_OK):
        raise UserError(f"{option} {path}: file is not writable")

# name -> "module:attribute" of a click command; each feature adds its line here.
COMMANDS: dict[str, str] = {
    "undo": "memmaint.maintenance.cli.maint:undo_cmd",
    "history": "memmaint.maintenance.cli.maint:history_cmd",
    "feedback": "memmaint.maintenance.cli.feedback:feedback_cmd",
    "init": "memmaint.maintenance.cli.store:init_cmd",
    "import": "memmaint.maintenance.cli.store:import_cmd",
    "export": "memmaint.maintenance.cli.store:export_cmd",
    "stats": "memmaint.maintenance.cli.store:stats_cmd",
    "embed": "memmaint.maintenance.cli.store:embed_cmd",
    "config": "memmaint.maintenance.cli.store:config_group",
    "demo": "memmaint.maintenance.cli.run:demo_cmd",
    "run": "memmaint.maintenance.cli.run:run_cmd",
    "runs": "memmaint.maintenance.cli.run:runs_cmd",
    "compare": "memmaint.maintenance.cli.run:compare_cmd",
    "tune": "memmaint.optimize.cli:tune_cmd",
    "eval": "memmaint.maintenance.cli.eval:eval_group",
    "datasets": "memmaint.datasets.cli:datasets_group",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported only when used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            module_name, attr = COMMANDS[cmd_name].split(":")
            return getattr(importlib.import_module(module_name), attr)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except LockHeldError as exc:
            click.echo(f"memmaint: {exc}", err=True)
            ctx.exit(EXIT_LOCKED)
        except UserError as exc:
            recorded = getattr(exc, "recorded_run", None)
            if recorded:  # raised after the run wrote to the store: a recorded failure
                click.echo(f"memmaint: error: {exc} (recorded as failed run {recorded})",
                           err=True)
                ctx.exit(EXIT_FAILURE)
            click.echo(f"memmaint: error: {exc}", err=True)
            ctx.exit(EXIT_USAGE)
        except OutputError as exc:
            click.echo(f"memmaint: error: {exc}", err=True)
            ctx.exit(EXIT_OUTPUT)
        except MemmaintError as exc:
            click.echo(f"memmaint: error: {exc}", err=True)
            ctx.exit(EXIT_FAILURE)
        except KeyboardInterrupt:
            click.echo("memmaint: interrupted", err=True)
            ctx.exit(130)


def setup_logging(verbose: int, quiet: bool) -> None:
    """Plain log lines on stderr (the library itself only uses ``logging``)."""
    level = logging.WARNING if quiet else (logging.DEBUG if verbose > 1 else logging.INFO)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s",
                                           "%Y-%m-%dT%H:%M:%S"))
    root = logging.getLogger("memmaint")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memmaint")
@click.option("-v", "--verbose", count=True, help="More log lines (-vv for debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only warnings and errors.")
def main(verbose: int, quiet: bool) -> None:
    """memmaint: batch maintenance for AI-agent memory pools.

    Exit codes: 0 success, 1 runtime failure, 2 usage/config/input error (nothing
    written), 3 another run holds the store's lock, 4 run skipped (too few new memories),
    5 the run is applied and recorded but an output file could not be written.
    """
    setup_logging(verbose, quiet)


if __name__ == "__main__":  # pragma: no cover
    main()
