"""The comparison view of index.html, clicked through in headless Chromium (selenium + chromedriver):
the verdict grid (an implementation per row), the clause matrix's filters (spec, level, outcome, only where implementations
differ), two implementations side by side, a cell's evidence, and the OpenMessaging header table.

Chromium, chromedriver (Debian chromium, chromium-driver) and selenium (PyPI) come from
scripts/bootstrap.sh; without them the test is skipped, and fails under CI=true. With
MQCONFORM_SCREENSHOTS=DIR it leaves its screenshots in DIR.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from comparedata import BUG, write

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")


def _browser():
    missing = [n for n, p in (("chromium", CHROMIUM), ("chromedriver (Debian chromium-driver)", CHROMEDRIVER)) if not p]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip)")
    if missing:
        why = f"the comparison view test needs {', '.join(missing)}: bash scripts/bootstrap.sh installs them"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM   # both paths given: selenium never looks for a driver online
    profile = tempfile.mkdtemp(prefix="mqconform-chromium-")
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1400,1000"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=opts, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    return driver, profile


@pytest.fixture(scope="module")
def page(spark, tmp_path_factory):
    from reports.engine import build

    d = tmp_path_factory.mktemp("compare")
    results, clauses, expectations = write(d / "in")
    assert build.run([str(results)], str(d / "site"), clause_dir=str(clauses), spark=spark,
                     expectations=[str(expectations)]) == 0
    driver, profile = _browser()
    try:
        driver.get((d / "site" / "index.html").as_uri())
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def shot(driver, name: str) -> None:
    where = os.environ.get("MQCONFORM_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(where) / f"{name}.png"))


def visible_clauses(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    return [r.get_attribute("data-clause") for r in driver.find_elements(By.CSS_SELECTOR, "#matrix tr.clause")
            if r.is_displayed()]


def choose(driver, element_id: str, value: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, element_id)).select_by_value(value)


def test_the_comparison_view_clicked_through(page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    d = page
    assert d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1"
    all_five = ["ce-amqp/3.1/prefix", "ce-amqp/3.2/type", "ce-amqp/3.3/ttl", "openmessaging/header/message-id",
                "openmessaging/header/store-host"]

    # The verdict grid: an implementation per row, a spec per column; a spec an implementation did not run is "·".
    grid = {(td.get_attribute("data-spec"), td.get_attribute("data-impl")): td.text
            for td in d.find_elements(By.CSS_SELECTOR, "#verdict-grid td.v")}
    assert [tr.get_attribute("data-impl") for tr in d.find_elements(By.CSS_SELECTOR, "#verdict-grid tr[data-impl]")] \
        == ["broker-a", "broker-b", "codec-c"]
    # A broker has no OpenMessaging verdict (docs/verdicts.md): its rows there (schema 2) stay in the matrix.
    assert grid == {("ce-amqp 1.0.3-wip", "broker-a"): "incomplete", ("ce-amqp 1.0.3-wip", "broker-b"): "NOT conformant",
                    ("ce-amqp 1.0.3-wip", "codec-c"): "conformant"}
    shot(d, "1-verdict-grid")
    assert visible_clauses(d) == all_five
    assert d.find_element(By.ID, "shown").text == "showing 5 of 5 clauses"

    # A grid cell filters the matrix to its spec.
    d.find_element(By.CSS_SELECTOR, '#verdict-grid td.v[data-spec="ce-amqp 1.0.3-wip"][data-impl="broker-a"] a').click()
    assert visible_clauses(d) == ["ce-amqp/3.1/prefix", "ce-amqp/3.2/type", "ce-amqp/3.3/ttl"]
    choose(d, "f-spec", "")
    # Level, outcome, and only where the implementations that ran a clause differ.
    choose(d, "f-level", "SHOULD")
    assert visible_clauses(d) == ["ce-amqp/3.3/ttl"]
    choose(d, "f-level", "")
    choose(d, "f-outcome", "fail")
    assert visible_clauses(d) == ["ce-amqp/3.1/prefix", "openmessaging/header/store-host"]
    choose(d, "f-outcome", "")
    d.find_element(By.ID, "f-differ").click()
    assert visible_clauses(d) == ["ce-amqp/3.1/prefix"]
    shot(d, "2-only-differences")
    d.find_element(By.ID, "f-differ").click()

    # Two implementations side by side: the third column hides, and the differences are counted.
    choose(d, "sbs-a", "broker-a")
    choose(d, "sbs-b", "broker-b")
    heads = [th.text for th in d.find_elements(By.CSS_SELECTOR, "#matrix th[data-impl]") if th.is_displayed()]
    assert heads == ["broker-a", "broker-b"]
    assert d.find_element(By.ID, "sbs-note").text == "broker-a and broker-b differ on 1 of the 4 clauses both ran"
    outlined = [td.find_element(By.XPATH, "..").get_attribute("data-clause")
                for td in d.find_elements(By.CSS_SELECTOR, "#matrix td.c.differs")]
    assert outlined == ["ce-amqp/3.1/prefix", "ce-amqp/3.1/prefix"]

    # A cell opens its evidence: the clause's quote, and both implementations' vectors with the deciding step,
    # expected against observed, and the known deviation with its bug report.
    panel = d.find_element(By.ID, "evidence")
    assert not panel.is_displayed()
    d.find_element(By.CSS_SELECTOR, '#matrix tr[data-clause="ce-amqp/3.1/prefix"] td[data-impl="broker-b"] a').click()
    assert panel.is_displayed()
    assert d.find_element(By.ID, "ev-title").text == "ce-amqp/3.1/prefix (MUST)"
    assert d.find_element(By.ID, "ev-quote").text == "CloudEvent attributes MUST be prefixed with cloudEvents_."
    cols = d.find_elements(By.CSS_SELECTOR, "#ev-cols > div")
    assert [c.find_element(By.CSS_SELECTOR, "h4").text.split(":")[0] for c in cols] == ["broker-a", "broker-b"]
    b = cols[1]
    assert b.find_element(By.CSS_SELECTOR, ".step").text == "decided by step 2 send, a check judging ce-amqp/3.1/prefix"
    assert b.find_element(By.CSS_SELECTOR, ".xo").text == "expected cloudEvents_id, observed id <unprefixed> & bare"
    link = b.find_element(By.CSS_SELECTOR, ".known a.bug")
    assert link.get_attribute("href") == BUG and "broker-b drops the cloudEvents_ prefix" in b.text
    assert "pass" in cols[0].find_element(By.CSS_SELECTOR, ".ev-card").text
    shot(d, "3-side-by-side-evidence")
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    assert not panel.is_displayed()

    # Without a pair chosen, a cell's evidence is that implementation's alone.
    choose(d, "sbs-b", "")
    d.find_element(By.CSS_SELECTOR, '#matrix tr[data-clause="openmessaging/header/store-host"] td[data-impl="broker-a"] a').click()
    cols = d.find_elements(By.CSS_SELECTOR, "#ev-cols > div")
    assert len(cols) == 1 and "no native field: AMQP brokers record no store host" in cols[0].text
    assert "expected a STORE_HOST, observed none" in cols[0].find_element(By.CSS_SELECTOR, ".xo").text
    d.find_element(By.ID, "ev-close").click()
    assert not panel.is_displayed()

    # The OpenMessaging header table: native, set by the mapping, absent.
    table = {(tr.get_attribute("data-header"), td.get_attribute("data-impl")): td.text
             for tr in d.find_elements(By.CSS_SELECTOR, "#header-support-table tr[data-header]")
             for td in tr.find_elements(By.CSS_SELECTOR, "td[data-impl]")}
    assert table == {("messageId", "broker-a"): "set by the mapping", ("messageId", "broker-b"): "native",
                     ("storeHost", "broker-a"): "absent", ("storeHost", "broker-b"): "absent"}
    d.execute_script("document.getElementById('header-support').scrollIntoView()")
    shot(d, "4-header-support")
    assert [e for e in d.get_log("browser") if e["level"] in ("SEVERE", "WARNING")] == []
