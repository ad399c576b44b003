"""Load the HTML report in headless Chromium and check what it shows.

Skips with a reason when no ``chromium`` is installed (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from memmaint.maintenance.report.html import render_html
from memmaint.maintenance.report.model import ConfigOutcome, Decision, compare_outcomes

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium not installed (Debian: apt-get install -y chromium)",
)

PAYLOAD = ("<script>document.body.setAttribute('data-pwned','1');document.title='pwned'"
           "</script><img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">")


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}",
           *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def _outcome(name: str, seed: int) -> ConfigOutcome:
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(6, 2))
    pts = []
    for i in range(240):
        label = -1 if i % 12 == 0 else i % 6
        x, y = (rng.normal(size=2) * 2.5 if label < 0 else centres[label] + rng.normal(size=2))
        pts.append([float(x), float(y), label])
    decisions = [Decision("ns", f"m{i}", "merge", i // 3, f"new{i // 3}", "merge",
                          "near-duplicates") for i in range(9)]
    decisions.append(Decision("ns", "evil", "evict", 99, None, "outcome", "unhelpful"))
    return ConfigOutcome(
        name=name, config_hash=f"hash{seed}", algorithm="hdbscan", description=f"{name} cfg",
        reduction="umap 2-D", n_memories=240, n_clusters=6, noise=20,
        cluster_sizes={30: 2, 40: 2, 35: 2}, pool_before=240, pool_after=228,
        actions_by_type={"keep": 230, "merge": 9, "evict": 1, "created": 3},
        memories_affected=10, decisions=decisions, map_points={"ns": pts},
        map_axes="reduced axes 1 and 2", texts={"ns\x1fevil": PAYLOAD, "ns\x1fm0": "hello"},
    )


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    a, b = _outcome("primary", 1), _outcome("shadow", 2)
    b.decisions = b.decisions[3:]
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(render_html([a, b], title="chromium check",
                                comparison=compare_outcomes(a, b)), encoding="utf-8")
    return path


def test_chromium_runs_scripts_in_this_mode(tmp_path):
    """Control: an unescaped script does run, so the escaping test below can fail."""
    raw = tmp_path / "raw.html"
    raw.write_text(f"<html><body><p>x</p>{PAYLOAD}</body></html>", encoding="utf-8")
    dom = _chromium(tmp_path, "--dump-dom", raw.as_uri()).stdout
    assert re.search(r"<body[^>]*data-pwned", dom)


def test_page_shows_plots_and_escaped_text(page, tmp_path):
    proc = _chromium(tmp_path, "--dump-dom", page.as_uri())
    dom = proc.stdout
    assert "chromium check" in dom, proc.stderr[-2000:]
    assert not re.search(r"<body[^>]*data-pwned", dom)  # nothing injected ran
    assert "<title>pwned</title>" not in dom and "<title>chromium check</title>" in dom
    assert "&lt;script&gt;document.body.setAttribute" in dom  # shown as text
    assert len(re.findall(r"<svg[^>]*class=\"map\"", dom)) == 2
    assert dom.count("<circle") == 480
    assert len(re.findall(r"<rect[^>]*class=\"bar\"", dom)) >= 4
    assert "memories both would merge" in dom


def test_screenshot_is_not_blank(page, tmp_path):
    pil = pytest.importorskip("PIL.Image", reason="Pillow is needed to read the screenshot")
    shot = tmp_path / "shot.png"
    proc = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,1600", page.as_uri())
    assert shot.exists(), proc.stderr[-2000:]
    img = pil.open(shot).convert("RGB")
    arr = np.asarray(img)
    non_white = (arr.sum(axis=2) < 720).mean()
    colours = len(np.unique(arr.reshape(-1, 3)[::7], axis=0))
    assert non_white > 0.02, non_white  # text and plots, not an empty page
    assert colours > 20, colours  # the cluster palette shows up


def test_real_run_report_in_chromium(tmp_path):
    """End to end: a dry run over a store holding a hostile memory, rendered and loaded."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_job import cfg, pool

    from memmaint.maintenance.core.records import Memory
    from memmaint.maintenance.job.run import run_job, shadow_comparison
    from memmaint.maintenance.report.html import report_outcomes
    from memmaint.maintenance.store.sqlite import SQLiteStore

    evil = [Memory(text=PAYLOAD, id=f"evil-{i}", namespace="ns") for i in range(3)]
    with SQLiteStore(tmp_path / "s.db") as store:
        store.add_memories(pool() + evil)
        report = run_job(store, cfg(), dry_run=True,
                         shadow=cfg(clustering__hdbscan__min_cluster_size=3))
    assert any(d.memory_id.startswith("evil-") for d in report.primary.decisions)
    page = tmp_path / "run.html"
    page.write_text(render_html(report_outcomes(report), title="real run",
                                comparison=shadow_comparison(report), report=report),
                    encoding="utf-8")
    dom = _chromium(tmp_path, "--dump-dom", page.as_uri()).stdout
    assert "<title>real run</title>" in dom
    assert not re.search(r"<body[^>]*data-pwned", dom)
    assert "&lt;script&gt;document.body.setAttribute" in dom
    assert len(re.findall(r"<svg[^>]*class=\"map\"", dom)) == 2
    assert dom.count("<circle") == 2 * 21  # every memory on both maps
