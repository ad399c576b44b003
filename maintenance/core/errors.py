"""Exceptions shared across memmaint.

A :class:`UserError` is a mistake the user can fix (bad config, malformed input, unknown ids);
the CLI turns it into one line on stderr and exit code 2, never a traceback. Anything else is a
runtime failure (exit code 1).
"""

from __future__ import annotations


class MemmaintError(Exception):
    """Base class for every error memmaint raises on purpose."""


class UserError(MemmaintError):
    """A mistake in the user's input, config or command line (CLI exit code 2)."""

    exit_code = 2


class ConfigError(UserError):
    """A configuration file or value is invalid; the message lists every problem at once."""

    def __init__(self, problems: list[str] | str):
        if isinstance(problems, str):
            problems = [problems]
        self.problems = list(problems)
        super().__init__("invalid config: " + "; ".join(self.problems))


class InputError(UserError):
    """Malformed input data (a JSONL/CSV line, a NaN vector, an empty pool...)."""


class UnknownIdError(UserError):
    """One or more memory ids (or run ids) do not exist in the namespace."""


class DuplicateIdError(UserError):
    """A memory id already exists in the namespace."""


class VersionConflict(MemmaintError):
    """A memory changed since it was read (optimistic concurrency)."""

    def __init__(self, memory_id: str, expected: int, actual: int | None):
        self.memory_id = memory_id
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"memory {memory_id!r} is at version {actual}, expected {expected}"
        )


class StoreError(MemmaintError):
    """The store failed at run time (the disk is full, an I/O error...); the message names
    the store and the cause, and the write that failed was rolled back (CLI exit code 1)."""


class LockHeldError(MemmaintError):
    """Another run holds the store's lock (CLI exit code 3)."""

    exit_code = 3


class StalePlanError(MemmaintError):
    """Every approved action of a reviewed plan changed in the store since planning: nothing
    was written and no run recorded (CLI exit code 6)."""

    exit_code = 6


class MissingExtraError(UserError):
    """An optional dependency is not installed; the message names the pip extra."""

    def __init__(self, module: str, extra: str):
        super().__init__(
            f"{module} is not installed: pip install 'memmaint[{extra}]'"
        )


def require(module: str, extra: str):  # type: ignore[no-untyped-def]
    """Import an optional dependency lazily, naming the pip extra when it is missing."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingExtraError(module, extra) from exc
