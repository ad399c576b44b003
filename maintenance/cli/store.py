"""CLI commands for the store: ``init``, ``import``, ``export``, ``stats``, ``embed``,
``config show``.

Thin shell over :mod:`~memmaint.maintenance.core.io`, the store and the embedders: parse options,
call the library, print. User errors are raised as :class:`UserError` subclasses and printed
as one line by the ``LazyGroup`` in :mod:`memmaint.maintenance.cli.main`.
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from memmaint.maintenance.core.config import Config, field_choices, load_config, with_overrides
from memmaint.maintenance.core.errors import MemmaintError, UserError
from memmaint.maintenance.core.records import BUILTIN_KINDS, Status
from memmaint.maintenance.core.text import for_terminal, json_for_terminal
from memmaint.maintenance.core.urls import redact_url
from memmaint.maintenance.store.base import MemoryStore
from memmaint.maintenance.store.registry import open_store

log = logging.getLogger("memmaint.cli")

_DB_HELP = "Store: a SQLite file path or a postgresql:// URL."
_CONFIG_OPTION = click.option(
    "--config", "config_path", type=click.Path(), envvar="MEMMAINT_CONFIG",
    help="TOML config file (default: built-in defaults; env MEMMAINT_CONFIG).")


@contextmanager
def _store(db: str, create: bool = False) -> Iterator[MemoryStore]:
    store = open_store(db, create=create)
    try:
        yield store
    finally:
        store.close()


def _check_namespace(namespace: str | None) -> None:
    if namespace is not None and not namespace.strip():
        raise UserError("--namespace must not be empty")


# -- init / import / export ------------------------------------------------------------------

@click.command("init")
@click.option("--db", required=True, help=_DB_HELP)
def init_cmd(db: str) -> None:
    """Create an empty memory store (does nothing to an existing one)."""
    path = db.removeprefix("sqlite:///")
    is_file = "://" not in path and path != ":memory:"
    existed = is_file and Path(path).exists()
    with _store(db, create=True) as store:
        n = store.count_memories()
        url = redact_url(store.url)
    if existed or (not is_file and n):
        click.echo(f"{url}: already a memmaint store ({n} memories)")
    else:
        click.echo(f"created {url}")


@click.command("import")
@click.argument("file", type=click.Path(allow_dash=True))  # a folder: one-line InputError
@click.option("--db", required=True, help=_DB_HELP)
@click.option("--namespace", help="Put every record in this namespace (overrides the "
                                  "file's namespace fields; default: the file's, else "
                                  "'default').")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]),
              help="Input format (default: from the extension; stdin '-' is JSONL).")
@click.option("--text-col", default="text", show_default=True, help="CSV: the text column.")
@click.option("--id-col", help="CSV: the id column (default: generated UUIDs).")
@click.option("--importance-col", help="CSV: the importance column (default: a column named "
                                         "importance, else 1.0).")
@click.option("--kind-col", help="CSV: the kind column (default 'default').")
@click.option("--created-col", help="CSV: the ISO-8601 creation time column (default now).")
def import_cmd(file: str, db: str, namespace: str | None, fmt: str | None, text_col: str,
               id_col: str | None, importance_col: str | None, kind_col: str | None,
               created_col: str | None) -> None:
    """Import memories from a JSONL or CSV FILE ('-' for stdin), all or nothing.

    JSONL: one JSON object per line with memory fields; only "text" is required. CSV: a
    header row; columns not mapped by the options are kept in metadata. Any bad line stops
    the import with FILE:LINE: problem and leaves the store unchanged.
    """
    from memmaint.maintenance.core import io as mio

    _check_namespace(namespace)
    csv_options = {"text_col": text_col, "id_col": id_col, "importance_col": importance_col,
                   "kind_col": kind_col, "created_col": created_col}
    # Parse and validate the whole file before the store is even opened.
    entries = mio.read_entries(file, fmt, namespace, **csv_options)
    with _store(db) as store:
        mio.check_against_store(entries, store, mio.display_name(file))
        store.add_memories([e.memory for e in entries])
    counts: dict[str, int] = {}
    for e in entries:
        counts[e.memory.namespace] = counts.get(e.memory.namespace, 0) + 1
    where = ", ".join(f"{ns} ({n})" for ns, n in sorted(counts.items())) or "-"
    click.echo(f"imported {len(entries)} memories from {mio.display_name(file)} "
               f"into namespace(s): {where}")


@click.command("export")
@click.option("--db", required=True, help=_DB_HELP)
@click.option("--namespace", help="Only this namespace (default: all).")
@click.option("-o", "--output", type=click.Path(allow_dash=True), default="-",
              help="Output file (default: stdout).")
def export_cmd(db: str, namespace: str | None, output: str) -> None:
    """Write memories (every status and field) as JSONL; import reads it back losslessly."""
    from memmaint.maintenance.core.io import write_atomically, write_jsonl

    _check_namespace(namespace)
    if output != "-" and Path(output).is_dir():
        raise UserError(f"cannot write {output}: it is a directory, not a file")
    with _store(db) as store:
        if namespace is not None and namespace not in store.namespaces():
            known = ", ".join(store.namespaces()) or "none"
            raise UserError(f"no namespace {namespace!r} in {redact_url(store.url)} "
                            f"(namespaces: {known})")
        memories = store.iter_memories(namespace)
        if output == "-":
            sys.stdout.flush()
            binary = getattr(sys.stdout, "buffer", None)
            if binary is None:  # pragma: no cover - stdout replaced by a text-only stream
                n = write_jsonl(memories, _for_stdout(sys.stdout))
            else:  # UTF-8 and \n whatever the locale
                out = io.TextIOWrapper(binary, encoding="utf-8", newline="\n",
                                       write_through=True)
                try:
                    n = write_jsonl(memories, _for_stdout(out))
                    out.flush()
                finally:
                    out.detach()
        else:
            try:
                n = write_atomically(Path(output), lambda fh: write_jsonl(memories, fh))
            except OSError as exc:  # e.g. the disk is full: nothing replaced the old file
                raise MemmaintError(f"cannot write {output}: {exc.strerror or exc} "
                                    "(nothing was written)") from None
    if output == "-":  # stdout holds the data: the count goes to the log
        log.info("exported %d memories", n)
    else:
        click.echo(f"exported {n} memories to {output}", err=True)


# -- stats ----------------------------------------------------------------------------------

class _TerminalSafe(io.TextIOBase):
    """Writes JSON text to ``fh`` with the characters that could steer a terminal (bidi
    overrides, C1 controls, separators) as ``\\uXXXX`` escapes: the same JSON values,
    safe on a terminal (``export -o -`` on a terminal)."""

    def __init__(self, fh: Any) -> None:
        self.fh = fh

    def write(self, text: str) -> int:
        self.fh.write(json_for_terminal(text))
        return len(text)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _for_stdout(fh: Any) -> Any:
    """``fh`` itself when stdout is a pipe or a file (the bytes a file export would hold);
    on a terminal, :class:`_TerminalSafe` around it."""
    return _TerminalSafe(fh) if _is_terminal(sys.stdout) else fh


def _table(header: list[str], rows: list[list[Any]]) -> str:
    cells = [[for_terminal(h) for h in header], *[[for_terminal(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for k, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_stats(stats: Mapping[str, Any], url: str) -> str:
    """``store.stats()`` as readable tables."""
    spaces = stats["namespaces"]
    out = [f"store: {url}", ""]
    if not spaces:
        out.append("no memories")
    else:
        statuses = [s.value for s in Status]
        rows = [[ns, e["total"], *[e["status"].get(s, 0) for s in statuses]]
                for ns, e in spaces.items()]
        if len(rows) > 1:
            rows.append(["(all)", sum(r[1] for r in rows),
                         *[sum(r[2 + i] for r in rows) for i in range(len(statuses))]])
        out += ["memories by status", _table(["namespace", "total", *statuses], rows), ""]
        kinds = [k for k in BUILTIN_KINDS if any(k in e["kind"] for e in spaces.values())]
        kinds += sorted({k for e in spaces.values() for k in e["kind"]} - set(kinds))
        rows = [[ns, *[e["kind"].get(k, 0) for k in kinds]] for ns, e in spaces.items()]
        out += ["memories by kind", _table(["namespace", *kinds], rows)]
    out.append("")
    if not stats["embeddings"]:
        out.append("embeddings: none yet (run memmaint embed)")
    else:
        rows = []
        for model, e in stats["embeddings"].items():
            share = 100.0 * e["covered_active"] / e["active"] if e["active"] else 100.0
            rows.append([model, e["vectors"], f"{e['covered_active']}/{e['active']}",
                         f"{share:.1f}%"])
        out += ["embedding coverage of active memories",
                _table(["model", "cached vectors", "active covered", "coverage"], rows)]
    return "\n".join(out)


@click.command("stats")
@click.option("--db", required=True, help=_DB_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def stats_cmd(db: str, as_json: bool) -> None:
    """Counts by namespace, status and kind, and embedding coverage per model."""
    with _store(db) as store:
        stats = store.stats()
        url = redact_url(store.url)
    if as_json:
        click.echo(json.dumps({"store": url, **stats}, indent=2, sort_keys=True))
    else:
        click.echo(format_stats(stats, url))


# -- embed ----------------------------------------------------------------------------------

class _EmbedProgress:
    """The ``progress(done, total)`` callback of ``embed``: a bar on a terminal, else one log
    line when it ends (:class:`memmaint.maintenance.cli.main.Progress`)."""

    def __init__(self, tty: bool | None = None) -> None:
        from memmaint.maintenance.cli.main import Progress

        self.progress = Progress(tty)

    def __call__(self, done: int, total: int, *_: Any) -> None:
        self.progress("embedding", done, total)

    def close(self) -> None:
        self.progress.close()


def _embed_config(config_path: str | None, model: str | None) -> Config:
    config = load_config(config_path)
    if model is not None:
        config = with_overrides(config, {"embedding.model": model})
    return config


def embed_store(store: MemoryStore, config: Config, namespace: str | None = None) -> str:
    """Embed the active memories (cached vectors are reused); returns the summary line."""
    from memmaint.maintenance.embed.base import embed_memories, get_embedder

    memories = list(store.iter_memories(namespace, statuses=[Status.ACTIVE]))
    embedder = get_embedder(config.embedding)
    progress = _EmbedProgress()
    try:
        result = embed_memories(store, embedder, memories,
                                batch_size=config.embedding.batch_size, progress=progress)
    finally:
        progress.close()
    return (f"{len(memories)} active memories, model {embedder.model_id}: "
            f"embedded {result.embedded} texts, {result.cached} from the cache, "
            f"{result.truncated} truncated")


@click.command("embed")
@click.option("--db", required=True, help=_DB_HELP)
@click.option("--model", help="Embedding backend (overrides [embedding] model): minilm, "
                              "hashing, sentence-transformers, openai.")
@_CONFIG_OPTION
@click.option("--namespace", help="Only this namespace (default: all).")
def embed_cmd(db: str, model: str | None, config_path: str | None,
              namespace: str | None) -> None:
    """Embed active memories that have no cached vector for the model yet."""
    _check_namespace(namespace)
    config = _embed_config(config_path, model)
    with _store(db) as store:
        click.echo(embed_store(store, config, namespace))


# -- config -----------------------------------------------------------------------------------

def render_config(config: Config) -> str:
    """The config as TOML with each field's doc as a comment (unset options commented out).

    Reading the output back with :func:`load_config` gives the same config.
    """
    import tomli_w

    lines: list[str] = []

    def nest(path: list[str], value: Any) -> dict[str, Any]:
        for part in reversed(path):
            value = {part: value}
        return value

    def section(obj: Any, path: list[str]) -> None:
        scalars, tables, subsections = [], [], []
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            if dataclasses.is_dataclass(value):
                subsections.append((f.name, value))
            elif isinstance(value, Mapping):
                tables.append((f, value))
            else:
                scalars.append((f, value))
        if path and (scalars or not subsections):
            summary = (type(obj).__doc__ or "").strip().splitlines()
            lines.append("")
            if summary and not summary[0].startswith(f"{type(obj).__name__}("):  # auto doc
                lines.append(f"# {summary[0]}")
            lines.append(tomli_w.dumps(nest(path, {})).strip())
        for f, value in scalars:
            choices = field_choices(f.metadata)
            parts = [f.metadata.get("doc") or "", "one of " + ", ".join(choices) if choices else ""]
            note = "; ".join(x for x in parts if x)
            if value is None:
                lines.append(f"# {f.name} = (not set)" + (f"  # {note}" if note else ""))
                continue
            pair = tomli_w.dumps({f.name: value}).strip()
            lines.append(pair + (f"  # {note}" if note else ""))
        for f, value in tables:
            lines.append("")
            if f.metadata.get("doc"):
                lines.append(f"# {f.metadata['doc']}")
            lines.append(tomli_w.dumps(nest([*path, f.name], dict(value))).strip()
                         or f"[{'.'.join([*path, f.name])}]")
        for name, value in subsections:
            section(value, [*path, name])

    section(config, [])
    return "\n".join(lines).lstrip("\n") + "\n"


@click.group("config")
def config_group() -> None:
    """Inspect the configuration."""


@config_group.command("show")
@_CONFIG_OPTION
def config_show_cmd(config_path: str | None) -> None:
    """Print the effective config (the file over the defaults) as TOML."""
    config = load_config(config_path)
    click.echo(f"# effective memmaint config ({config_path or 'defaults'}), "
               f"hash {config.hash()}")
    click.echo(render_config(config), nl=False)
