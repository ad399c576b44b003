"""Issue #16, a newcomer's first ten minutes: progress, decisions you can act on, CLI edges.

Everything goes through click's CliRunner (no terminal: log lines, no bars) on a small pool
with the hashing embedder and PCA, so each test takes well under a second or two.
"""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path

import pytest

from memmaint.maintenance.core.records import Memory
from memmaint.maintenance.store.sqlite import SQLiteStore

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from maint_fixtures import FAST_TOML
from test_job import pool

BAR_CHARS = ("\r", "|", "\u2588", "%")  # what a tqdm bar draws


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "pool.db"
    with SQLiteStore(db) as store:
        store.add_memories(pool())
    fast = tmp_path / "fast.toml"
    fast.write_text(FAST_TOML, encoding="utf-8")
    return db, fast


def cli_lines(stderr: str, logger: str = "memmaint.cli") -> list[str]:
    return [line.split(f"{logger}: ", 1)[1] for line in stderr.splitlines()
            if f" {logger}: " in line]


# -- 3. progress -----------------------------------------------------------------------------

def test_run_without_terminal_logs_one_line_per_stage_and_no_bar(cli, setup):
    db, fast = setup
    res = cli("run", "--db", db, "--config", fast)
    assert res.exit_code == 0, res.output
    lines = cli_lines(res.stderr)
    stages = [line.split(":", 1)[0] for line in lines]
    assert stages == ["embed", "reduce", "cluster", "plan", "apply"], lines
    for line in lines:
        assert re.fullmatch(r"[a-z ]+: \d+/\d+ in \d+\.\d s", line), line
    assert lines[0] == "embed: 6/6 in " + lines[0].rsplit(" in ", 1)[1]  # distinct texts
    assert not any(c in res.stderr for c in ("\r", "\u2588"))
    assert not any(c in res.stdout for c in BAR_CHARS[:2])


def test_shadow_and_compare_stages_are_named(cli, setup, tmp_path):
    db, fast = setup
    res = cli("run", "--db", db, "--config", fast, "--dry-run", "--shadow", fast)
    stages = [line.split(":", 1)[0] for line in cli_lines(res.stderr)]
    assert stages == ["embed", "reduce", "cluster", "plan", "shadow reduce", "shadow cluster",
                      "shadow plan", "apply"]
    other = tmp_path / "other.toml"
    other.write_text(FAST_TOML.replace("min_cluster_size = 2", "min_cluster_size = 3"))
    res = cli("compare", "--db", db, "--config", fast, "--config", other)
    assert res.exit_code == 0, res.output
    stages = [line.split(":", 1)[0] for line in cli_lines(res.stderr)]
    assert stages == ["embed", "fast reduce", "fast cluster", "fast plan", "other reduce",
                      "other cluster", "other plan"]


def test_quiet_run_logs_nothing_but_warnings(cli, setup):
    db, fast = setup
    res = cli("run", "--db", db, "--config", fast, "-q")
    assert res.exit_code == 0 and " INFO " not in res.stderr


def test_progress_on_a_terminal_draws_a_bar_per_stage(capsys):
    from memmaint.maintenance.cli.main import Progress

    progress = Progress(tty=True)
    for done in (0, 64, 128, 150):
        progress("embed", done, 150)
    progress("reduce", 0, 150)
    progress.note("reduce", "best 0.5")
    progress.close()  # ends the unfinished bar
    err = capsys.readouterr().err
    assert "embed" in err and "150/150" in err and "reduce" in err and "best 0.5" in err


def test_progress_without_terminal_one_line_with_time(caplog):
    from memmaint.maintenance.cli.main import Progress

    progress = Progress(tty=False)
    with caplog.at_level("INFO", logger="memmaint.cli"):
        for done in range(0, 1001, 10):
            progress("embed", done, 1000)
        progress("reduce", 0, 5)
        progress.close()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert re.fullmatch(r"embed: 1000/1000 in \d+\.\d s", lines[0])
    assert re.fullmatch(r"reduce: 0/5 \(stopped\) in \d+\.\d s", lines[1])


def test_tune_progress_counts_trials_with_the_best_feasible_value(caplog, capsys):
    from memmaint.optimize.cli import _TrialProgress
    from memmaint.optimize.objective import CONSTRAINT_ATTR

    class Trial:
        def __init__(self, value: float, feasible: bool) -> None:
            self.value = value
            self.user_attrs = {CONSTRAINT_ATTR: [-0.1 if feasible else 0.2]}

    class Objective:
        evaluator = "the evaluator"

        def __call__(self, trial: Trial) -> float:
            return trial.value

    trials = ((0.4, True), (0.9, False), (0.6, True))
    for tty in (False, True):
        wrapped = _TrialProgress(Objective(), 3, tty=tty)
        assert wrapped.evaluator == "the evaluator"  # run_study reads it
        with caplog.at_level("INFO", logger="memmaint.optimize"):
            for value, feasible in trials:
                assert wrapped(Trial(value, feasible)) == value
            wrapped.close()
    (line,) = [r.getMessage() for r in caplog.records]  # no terminal: one line
    assert re.fullmatch(r"tune: 3/3 trials in \d+\.\d s; best feasible recall 0\.600", line)
    err = capsys.readouterr().err  # a terminal: the bar
    assert "tune" in err and "3/3" in err and "best feasible recall 0.600" in err


# -- 4. decisions you can act on ------------------------------------------------------------

def test_run_and_runs_show_print_the_decisions_table(cli, setup):
    db, fast = setup
    with SQLiteStore(db) as store:
        store.add_memories([Memory(text="\x1b[31mred\x1b[0m alert", id="evil", namespace="ns"),
                            Memory(text="\x1b[31mred\x1b[0m alert", id="evil2",
                                   namespace="ns")])
    res = cli("run", "--db", db, "--config", fast, "--decisions")
    assert res.exit_code == 0, res.output
    header = next(line for line in res.stdout.splitlines() if line.startswith("id "))
    assert header.split() == ["id", "action", "target", "agent", "reason", "joined", "text"]
    assert "merge" in res.stdout and "\x1b" not in res.stdout and "\\x1b[31mred" in res.stdout
    with SQLiteStore(db) as store:
        run_id = store.list_runs(limit=1)[0].run_id
    shown = cli("runs", "--db", db, "--show", run_id, "--decisions")
    assert shown.exit_code == 0 and shown.stdout.splitlines()[0].startswith(f"run {run_id}")
    table = shown.stdout[shown.stdout.index("\nid "):]
    assert table == res.stdout[res.stdout.index("\nid "):]
    assert cli("runs", "--db", db, "--decisions").exit_code == 2  # needs --show


def test_demo_ends_with_counts_and_three_next_commands(cli, setup, tmp_path):
    from memmaint.maintenance.cli.run import _demo_summary
    from memmaint.maintenance.report.model import RunReport

    db, fast = setup
    cli("run", "--db", db, "--config", fast, "--dry-run", "--report", tmp_path / "r.json")
    text = _demo_summary(RunReport.load(tmp_path / "r.json"), "my demo.db")
    assert "What happened: 18 memories" in text and "merge" in text
    nexts = [line.strip() for line in text.splitlines() if line.startswith("  memmaint ")]
    assert len(nexts) == 3 and all("--db 'my demo.db'" in line for line in nexts)


# -- 5. CLI edges ----------------------------------------------------------------------------

@pytest.mark.parametrize("flags", [["-q"], ["-v"], ["-vv"], ["--quiet"], ["--verbose"]])
def test_log_flags_are_accepted_after_the_subcommand(cli, setup, flags):
    db, _ = setup
    res = cli("stats", "--db", db, *flags)
    assert res.exit_code == 0, res.output
    res = cli(*flags, "stats", "--db", db)
    assert res.exit_code == 0, res.output


def test_quiet_after_the_subcommand_silences_the_log(cli, setup):
    db, fast = setup
    loud = cli("run", "--db", db, "--config", fast, "--dry-run")
    quiet = cli("run", "--db", db, "--config", fast, "--dry-run", "-q")
    assert " INFO " in loud.stderr and " INFO " not in quiet.stderr
    assert quiet.exit_code == 0
    debug = cli("run", "--db", db, "--config", fast, "--dry-run", "-vv")
    assert debug.exit_code == 0


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_empty_store_says_it_is_empty_and_does_not_suggest_force(cli, tmp_path, force):
    db = tmp_path / "empty.db"
    assert cli("init", "--db", db).exit_code == 0
    res = cli("run", "--db", db, *force)
    assert res.exit_code == 4
    assert "the store is empty" in res.stderr and "--force" not in res.stderr
    assert "the store is empty" in res.stdout


def test_too_few_new_memories_suggests_force_and_force_runs(cli, setup):
    db, fast = setup
    assert cli("run", "--db", db, "--config", fast).exit_code == 0
    res = cli("run", "--db", db, "--config", fast)
    assert res.exit_code == 4 and "use --force to run anyway" in res.stderr
    res = cli("run", "--db", db, "--config", fast, "--force")
    assert res.exit_code == 0 and "succeeded" in res.stdout


def test_export_says_it_once(cli, setup, tmp_path):
    db, _ = setup
    res = cli("export", "--db", db, "-o", tmp_path / "out.jsonl")
    assert res.exit_code == 0
    assert res.stderr.count("exported 18 memories") == 1
    res = cli("export", "--db", db)  # to stdout: the count is a log line
    assert res.stderr.count("exported 18 memories") == 1 and res.stdout.count("\n") == 18


def test_csv_importance_column_is_read_by_name(cli, tmp_path):
    db = tmp_path / "s.db"
    cli("init", "--db", db)
    (tmp_path / "p.csv").write_text("text,importance,team\nuse tabs,2.5,core\nuse spaces,,ui\n")
    res = cli("import", tmp_path / "p.csv", "--db", db)
    assert res.exit_code == 0, res.output
    with SQLiteStore(db) as store:
        got = {m.text: m for m in store.iter_memories()}
    assert got["use tabs"].importance == 2.5 and got["use spaces"].importance == 1.0
    assert got["use tabs"].metadata == {"team": "core"}


def test_csv_importance_that_is_not_a_number_is_refused_with_file_and_line(cli, tmp_path):
    db = tmp_path / "s.db"
    cli("init", "--db", db)
    (tmp_path / "p.csv").write_text("text,importance\nok,1\nloud,high\n")
    res = cli("import", tmp_path / "p.csv", "--db", db)
    assert res.exit_code == 2
    (line,) = res.stderr.strip().splitlines()
    assert "p.csv:3:" in line and "importance 'high' is not a number" in line
    with SQLiteStore(db) as store:
        assert store.count_memories() == 0


def test_importance_col_still_names_another_column(cli, tmp_path):
    db = tmp_path / "s.db"
    cli("init", "--db", db)
    (tmp_path / "p.csv").write_text("text,weight,importance\na,3,high\n")
    res = cli("import", tmp_path / "p.csv", "--db", db, "--importance-col", "weight")
    assert res.exit_code == 0, res.output
    with SQLiteStore(db) as store:
        (m,) = store.iter_memories()
    assert m.importance == 3.0 and m.metadata == {"importance": "high"}


def test_one_data_folder_variable_for_datasets_and_eval(tmp_path, monkeypatch, caplog):
    from memmaint.datasets.labelled import data_root
    from memmaint.maintenance.cli.eval import _data_dir

    monkeypatch.delenv("MEMMAINT_SHARED_DATA", raising=False)
    monkeypatch.setenv("MEMMAINT_DATA_DIR", str(tmp_path))
    assert data_root() == tmp_path and _data_dir(None) == tmp_path
    monkeypatch.delenv("MEMMAINT_DATA_DIR")
    monkeypatch.setenv("MEMMAINT_SHARED_DATA", str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="memmaint"):
        assert data_root() == tmp_path and _data_dir(None) == tmp_path
    assert any("MEMMAINT_SHARED_DATA is deprecated: set $MEMMAINT_DATA_DIR" in r.getMessage()
               for r in caplog.records)


def test_datasets_sample_reads_the_new_variable(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("MEMMAINT_SHARED_DATA", raising=False)
    monkeypatch.setenv("MEMMAINT_DATA_DIR", str(tmp_path / "missing"))
    res = cli("datasets", "sample", "banking77", "-o", tmp_path / "out")
    assert res.exit_code == 2 and "MEMMAINT_DATA_DIR" in res.stderr
    assert str(tmp_path / "missing") in res.stderr


def test_optional_features_name_their_extra(monkeypatch, tmp_path):
    """Tuning and t-SNE are extras of the light install: without them, one line naming the
    extra (sys.modules[...] = None makes the import fail as if it were not installed)."""
    import numpy as np

    from memmaint.clustering.reduce.reducers import make_reducer
    from memmaint.maintenance.core.errors import MissingExtraError

    monkeypatch.setitem(sys.modules, "optuna", None)
    monkeypatch.setitem(sys.modules, "openTSNE", None)
    from click.testing import CliRunner

    from memmaint.maintenance.cli.main import main

    res = CliRunner().invoke(main, ["tune", "--train", str(tmp_path)])
    assert res.exit_code == 2
    assert "optuna is not installed: pip install 'memmaint[tune]'" in res.output
    with pytest.raises(MissingExtraError, match=r"memmaint\[tsne\]"):
        make_reducer("tsne", 2).fit_transform(np.random.default_rng(0).normal(size=(30, 5)))
