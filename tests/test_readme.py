"""Every command in README.md's ```sh blocks runs as written on the shipped ``examples/``.

The commands run in order, through the CLI in-process (click's CliRunner), in one temporary
folder holding a copy of ``examples/``, so that later recipes see what earlier ones made
(``memories.db``). Skipped: the two install commands (they build a virtual environment) and
commands that need a server. The placeholders ``RUN_ID`` and ``MEMORY_ID`` become the newest
run that changed something and a memory of the example pool. Slow as a whole (the default embedder, UMAP and a
short tuning study): marked ``slow``; ``test_readme_commands_are_found`` is the fast part.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
#: Lines that are not run: installing (a fresh venv) and anything that needs a server.
SKIP = ("pip install", "postgresql://", "--scheduler", "--base-url")
#: A memory of examples/pool.jsonl (a price that changed: the runs touch it).
MEMORY = "support-chg-3-new"


def readme_commands() -> list[str]:
    """The command lines of README.md's ```sh blocks, in order, skipped ones left out."""
    text = README.read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
        for line in block.splitlines():
            line = line.strip()
            if not line or line.startswith("#") or any(s in line for s in SKIP):
                continue
            out.append(line)
    return out


def test_readme_commands_are_found():
    commands = readme_commands()
    assert len(commands) >= 15 and all(c.startswith("memmaint ") for c in commands)
    for path in re.findall(r"examples/[\w./-]+", " ".join(commands)):
        assert (REPO / path).exists(), path
    pool = (REPO / "examples" / "pool.jsonl").read_text(encoding="utf-8")
    assert f'"id": "{MEMORY}"' in pool
    assert len(list((REPO / "examples" / "tune" / "train").glob("*.jsonl"))) >= 2


@pytest.mark.slow
def test_every_readme_command_runs_on_the_examples(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from memmaint.maintenance.cli.main import main
    from memmaint.maintenance.store.sqlite import SQLiteStore

    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for line in readme_commands():
        args = shlex.split(line, comments=True)[1:]
        if "RUN_ID" in args:
            with SQLiteStore(tmp_path / "memories.db") as store:
                run_id = next(r.run_id for r in store.list_runs()  # one that changed things
                              if ((r.report or {}).get("primary") or {}).get("memories_affected"))
            args = [run_id if a == "RUN_ID" else a for a in args]
        args = [MEMORY if a == "MEMORY_ID" else a for a in args]
        res = runner.invoke(main, args, catch_exceptions=False)
        assert res.exit_code == 0, f"{line}\n{res.output}"
    assert (tmp_path / "best.toml").is_file() and (tmp_path / "compare.html").is_file()
    assert (tmp_path / "report.html").is_file() and (tmp_path / "backup.jsonl").is_file()
