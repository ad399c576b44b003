"""``memmaint run``, ``runs``, ``compare`` and ``demo`` through click's CliRunner."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memmaint.maintenance.core.records import Status
from memmaint.maintenance.report.model import RunReport
from memmaint.maintenance.store.sqlite import SQLiteStore

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from maint_fixtures import FAST_TOML
from test_job import pool

STRICT_TOML = FAST_TOML.replace("min_cluster_size = 2", "min_cluster_size = 4") + """
[agents]
merge_threshold = 1.0
"""


@pytest.fixture
def setup(tmp_path):
    db = tmp_path / "pool.db"
    with SQLiteStore(db) as store:
        store.add_memories(pool())
    fast = tmp_path / "fast.toml"
    fast.write_text(FAST_TOML, encoding="utf-8")
    strict = tmp_path / "strict.toml"
    strict.write_text(STRICT_TOML, encoding="utf-8")
    return db, fast, strict


def active(db: Path) -> int:
    with SQLiteStore(db) as store:
        return store.count_memories("ns", statuses=[Status.ACTIVE])


def test_run_then_runs_lists_it(cli, setup, tmp_path):
    db, fast, _ = setup
    out = tmp_path / "r.json"
    res = cli("run", "--db", db, "--config", fast, "--report", out)
    assert res.exit_code == 0, res.output
    assert "succeeded" in res.stdout and "memories affected" in res.stdout
    # plain log lines on stderr (not a terminal here), the summary on stdout
    assert re.search(r"^\S+ INFO memmaint\.maintenance\.job\.run: run \S+: started$", res.stderr,
                     re.MULTILINE)
    assert "INFO" not in res.stdout
    report = RunReport.load(out)
    assert report.status == "succeeded" and active(db) == report.pool_after < 18
    listed = cli("runs", "--db", db)
    assert listed.exit_code == 0 and report.run_id in listed.output
    assert "succeeded" in listed.output and f"18 -> {report.pool_after}" in listed.output
    as_json = json.loads(cli("runs", "--db", db, "--json").output)
    assert as_json[0]["run_id"] == report.run_id
    shown = json.loads(cli("runs", "--db", db, "--show", report.run_id).output)
    assert shown["primary"]["memories_affected"] == report.primary.memories_affected
    assert RunReport.from_dict(shown).to_dict() == report.to_dict()  # compare reads it back


def test_dry_run_cli_changes_nothing_and_writes_reports(cli, setup, tmp_path, file_state):
    db, fast, _ = setup
    before = file_state(db)
    html = tmp_path / "r.html"
    res = cli("run", "--db", db, "--config", fast, "--dry-run", "--report", tmp_path / "r.json",
              "--html", html)
    assert res.exit_code == 0, res.output
    assert file_state(db) == before
    assert "dry-run" in res.output and "(not applied)" in res.output
    page = html.read_text(encoding="utf-8")
    assert page.count('class="map"') == 1 and "<script" not in page
    assert cli("runs", "--db", db).output.strip() == "no runs yet"


def test_too_few_new_memories_skip_with_exit_4_unless_forced(cli, setup):
    db, fast, _ = setup
    assert cli("run", "--db", db, "--config", fast).exit_code == 0
    with SQLiteStore(db) as store:
        store.add_memories(pool(copies=1, start=100, age_days=0))
    res = cli("run", "--db", db, "--config", fast)
    assert res.exit_code == 4, res.output
    assert "skipped" in res.output and "6 new memories" in res.output
    assert cli("run", "--db", db, "--config", fast, "--force").exit_code == 0
    listed = cli("runs", "--db", db).output
    assert listed.count("succeeded") == 2 and listed.count("skipped") == 1


LOCK_HOLDER = textwrap.dedent("""
    import sys, time
    from memmaint.maintenance.store.sqlite import SQLiteStore
    store = SQLiteStore(sys.argv[1], create=False)
    with store.lock():
        print("locked", flush=True)
        sys.stdin.readline()
""")


def test_concurrent_run_exits_3_without_touching_store(cli, setup, file_state):
    db, fast, _ = setup
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(db)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = file_state(db)
        res = cli("run", "--db", db, "--config", fast, "--force")
        assert res.exit_code == 3, res.output
        assert "another memmaint run holds the" in res.output and "Traceback" not in res.output
        assert file_state(db) == before
    finally:
        holder.communicate("done\n", timeout=30)
    assert cli("run", "--db", db, "--config", fast).exit_code == 0  # released


def test_usage_errors_exit_2(cli, setup, tmp_path):
    db, fast, _ = setup
    res = cli("run", "--db", db, "--namespace", "ns", "--all-namespaces")
    assert res.exit_code == 2 and "exclude each other" in res.output
    res = cli("run", "--db", tmp_path / "missing.db", "--config", fast)
    assert res.exit_code == 2 and "no memmaint store" in res.output
    bad = tmp_path / "bad.toml"
    bad.write_text("[clustering]\nalgorithm = 'kmeans'\n", encoding="utf-8")
    res = cli("run", "--db", db, "--config", bad)
    assert res.exit_code == 2 and "kmeans" in res.output and "Traceback" not in res.output
    res = cli("run", "--db", db, "--config", fast, "--namespace", "nope")
    assert res.exit_code == 2 and "nope" in res.output
    assert cli("compare", "--db", db, "--config", fast).exit_code == 2
    assert cli("compare", tmp_path / "only-one-missing.json").exit_code == 2


def test_compare_two_configs_on_a_store(cli, setup, tmp_path, file_state):
    db, fast, strict = setup
    before = file_state(db)
    js, html = tmp_path / "cmp.json", tmp_path / "cmp.html"
    res = cli("compare", "--db", db, "--config", fast, "--config", strict, "--json", js,
              "--html", html)
    assert res.exit_code == 0, res.output
    assert file_state(db) == before
    out = res.output
    for needle in ("fast", "strict", "clusters", "noise", "actions: merge", "memories affected",
                   "pool before -> after", "LLM calls", "memories both would merge",
                   "only fast would merge", "conflicting decisions", "B-cubed precision"):
        assert needle in out, needle
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data["label_a"] == "fast" and "overlap" in data
    assert data["a"]["bcubed"]["n_labelled"] == 18
    assert html.read_text(encoding="utf-8").count('class="map"') == 2


def test_compare_two_report_files_and_a_shadow_report(cli, setup, tmp_path):
    db, fast, strict = setup
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert cli("run", "--db", db, "--config", fast, "--dry-run", "--report", a).exit_code == 0
    assert cli("run", "--db", db, "--config", strict, "--dry-run", "--report", b,
               "--shadow", fast).exit_code == 0
    res = cli("compare", a, b)
    assert res.exit_code == 0, res.output
    assert "memories both would merge" in res.output and "only a would merge" in res.output
    res = cli("compare", b)  # its primary against its shadow
    assert res.exit_code == 0 and "only shadow would merge" in res.output
    res = cli("compare", a)
    assert res.exit_code == 2 and "no shadow" in res.output


def test_demo_with_fast_configs(cli, tmp_path, monkeypatch, setup):
    _db, fast, strict = setup
    monkeypatch.chdir(tmp_path)
    res = cli("demo", "--size", "120", "--config", fast, "--shadow", strict)
    assert res.exit_code == 0, res.output
    assert Path("memmaint-demo.db").exists() and Path("memmaint-demo-report.html").exists()
    assert "dry-run" in res.output and "memories both would merge" in res.output
    with SQLiteStore("memmaint-demo.db") as store:
        n = store.count_memories()
        assert 100 <= n <= 140 and store.list_runs() == []  # the demo run is dry
    page = Path("memmaint-demo-report.html").read_text(encoding="utf-8")
    assert page.count('class="map"') >= 2


def test_progress_without_terminal_logs_one_line_per_stage(caplog):
    from memmaint.maintenance.cli.run import _Progress

    progress = _Progress(tty=False)
    with caplog.at_level("INFO", logger="memmaint.cli"):
        for done in range(1001):
            progress("embed", done, 1000)
        progress("reduce", 0, 10)
        progress("reduce", 10, 10)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines  # cron logs stay short: one line per finished stage
    assert lines[0].startswith("embed: 1000/1000 in ") and lines[1].startswith("reduce: 10/10")


# -- exit codes keep their meaning (issue #17) ---------------------------------------------

def test_bad_outputs_and_config_exit_2_before_any_write(cli, setup, tmp_path, file_state):
    db, fast, _ = setup
    before = file_state(db)
    bad_r = tmp_path / "r0.toml"
    bad_r.write_text(FAST_TOML.replace('algorithm = "hdbscan"', "algorithm = 'genkt'").replace(
        "[clustering.hdbscan]\nmin_cluster_size = 2", "[clustering.genkt]\nR = 0.0"),
        encoding="utf-8")
    cases = [("--html", tmp_path / "missing" / "r.html", "does not exist"),
             ("--report", tmp_path / "missing" / "r.json", "does not exist"),
             ("--report", tmp_path, "is a directory")]
    for option, path, why in cases:
        res = cli("run", "--db", db, "--config", fast, option, path)
        assert res.exit_code == 2 and why in res.output and "Traceback" not in res.output
    res = cli("run", "--db", db, "--config", bad_r)
    assert res.exit_code == 2 and "clustering.genkt.R" in res.output
    assert "Traceback" not in res.output
    res = cli("compare", "--db", db, "--config", fast, "--config", fast,
              "--html", tmp_path / "missing" / "c.html")
    assert res.exit_code == 2 and "does not exist" in res.output
    res = cli("history", "ns-0", "--db", db, "-o", tmp_path / "missing" / "h.dot")
    assert res.exit_code == 2 and "does not exist" in res.output
    assert file_state(db) == before  # nothing written, no run record
    assert active(db) == 18 and cli("runs", "--db", db).output.strip() == "no runs yet"


def test_output_failure_after_apply_exits_5_and_the_run_stays_applied(cli, setup, tmp_path,
                                                                      monkeypatch):
    from memmaint.maintenance.cli import run as cli_run

    db, fast, _ = setup
    monkeypatch.setattr(cli_run, "check_output", lambda path, option: None)  # passes, then
    res = cli("run", "--db", db, "--config", fast, "--report", tmp_path / "gone" / "r.json")
    assert res.exit_code == 5, res.output
    (line,) = [ln for ln in res.stderr.splitlines() if ln.startswith("memmaint:")]
    assert "succeeded and recorded, but cannot write the JSON report" in line
    assert active(db) < 18
    listed = json.loads(cli("runs", "--db", db, "--json").output)
    assert [r["status"] for r in listed] == ["succeeded"]


def test_user_error_after_the_first_write_is_a_recorded_failure_exit_1(cli, setup,
                                                                       monkeypatch):
    from memmaint.maintenance.core.errors import InputError
    from memmaint.maintenance.job import run as job

    def bad_plan(*a, **k):
        raise InputError("a bad memory")

    db, fast, _ = setup
    monkeypatch.setattr(job, "_plan", bad_plan)
    res = cli("run", "--db", db, "--config", fast)
    assert res.exit_code == 1 and "recorded as failed run" in res.output
    listed = json.loads(cli("runs", "--db", db, "--json").output)
    assert [r["status"] for r in listed] == ["failed"] and active(db) == 18
