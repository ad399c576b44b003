"""JSONL and CSV import, JSONL export.

Import is all-or-nothing: a whole file is decoded, parsed and validated before anything is
written, and every problem is reported as ``FILE:LINE: problem`` in one
:class:`~memmaint.maintenance.core.errors.InputError` (the first problem, plus how many more there
are). :func:`import_file` then checks the ids against the store and inserts everything in one
transaction.

JSONL: one JSON object per line with :class:`Memory` fields (only ``text`` is required; blank
lines are skipped; unknown fields are an error). CSV: a header row; ``text_col`` is required,
``id_col``, ``importance_col``, ``kind_col`` and ``created_col`` are optional, and every other
column is kept as a string in ``metadata``, except ``importance`` (a number; read by name
unless ``importance_col`` names another column) and ``successes``, ``failures`` and ``uses``
(outcome counters, whole numbers; ``uses`` counts every use, judged or not, and is stored as
``retrievals``), which are read by name. Files must be UTF-8 (a leading BOM is allowed).
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from memmaint.maintenance.core.errors import InputError, UserError
from memmaint.maintenance.core.records import Memory, parse_time
from memmaint.maintenance.core.text import MAX_INT, for_terminal, has_surrogate, json_problem

FORMATS = ("jsonl", "csv")
#: CSV columns read as outcome counters when the header has them (``uses``: all uses,
#: with or without a verdict; JSONL takes the same names).
OUTCOME_COLUMNS = ("successes", "failures", "uses")
_EXTENSIONS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv"}
_MAX_PROBLEMS = 1000


@dataclass(frozen=True)
class Entry:
    """A parsed record and the line it started on."""

    line: int
    memory: Memory


@dataclass(frozen=True)
class ImportResult:
    """What :func:`import_file` wrote."""

    count: int
    namespaces: dict[str, int]


class _Problems:
    """Collects ``FILE:LINE: problem`` messages; raises one InputError at the end."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.items: list[str] = []

    def add(self, line: int, problem: str) -> None:
        if len(self.items) < _MAX_PROBLEMS:  # escaped: the message reaches a terminal
            self.items.append(for_terminal(f"{self.name}:{line}: {problem}"))

    def raise_if_any(self) -> None:
        if self.items:
            extra = len(self.items) - 1
            more = f" (and {extra} more problem{'s' * (extra > 1)})" if extra else ""
            raise InputError(self.items[0] + more)


def _unstorable(obj: dict[str, Any]) -> str | None:
    """What in a decoded JSONL record a store could not keep (see ``json_problem``)."""
    for key, value in obj.items():
        if has_surrogate(key):
            return "a field name holds a lone surrogate (not valid Unicode text)"
        if isinstance(value, float):  # a non-finite number is the record's own check
            continue
        problem = json_problem(value, f"field {key!r}",  # JSON text keeps big integers
                               max_int=None if isinstance(value, (dict, list)) else MAX_INT)
        if problem:
            return problem
    return None


def display_name(path: str | Path) -> str:
    """How a file is named in messages (``<stdin>`` for ``-``)."""
    return "<stdin>" if str(path) == "-" else str(path)


def detect_format(path: str | Path) -> str:
    """``jsonl`` or ``csv`` from the file extension (stdin defaults to JSONL)."""
    if str(path) == "-":
        return "jsonl"
    fmt = _EXTENSIONS.get(Path(path).suffix.lower())
    if fmt is None:
        raise UserError(f"cannot tell the format of {path} from its extension: "
                        f"pass --format {'|'.join(FORMATS)}")
    return fmt


def _read_bytes(path: str | Path) -> bytes:
    if str(path) == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _decoded_lines(data: bytes, problems: _Problems) -> Iterator[tuple[int, str | None]]:
    """(line number, text) for each physical line; text is None if it is not UTF-8.

    Splits on ``\\n`` bytes only (never on U+2028 and friends, which JSON text may hold).
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    for number, raw in enumerate(pieces, start=1):
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.add(number, f"invalid UTF-8 byte 0x{raw[exc.start]:02x} at byte "
                                 f"{exc.start + 1} of the line")
            yield number, None


def _check_duplicates(entries: Sequence[Entry], problems: _Problems) -> None:
    first: dict[tuple[str, str], int] = {}
    for e in entries:
        key = (e.memory.namespace, e.memory.id)
        if key in first:
            problems.add(e.line, f"duplicate id {e.memory.id!r} (also on line {first[key]})")
        else:
            first[key] = e.line


def _memory_from_fields(data: dict[str, Any]) -> Memory:
    if "uses" in data:  # the outcome columns' name for retrievals
        if "retrievals" in data:
            raise ValueError("give 'uses' or 'retrievals', not both")
        data = dict(data)
        data["retrievals"] = data.pop("uses")
        uses = data["retrievals"]
        known = sum(v for v in (data.get("successes", 0), data.get("failures", 0))
                    if isinstance(v, int) and not isinstance(v, bool))
        if isinstance(uses, int) and not isinstance(uses, bool) and uses < known:
            raise ValueError(f"uses {uses} is less than successes + failures ({known})")
    replaced_by = data.get("replaced_by")
    if replaced_by is not None and not isinstance(replaced_by, str):
        raise ValueError("replaced_by must be a string or null")
    if data.get("kind") == "":
        raise ValueError("empty kind")
    try:
        return Memory.from_dict(data)
    except (TypeError, OverflowError) as exc:  # a type from_dict does not check; a date
        raise ValueError(str(exc)) from None   # that leaves the calendar once in UTC


def parse_jsonl(data: bytes, name: str, namespace: str | None = None) -> list[Entry]:
    """Parse JSONL bytes; ``InputError`` (naming ``name``, line and problem) if anything is
    wrong. ``namespace`` puts every record in that namespace (overriding the lines')."""
    problems = _Problems(name)
    entries: list[Entry] = []
    for number, text in _decoded_lines(data, problems):
        if text is None or not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            problems.add(number, f"malformed JSON ({exc.msg} at column {exc.colno})")
            continue
        except RecursionError:
            problems.add(number, "JSON nested too deeply")
            continue
        except ValueError as exc:  # e.g. an integer with more digits than Python converts
            problems.add(number, f"unreadable JSON ({exc})")
            continue
        if not isinstance(obj, dict):
            problems.add(number, f"expected a JSON object, got {type(obj).__name__}")
            continue
        unstorable = _unstorable(obj)
        if unstorable:
            problems.add(number, unstorable)
            continue
        if namespace is not None:
            obj["namespace"] = namespace
        try:
            entries.append(Entry(number, _memory_from_fields(obj)))
        except ValueError as exc:
            problems.add(number, str(exc))
    _check_duplicates(entries, problems)
    problems.raise_if_any()
    return entries


def parse_csv(data: bytes, name: str, text_col: str = "text", *, id_col: str | None = None,
              importance_col: str | None = None, kind_col: str | None = None,
              created_col: str | None = None, namespace: str | None = None) -> list[Entry]:
    """Parse CSV bytes with a header row (see the module docstring for the columns)."""
    problems = _Problems(name)
    lines = [t for _, t in _decoded_lines(data, problems)]
    problems.raise_if_any()  # csv cannot resync after an undecodable line
    texts = [f"{t}\n" for t in lines]
    reader = csv.reader(texts, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        return []
    except csv.Error as exc:
        raise InputError(f"{name}:1: malformed CSV header ({exc})") from None
    seen_cols = set()
    for col in header:
        if col in seen_cols:
            problems.add(1, f"column {col!r} appears twice in the header")
        seen_cols.add(col)
    mapped = {"text": text_col, "id": id_col, "importance": importance_col, "kind": kind_col,
              "created_at": created_col}
    if importance_col is None and "importance" in seen_cols \
            and "importance" not in mapped.values():  # by name, as the outcome columns
        mapped["importance"] = "importance"
    for outcome_col in OUTCOME_COLUMNS:  # taken by name when the header has them
        if outcome_col in seen_cols and outcome_col not in mapped.values():
            mapped[outcome_col] = outcome_col
    for what, wanted in mapped.items():
        if wanted is not None and wanted not in seen_cols:
            problems.add(1, f"no column {wanted!r} for {what} (columns: {', '.join(header)})")
    problems.raise_if_any()
    index = {col: i for i, col in enumerate(header)}
    used = {c for c in mapped.values() if c is not None}
    entries: list[Entry] = []
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.add(start, f"malformed CSV ({exc})")
            break
        number, start = start, reader.line_num + 1
        if not row:
            continue
        if len(row) != len(header):
            problems.add(number, f"expected {len(header)} fields, got {len(row)}")
            continue
        try:
            entries.append(Entry(number, _csv_memory(row, index, mapped, used, namespace)))
        except (ValueError, OverflowError) as exc:
            problems.add(number, str(exc))
    _check_duplicates(entries, problems)
    problems.raise_if_any()
    return entries


def _csv_memory(row: list[str], index: dict[str, int], mapped: dict[str, str | None],
                used: set[str], namespace: str | None) -> Memory:
    fields: dict[str, Any] = {"text": row[index[mapped["text"]]]}  # type: ignore[index]
    for what in ("id", "importance", "kind", "created_at", *OUTCOME_COLUMNS):
        col = mapped.get(what)
        if col is None:
            continue
        cell = row[index[col]].strip()
        if not cell:
            continue
        if what in OUTCOME_COLUMNS:
            if not (cell.isascii() and cell.isdigit()) or int(cell) > MAX_INT:
                raise ValueError(f"{what} {cell!r} is not a whole number >= 0 "
                                 "(at most 64 bits)")
            fields[what] = int(cell)
        elif what == "importance":
            try:
                fields[what] = float(cell)
            except ValueError:
                raise ValueError(f"importance {cell!r} is not a number") from None
        elif what == "created_at":
            fields[what] = parse_time(cell)
        else:
            fields[what] = cell
    fields["metadata"] = {col: row[i] for col, i in index.items() if col not in used}
    if namespace is not None:
        fields["namespace"] = namespace
    return _memory_from_fields(fields)


def read_entries(path: str | Path, fmt: str | None = None, namespace: str | None = None,
                 **csv_options: Any) -> list[Entry]:
    """Read and validate a whole JSONL or CSV file (``-`` is stdin) into entries."""
    if str(path) != "-" and Path(path).is_dir():
        raise InputError(f"cannot read {path}: it is a directory, not a file")
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise UserError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    data = _read_bytes(path)
    name = display_name(path)
    if fmt == "jsonl":
        given = {k: v for k, v in csv_options.items()
                 if v is not None and not (k == "text_col" and v == "text")}
        if given:
            raise UserError(f"{', '.join(sorted(given))} only apply to CSV input")
        return parse_jsonl(data, name, namespace)
    return parse_csv(data, name, namespace=namespace, **csv_options)


def read_jsonl(path: str | Path, namespace: str | None = None) -> list[Memory]:
    """All memories in a JSONL file; ``InputError`` names file, line and problem."""
    return [e.memory for e in read_entries(path, "jsonl", namespace)]


def read_csv(path: str | Path, text_col: str = "text", *, id_col: str | None = None,
             importance_col: str | None = None, kind_col: str | None = None,
             created_col: str | None = None, namespace: str | None = None) -> list[Memory]:
    """All memories in a CSV file with a header row; ``InputError`` names file, line and
    problem. Unmapped columns are kept (as strings) in ``metadata``."""
    return [e.memory for e in read_entries(
        path, "csv", namespace, text_col=text_col, id_col=id_col,
        importance_col=importance_col, kind_col=kind_col, created_col=created_col)]


def check_against_store(entries: Sequence[Entry], store: Any, name: str) -> None:
    """``InputError`` naming the line of every id that already exists in its namespace."""
    problems = _Problems(name)
    by_ns: dict[str, list[Entry]] = {}
    for e in entries:
        by_ns.setdefault(e.memory.namespace, []).append(e)
    clashes = []
    for ns, group in by_ns.items():
        existing = store.existing_ids(ns, [e.memory.id for e in group])
        clashes += [e for e in group if e.memory.id in existing]
    for e in sorted(clashes, key=lambda e: e.line):
        problems.add(e.line, f"id {e.memory.id!r} already exists in namespace "
                             f"{e.memory.namespace!r}")
    problems.raise_if_any()


def import_file(store: Any, path: str | Path, *, fmt: str | None = None,
                namespace: str | None = None, **csv_options: Any) -> ImportResult:
    """Parse, validate and insert a whole file in one transaction (all or nothing)."""
    entries = read_entries(path, fmt, namespace, **csv_options)
    check_against_store(entries, store, display_name(path))
    memories = [e.memory for e in entries]
    store.add_memories(memories)
    counts: dict[str, int] = {}
    for m in memories:
        counts[m.namespace] = counts.get(m.namespace, 0) + 1
    return ImportResult(len(memories), dict(sorted(counts.items())))


def memory_line(memory: Memory) -> str:
    """One JSONL line (no newline) for a memory: every field, keys sorted."""
    data = memory.to_dict()
    if isinstance(data.get("importance"), float) and not math.isfinite(data["importance"]):
        raise InputError(f"memory {memory.id!r} has a non-finite importance")
    return json.dumps(data, ensure_ascii=False, sort_keys=True, allow_nan=False)


def write_jsonl(memories: Iterable[Memory], fh: IO[str]) -> int:
    """Write memories as JSONL (UTF-8 text, ``\\n`` line ends); returns how many."""
    n = 0
    for m in memories:
        fh.write(memory_line(m))
        fh.write("\n")
        n += 1
    return n


def write_atomically(path: Path, write: Callable[[IO[str]], Any], *,
                     make_parents: bool = False) -> Any:
    """Write a UTF-8 text file through a temporary file in the same folder, then rename it
    over ``path``: readers see the old file or the whole new one, never a part. Returns what
    ``write(fh)`` returns. A missing folder is a ``UserError`` unless ``make_parents``."""
    folder = path.resolve().parent
    if make_parents:
        folder.mkdir(parents=True, exist_ok=True)
    elif not folder.is_dir():
        raise UserError(f"cannot write {path}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            result = write(fh)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return result


__all__ = [
    "FORMATS", "Entry", "ImportResult", "check_against_store", "detect_format", "import_file",
    "parse_csv", "parse_jsonl", "read_csv", "read_entries", "read_jsonl", "write_atomically",
    "write_jsonl",
]
