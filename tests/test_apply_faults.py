"""Fault injection: SIGKILL the applying process at many points; the store must survive.

Each round copies a store, starts ``apply_plan`` in a child process (which sleeps a little
before every write through the ``MEMMAINT_APPLY_WRITE_DELAY`` test hook, so that kills land
between writes), kills it with SIGKILL at a point spread over the measured apply time, then
checks: the file passes ``PRAGMA integrity_check``, the store opens, and every namespace is
either exactly in its old state or exactly in its fully applied state (count and per-memory
content hash, status, pointer and version), with events present only for applied namespaces.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from maint_fixtures import NOW, embed, local_scenario, random_pool

from memmaint.maintenance.agents.rules import plan
from memmaint.maintenance.core.config import AgentsConfig
from memmaint.maintenance.store.sqlite import SQLiteStore

KILLS = 24
DELAY = "0.004"
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")

CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from memmaint.maintenance.apply.applier import apply_plan
    from memmaint.maintenance.plan.model import Plan
    from memmaint.maintenance.store.sqlite import SQLiteStore

    the_plan = Plan.from_json(Path(sys.argv[2]).read_text())
    store = SQLiteStore(sys.argv[1], create=False)
    print("ready", flush=True)
    apply_plan(the_plan, store, sys.argv[3])
    store.close()
    print("done", flush=True)
""")


def signature(path: Path) -> dict[str, dict[str, tuple]]:
    """namespace -> memory id -> (content hash, status, replaced_by, version, valid_until)."""
    out: dict[str, dict[str, tuple]] = {}
    with SQLiteStore(path, create=False) as store:
        for m in store.iter_memories():
            out.setdefault(m.namespace, {})[m.id] = (
                m.content_hash, m.status.value, m.replaced_by, m.version, m.valid_until)
        events = {ns: len(store.events(run_id="run", namespace=ns)) for ns in out}
    return {ns: {"memories": mems, "events": events[ns]} for ns, mems in out.items()}


def start_child(db: Path, plan_path: Path) -> subprocess.Popen:
    env = {**os.environ, "MEMMAINT_APPLY_WRITE_DELAY": DELAY}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(db), str(plan_path), "run"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline().strip()
    if line != "ready":
        proc.kill()
        raise AssertionError(f"child failed to start: {line!r} {proc.stderr.read()}")
    return proc


def test_sigkill_during_apply_leaves_old_or_fully_applied_state(tmp_path):
    pool, labels, _ = local_scenario()
    extra, extra_labels = random_pool(random.Random(7), 40, namespaces=2)
    pool, labels = pool + extra, labels + extra_labels
    original = tmp_path / "original.db"
    with SQLiteStore(original) as store:
        store.add_memories(pool)
    the_plan = plan(pool, labels, embed([m.text for m in pool]),
                    AgentsConfig(evict_noise=True, evict_stale=True), now=NOW, plan_id="p")
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(the_plan.to_json())

    # the fully applied state, and how long a (slowed) apply takes in a child process
    full = tmp_path / "full.db"
    shutil.copy(original, full)
    proc = start_child(full, plan_path)
    t0 = time.monotonic()
    out, err = proc.communicate(timeout=120)
    window = time.monotonic() - t0
    assert proc.returncode == 0 and "done" in out, err
    old, new = signature(original), signature(full)
    assert set(old) == set(new) == {"default", "ns0", "ns1"}
    for ns in old:  # every namespace really changes, so the two states differ
        assert old[ns] != new[ns] and new[ns]["events"] > 0 and old[ns]["events"] == 0

    rng = random.Random(2024)
    outcomes = {"old": 0, "partial": 0, "new": 0}
    killed_mid_apply = attempts = 0
    for k in range(2 * KILLS):  # a busy machine may let a child finish first: try again
        if killed_mid_apply >= KILLS:
            break
        attempts += 1
        db = tmp_path / f"kill{k}.db"
        shutil.copy(original, db)
        proc = start_child(db, plan_path)
        # stratified over the apply (its measured length, a little less for timing noise)
        time.sleep(0.9 * window * (killed_mid_apply + rng.random()) / KILLS)
        proc.send_signal(signal.SIGKILL)
        out, _err = proc.communicate(timeout=60)
        if proc.returncode == -signal.SIGKILL and "done" not in out:
            killed_mid_apply += 1
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            conn.close()
        got = signature(db)  # the store opens (and recovers its WAL)
        states = []
        for ns in old:
            assert got[ns] in (old[ns], new[ns]), f"kill {k}: namespace {ns} half-applied"
            states.append(got[ns] == new[ns])
        outcomes["new" if all(states) else "partial" if any(states) else "old"] += 1
    print(f"{attempts} kills over a {window:.2f}s apply: {killed_mid_apply} mid-apply, "
          f"outcomes {outcomes}")
    assert killed_mid_apply >= 20
    assert outcomes["old"] >= 1 and outcomes["partial"] + outcomes["new"] >= 1
