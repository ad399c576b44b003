"""The ``memmaint`` command line (click).

Commands live beside the code they drive and are registered here lazily by name, so
``memmaint --help`` stays fast and an optional dependency is only imported when its command
runs. Every command reports user errors as one line on stderr:

exit 0 success, 1 runtime failure, 2 usage/config/input error (nothing written), 3 another
run holds the lock, 4 the run was skipped (too few new memories), 5 the run finished and is
recorded (its changes applied), but an output file could not be written, 6 a reviewed plan
whose every approved action is stale (nothing written, no run recorded).
"""

from __future__ import annotations

import importlib
import logging
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import click

from memmaint.maintenance.core.errors import (
    LockHeldError,
    MemmaintError,
    StalePlanError,
    UserError,
)

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_LOCKED, EXIT_SKIPPED = 0, 1, 2, 3, 4
EXIT_OUTPUT = 5
EXIT_STALE = 6


class OutputError(MemmaintError):
    """The work is done and recorded, but an output file could not be written (exit 5)."""


def open_existing(db: str, dry_run: bool = False) -> Any:
    """The store at ``db`` (a path or URL), which must exist (a one-line error otherwise);
    ``dry_run``: opened for a dry run, which writes nothing (``open_store``)."""
    from memmaint.maintenance.store.registry import open_store

    return open_store(db, create=False, dry_run=dry_run)


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
    "search": "memmaint.maintenance.cli.search:search_cmd",
    "mcp": "memmaint.maintenance.cli.search:mcp_cmd",
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
    "plan": "memmaint.maintenance.cli.review:plan_cmd",
    "review": "memmaint.maintenance.cli.review:review_cmd",
    "apply": "memmaint.maintenance.cli.review:apply_cmd",
    "queue": "memmaint.maintenance.cli.review:queue_cmd",
}


_LOG_FLAGS = ("--quiet", "--verbose")
_SHORT_LOG_FLAGS = re.compile(r"-[qv]+")


class LazyGroup(click.Group):
    """A click group whose subcommands are imported only when used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            module_name, attr = COMMANDS[cmd_name].split(":")
            return getattr(importlib.import_module(module_name), attr)
        return super().get_command(ctx, cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Accept ``-q``/``-v`` anywhere (``memmaint run -q ...``): they are moved before the
        subcommand, where the group reads them (no subcommand has options of these names)."""
        front: list[str] = []
        rest: list[str] = []
        for i, arg in enumerate(args):
            if arg == "--":
                rest.extend(args[i:])
                break
            (front if arg in _LOG_FLAGS or _SHORT_LOG_FLAGS.fullmatch(arg) else rest).append(arg)
        return super().parse_args(ctx, front + rest)

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:  # the group's own options, an unknown command
            if _shows_help(exc):
                raise
            _usage_line(exc)
            raise click.exceptions.Exit(EXIT_USAGE) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:  # one line, not click's usage block
            if _shows_help(exc):
                raise
            _usage_line(exc)
            ctx.exit(EXIT_USAGE)
        except LockHeldError as exc:
            _error(exc, prefix="memmaint: ")
            ctx.exit(EXIT_LOCKED)
        except StalePlanError as exc:
            _error(exc)
            ctx.exit(EXIT_STALE)
        except UserError as exc:
            recorded = getattr(exc, "recorded_run", None)
            if recorded:  # raised after the run wrote to the store: a recorded failure
                _error(exc, f" (recorded as failed run {recorded})")
                ctx.exit(EXIT_FAILURE)
            _error(exc)
            ctx.exit(EXIT_USAGE)
        except OutputError as exc:
            _error(exc)
            ctx.exit(EXIT_OUTPUT)
        except MemmaintError as exc:
            _error(exc)
            ctx.exit(EXIT_FAILURE)
        except KeyboardInterrupt:
            click.echo("memmaint: interrupted", err=True)
            ctx.exit(130)


def _error(exc: BaseException | str, suffix: str = "", prefix: str = "memmaint: error: ") -> None:
    """One line on stderr; the message's control characters shown as escapes (an id or a
    text in it cannot steer the terminal), a password in a URL masked."""
    from memmaint.maintenance.core.text import for_terminal
    from memmaint.maintenance.core.urls import redact_url

    click.echo(prefix + for_terminal(redact_url(f"{exc}{suffix}")), err=True)


def _shows_help(exc: click.UsageError) -> bool:
    """``memmaint GROUP`` with no subcommand prints the help (click's NoArgsIsHelpError)."""
    return type(exc).__name__ == "NoArgsIsHelpError"


def _usage_line(exc: click.UsageError) -> None:
    """A usage error as one line naming the command and where to find its options."""
    ctx = exc.ctx
    where = ctx.command_path if ctx is not None else "memmaint"
    _error(exc.format_message(), f" (see: {where} -h)")


class Progress:
    """``progress(stage, done, total)`` for stages that can take a while.

    On a terminal: a tqdm bar per stage (name, done/total, elapsed), redrawn twice a second
    so that a stage reporting only its start and its end still shows it is alive. Without a
    terminal (cron): no bar, and one log line per stage when it ends, with its time
    (``embed: 500/500 in 3.2 s``). ``note(stage, text)`` adds a note (``best 0.81``).
    """

    def __init__(self, tty: bool | None = None, logger: logging.Logger | None = None) -> None:
        self.tty = sys.stderr.isatty() if tty is None else tty
        self.log = logger or logging.getLogger("memmaint.cli")
        self.bars: dict[str, Any] = {}
        self.started: dict[str, float] = {}
        self.last: dict[str, tuple[int, int]] = {}
        self.notes: dict[str, str] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if total < 0:
            return
        with self._lock:
            if stage not in self.started:
                self.started[stage] = time.perf_counter()
                if self.tty:
                    self.bars[stage] = self._bar(stage, total)
            self.last[stage] = (done, total)
            bar = self.bars.get(stage)
            if bar is not None:
                bar.total = total
                bar.n = min(done, total)
                bar.refresh()
            if done >= total:
                self._end(stage)

    def note(self, stage: str, text: str) -> None:
        with self._lock:
            self.notes[stage] = text
            bar = self.bars.get(stage)
            if bar is not None:
                bar.set_postfix_str(text)

    def _bar(self, stage: str, total: int) -> Any:
        from tqdm import tqdm

        if self._thread is None:
            self._thread = threading.Thread(target=self._redraw, daemon=True)
            self._thread.start()
        return tqdm(total=total, desc=stage, file=sys.stderr, leave=True, dynamic_ncols=True)

    def _redraw(self) -> None:
        while not self._stop.wait(0.5):
            with self._lock:
                for bar in self.bars.values():
                    bar.refresh()

    def _end(self, stage: str, stopped: bool = False) -> None:
        seconds = time.perf_counter() - self.started.pop(stage)
        done, total = self.last.pop(stage)
        note = self.notes.pop(stage, "")
        bar = self.bars.pop(stage, None)
        if bar is not None:
            bar.close()
        else:
            self.log.info("%s: %d/%d%s in %.1f s%s", stage, done, total,
                          " (stopped)" if stopped else "", seconds, f"; {note}" if note else "")

    def close(self) -> None:
        """End the bars (a stage that did not finish is logged as stopped)."""
        with self._lock:
            for stage in list(self.started):
                self._end(stage, stopped=True)
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


class _LogHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Log lines on stderr; on a terminal written around the progress bars."""

    def emit(self, record: logging.LogRecord) -> None:
        if not self.stream.isatty():
            return super().emit(record)
        try:
            from tqdm import tqdm

            tqdm.write(self.format(record), file=self.stream)
        except Exception:  # noqa: BLE001 - logging must not raise
            self.handleError(record)


def setup_logging(verbose: int, quiet: bool) -> None:
    """Plain log lines on stderr (the library itself only uses ``logging``)."""
    level = logging.WARNING if quiet else (logging.DEBUG if verbose > 1 else logging.INFO)
    handler = _LogHandler(sys.stderr)
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
    5 the run is applied and recorded but an output file could not be written, 6 every
    approved action of a reviewed plan is stale (nothing written).
    """
    setup_logging(verbose, quiet)


if __name__ == "__main__":  # pragma: no cover
    main()
