"""The review page in headless Chromium, driven by selenium: reject one action, approve the
rest, download decisions.json, and ``memmaint apply`` changes exactly those.

Skips with a reason only when Chromium, its driver or selenium is missing (Debian:
``apt-get install -y chromium chromium-driver``; ``pip install selenium``, in the dev extra).
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest

from memmaint.maintenance.review.planfile import PlanFile, changing_actions

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from test_review import planned, snapshot  # noqa: F401 - the fixture is used by name

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
except ImportError:  # pragma: no cover - depends on the environment
    webdriver = None

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium not installed "
                       "(Debian: apt-get install -y chromium chromium-driver)"),
    pytest.mark.skipif(DRIVER is None, reason="chromedriver not installed "
                       "(Debian: apt-get install -y chromium-driver)"),
    pytest.mark.skipif(webdriver is None, reason="selenium not installed (the dev extra)"),
]


@pytest.fixture
def browser(tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--user-data-dir={tmp_path / 'profile'}"):
        opts.add_argument(arg)
    opts.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                           "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.execute_cdp_cmd("Page.setDownloadBehavior",
                           {"behavior": "allow", "downloadPath": str(downloads)})
    try:
        yield driver, downloads
    finally:
        driver.quit()


def test_review_in_chromium_then_apply_exactly_the_approved(cli, planned, browser,  # noqa: F811
                                                            tmp_path):
    db, _cfg, plan = planned
    driver, downloads = browser
    page = tmp_path / "review.html"
    assert cli("review", plan, "-o", page).exit_code == 0
    pf = PlanFile.load(plan)
    acts = changing_actions(pf.plan)
    assert len(acts) >= 3
    driver.get(page.as_uri())
    assert driver.title.startswith("memmaint review")  # the injected script did not run
    nodes = driver.find_elements(By.CSS_SELECTOR, ".action")
    assert [n.get_attribute("data-key") for n in nodes] == [k for k, _c, _a in acts]
    shown = driver.find_element(By.CSS_SELECTOR, ".action pre").text
    assert "</script><script>" in shown  # memory text shown as text

    # the filters hide what does not match
    types = {a.type for _k, _c, a in acts}
    assert types == {"merge", "evict"}
    kind = Select(driver.find_element(By.ID, "filter-type"))
    kind.select_by_value("evict")
    assert [n.is_displayed() for n in nodes] == [a.type == "evict" for _k, _c, a in acts]
    kind.select_by_value("")
    agent = acts[0][2].agent
    Select(driver.find_element(By.ID, "filter-agent")).select_by_value(agent)
    assert [n.is_displayed() for n in nodes] == [a.agent == agent for _k, _c, a in acts]
    Select(driver.find_element(By.ID, "filter-agent")).select_by_value("")
    assert all(n.is_displayed() for n in nodes)

    rejected_key = acts[1][0]
    target = next(n for n in nodes if n.get_attribute("data-key") == rejected_key)
    target.find_element(By.CSS_SELECTOR, "button.reject").click()
    assert target.get_attribute("data-state") == "rejected"
    driver.find_element(By.ID, "approve-rest").click()
    assert all(n.get_attribute("data-state") == "approved" for n in nodes if n != target)
    driver.find_element(By.ID, "download").click()
    out = downloads / "decisions.json"
    for _ in range(100):
        if out.exists() and out.stat().st_size:
            break
        time.sleep(0.1)
    decisions = json.loads(out.read_text(encoding="utf-8"))
    assert decisions == {"plan_id": pf.plan_id, "rejected": [rejected_key],
                         "approved": [k for k, _c, _a in acts if k != rejected_key],
                         "digests": dict(pf.digests)}  # every decided action, as reviewed

    before = snapshot(db)
    res = cli("apply", plan, "--decisions", out, "--db", db)
    assert res.exit_code == 0, res.output
    after = snapshot(db)
    changed = {m for m in before if after[m] != before[m]}
    expected = {m for k, _c, a in acts if k != rejected_key for m in a.subjects}
    assert changed == expected
    for k, _c, a in acts:
        want = {"merge": "merged", "evict": "evicted"}[a.type] if k != rejected_key else "active"
        assert all(after[m]["status"] == want for m in a.subjects)
