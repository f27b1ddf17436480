"""index.html in a real browser: headless Chromium, offline, no console errors."""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless check needs Chromium: apt-get install -y chromium (Debian package `chromium`)")


def load(url: str, profile) -> tuple[str, list[str]]:
    """The DOM after scripts ran, and the console lines Chromium logged."""
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
           "--virtual-time-budget=2000", "--dump-dom", url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console


@needs_chromium
def test_report_loads_without_console_errors(built, tmp_path):
    out, report = built
    dom, console = load((out / "index.html").as_uri() + "#clause-ce-amqp-3.1-prefix", tmp_path / "profile")
    assert console == []
    assert 'data-ready="1"' in dom                       # the inline script ran to its end
    matrix = re.search(r'<table id="matrix">.*?</table>', dom, re.S).group(0)
    assert len(re.findall(r'<tr class="clause"', matrix)) == len(report["matrix"]) == 5
    assert re.search(r'data-clause="ce-amqp/3.3/ttl".*?class="c o-fail"', matrix, re.S)
    # The hash opened the clause's drill-down.
    assert re.search(r'<details id="clause-ce-amqp-3.1-prefix"[^>]* open', dom)
    assert 'gamma &lt;i&gt;&amp;co "x"' in dom          # escaped, not turned into markup
    assert "<i>&amp;co" not in dom
    assert dom.count("<svg") >= 2                         # the two charts


@needs_chromium
def test_console_errors_are_seen(tmp_path):
    """Guards the check above: a page with a script error must show up in the console lines."""
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><body><script>nope();</script></body></html>")
    _, console = load(page.as_uri(), tmp_path / "profile")
    assert any("nope" in line for line in console)
