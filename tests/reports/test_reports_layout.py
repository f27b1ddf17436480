"""index.html on a 1400 px screen, in headless Chromium: no view wider than the page, and the first screen
opens on Compare brokers. Over a run wider than the main job's (36 implementations, 10 brokers, long
names and unbroken ids), rendered without Spark; with MQCONFORM_REPORT_HTML=PATH, over that page too (a
built report: `reports build ... --out DIR`, then DIR/index.html). Screenshots of the first screen and of
the comparison go to MQCONFORM_SCREENSHOTS (default: the test's temporary folder).

The page is measured by a script added to a copy of it (the page's policy allows inline scripts only),
which writes what it found into the DOM that `chromium --dump-dom` prints.
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reports.render import outputs
from reports.views import model

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="the layout check needs Chromium: apt-get install -y chromium (Debian package `chromium`)")
WIDTH, HEIGHT = 1400, 1000
# The page's main views, by section id: none may be wider than the page.
MAIN_VIEWS = ("compare-brokers", "comparison", "client-libraries", "reference", "verdicts", "compliance-matrix", "faults",
              "two-clients", "broker-profiles", "measurements", "across-versions", "fails-in-one", "clauses",
              "header-support")

PROBE = """<script>
window.addEventListener('load', function(){
  var doc = document.documentElement, vw = doc.clientWidth, wide = [];
  document.querySelectorAll('main section > table, main section > details > table, main section table.brokers,'
                            + ' main section > div, main section svg').forEach(function(t){
    var r = t.getBoundingClientRect();
    if(r.width > 0 && r.right > vw + 1)
      wide.push({section: (t.closest('section') || {}).id, tag: t.tagName, id: t.id, right: Math.round(r.right)});
  });
  var first = document.getElementById('brokers');
  var out = {viewport: vw, scroll: doc.scrollWidth, wide: wide,
             brokers_top: first ? Math.round(first.getBoundingClientRect().top) : null,
             sections: Array.prototype.map.call(document.querySelectorAll('main > section'), function(s){ return s.id; })};
  var pre = document.createElement('pre'); pre.id = 'layout-probe'; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def chromium(*args: str, timeout: int = 180) -> subprocess.CompletedProcess:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
           "--disable-dev-shm-usage", "--run-all-compositor-stages-before-draw", "--virtual-time-budget=8000", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def measure(page: Path, tmp: Path) -> dict:
    probe = tmp / f"probe-{page.parent.name}.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = chromium(f"--user-data-dir={tmp / 'profile'}", f"--window-size={WIDTH},{HEIGHT}", "--dump-dom",
                   probe.as_uri()).stdout
    found = re.search(r'<pre id="layout-probe">([^<]*)</pre>', dom)
    assert found, "the probe did not run"
    return json.loads(html.unescape(found.group(1)))


def screenshots(page: Path, tmp: Path, where: Path, tag: str) -> list[Path]:
    """The first screen, and the page from its top down to the end of the comparison (a taller window)."""
    where.mkdir(parents=True, exist_ok=True)
    shots = [(where / f"{tag}first-screen.png", HEIGHT), (where / f"{tag}compare-brokers.png", 2200)]
    for path, height in shots:
        chromium(f"--user-data-dir={tmp / 'profile'}", f"--window-size={WIDTH},{height}", f"--screenshot={path}",
                 page.as_uri())
    return [p for p, _ in shots]


def check(got: dict) -> None:
    assert got["scroll"] <= got["viewport"], f"the page scrolls sideways: {got['scroll']} px for {got['viewport']}"
    wide = [w for w in got["wide"] if w["section"] in MAIN_VIEWS]
    assert wide == [], f"wider than the page: {wide}"
    assert got["sections"][0] == "compare-brokers"
    assert got["brokers_top"] is not None and got["brokers_top"] < HEIGHT / 2     # the first screen compares brokers


def wide_run() -> model.Aggregates:
    """10 brokers of 6 products (a Go pseudo-version, a variant), a reference mapping over each on two protocols,
    codecs and client libraries: 36 implementations; every one with a cell in each of 12 clauses, messages
    with long unbroken tokens; profiles, faults, header sources, measurements, and rows judged by two clients."""
    brokers = [("artemis", "2.56.0", ""), ("activemq", "5.18.3", ""), ("garagemq", "0.0.0-20230728112533-54a6ccf403f9", ""),
               ("qpid-broker-j", "9.2.1", ""), ("rabbitmq", "3.10.8", ""), ("rabbitmq", "4.0.5", ""),
               ("rabbitmq", "4.0.5", "address-v1-denied"), ("rabbitmq", "4.3.6", ""), ("rocketmq", "5.3.3", ""),
               ("rocketmq", "5.5.0", "")]
    idents = []
    for product, version, variant in brokers:
        name = f"{product}-{version}" + (f"+{variant}" if variant else "")
        idents.append({"name": name, "kind": "broker", "role": "product", "version": version,
                       "provenance": {"product": product, "version": version, "variant": variant}})
        for proto in ("amqp091", "amqp10"):
            idents.append({"name": f"mqconform-om/{proto}@{name}", "kind": "provider", "role": "reference",
                           "version": "0.1.0+g4108b74", "provenance": {"broker": name, "broker_product": product,
                                                                       "broker_version": version, "broker_variant": variant,
                                                                       "protocol": proto}})
    idents += [{"name": n, "kind": k, "role": "product", "version": "1.0", "provenance": {}}
               for n, k in (("cloudevents-sdk-python", "codec"), ("cloudevents-sdk-java", "codec"),
                            ("cloudevents-sdk-go", "codec"), ("rabbitmq-amqp-java-client", "client-library"),
                            ("rabbitmq-amqp-python-client", "client-library"))]
    idents.append({"name": "mqconform-reference", "kind": "codec", "role": "reference", "version": "0.1.0", "provenance": {}})
    outcomes = ("pass", "fail", "xfail", "unsupported", "not_applicable", "error", "xpass")
    cells, counts, profile, faults, headers = [], [], [], [], []
    for n, i in enumerate(idents):
        for c in range(12):
            o = outcomes[(n + c) % len(outcomes)]
            msg = f"v{c}: expected {'x' * 90} got urn:mqconform:{i['name']}:" + "y" * 120
            cells.append({"spec": "acme-spec", "spec_revision": "1.0", "clause_id": f"acme-spec/section-{c}/a-long-clause-name",
                          "impl": i["name"], "worst": o, "counts": {o: 1}, "levels": ["MUST"],
                          "vectors": [{"vector_id": f"acme.v{c}", "test_id": f"suites/t.py::test[acme.v{c}::{i['name']}]",
                                       "level": "MUST", "outcome": o, "clause_outcome": o, "expected_outcome": "pass",
                                       "message": msg, "failed_step": None, "error_kind": None, "notes": [msg],
                                       "protocol": "amqp10"}]})
        counts.append({"impl": i["name"], "spec": "acme-spec", "spec_revision": "1.0", "level": "MUST",
                       "outcome": outcomes[n % 3], "n": 1})
        prov = i["provenance"]
        if i["kind"] == "provider":
            for q in range(20):
                profile.append({"broker": prov["broker"], "protocol": prov["protocol"], "requirement": f"requirement-{q}",
                                "status": ("native", "emulated", "absent", "unknown")[(n + q) % 4], "n": 1,
                                "impl": i["name"], "role": "reference", "vector_id": f"om.r{q}",
                                "evidence": f"requirement-{q} over {prov['protocol']} on {prov['broker']}: " + "z" * 100})
            headers += [{"impl": i["name"], "header": f"header{h}", "sources": ["mapping" if h % 2 else "broker"]}
                        for h in range(8)]
            t = {"fault": "kill", "sent": 20, "confirmed": 20, "delivered": 19, "lost": 1, "duplicated": 0,
                 "lost_ids": ["m07"], "duplicated_ids": []}
            faults.append({"impl": i["name"], "kind": "provider", "role": "reference", "broker": prov["broker"],
                           "protocol": prov["protocol"], "vector_id": "openmessaging.faults.at-least-once.kill",
                           "test_id": f"t[{i['name']}]", "outcome": "fail", "expected_outcome": "pass",
                           "message": "1 lost " + "w" * 150, "tally": t})
    witness_rows = [_witness_row(i, c) for i in idents if i["kind"] == "broker" for c in range(3)]
    runs = [{"impl": i["name"], "run_id": "r" * 32, "run_started": "2026-11-29T10:00:00Z", "run_us": 1,
             "kind": i["kind"], "version": i["version"], "vectors_digest": "d", "suite_version": "0.1.0",
             "counts": {"pass": 1}} for i in idents]
    return model.Aggregates(runs=runs, cells=cells, level_counts=counts, profile_rows=profile, fault_rows=faults,
                            header_sources=headers, witness_rows=witness_rows,
                            identities=[{"impl": i["name"], "implementation": i} for i in idents])


def _witness_row(ident: dict, c: int) -> dict:
    """A row of a broker run again through the second client: the clients disagree on one, the second meets its
    limit on one, both saw the third; long accounts with unbroken tokens."""
    rule = ("disagree", "second-limit", "both-saw")[c]
    saw = "the message was still on queue urn:mqconform:" + "q" * 110 + " after the settle of step 4"
    first = {"client": "python-qpid-proton 0.40.0 (qpid-proton-c 0.40.0)", "outcome": "fail" if c == 0 else "pass",
             "error_kind": None, "step": 4 if c == 0 else None,
             "clause_ids": [f"acme-spec/section-{c}/a-long-clause-name"] if c == 0 else [], "saw": saw if c == 0 else "",
             "unseen": []}
    second = {"client": "go-amqp 0.17.0 (go1.23.4 linux/amd64)", "outcome": ("pass", "limit", "pass")[c], "error_kind": None,
              "step": 6 if c == 1 else None, "clause_ids": [], "saw": saw if c == 1 else "",
              "unseen": ["step 2: go-amqp 0.17.0 does not say which of accepted, released, modified settled the send"]}
    return {"impl": ident["name"], "kind": "broker", "role": "product", "spec": "acme-spec", "spec_revision": "1.0",
            "vector_id": f"acme.v{c}.a-rather-long-vector-name-of-the-address-suite", "test_id": f"t[{ident['name']}]",
            "outcome": "error" if c == 0 else "pass", "clause_ids": [f"acme-spec/section-{c}/a-long-clause-name"],
            "witnesses": {"rule": rule, "why_second": "the outcome depends on client behaviour", "accounts": [first, second]}}


def wide_measurements() -> dict:
    from fixtures.measurements.tables import crossproto_tables, transit_tables

    targets = ["artemis-2.56.0", "rabbitmq-3.10.8", "rabbitmq-4.0.5+address-v1-denied", "garagemq-0.0.0-20230728112533-54a6ccf403f9"]
    transit = [{"target": t, "spec": s, "protocol": "amqp10", "vector_id": f"{s}.v{k}", "sent": True, "delivered": True,
                "changes": ["header order " + "q" * 120] if k == 0 else [], "satisfies_vector": k != 0}
               for t in targets for s in ("ce-amqp", "ce-rabbitmq") for k in range(3)]
    crossing = [{"target": "rabbitmq-3.10.8", "direction": d, "mode": m, "vector_id": "v", "delivered": True, "body": "kept",
                 "content_type": "kept", "fields": {"cloudEvents_id": "lost"}, "event_equal": m == "structured"}
                for d in ("amqp10->amqp091", "amqp091->amqp10") for m in ("binary", "structured")]
    return {"transit": transit_tables(transit), "cross_protocol": crossproto_tables(crossing)}


@needs_chromium
def test_no_view_is_wider_than_a_1400_px_screen_and_the_first_screen_compares_brokers(tmp_path):
    report = model.build_report(wide_run(), {}, generated="2026-11-29T10:00:00Z", measurements=wide_measurements())
    assert len(report["implementations"]) == 36 and len(report["compare_brokers"]["columns"]) == 10
    assert report["two_clients"]["disagreements"] == 10 and len(report["two_clients"]["lines"]) == 30   # shown open
    out = tmp_path / "wide"
    outputs.write_outputs(report, out)
    check(measure(out / "index.html", tmp_path))
    where = Path(os.environ.get("MQCONFORM_SCREENSHOTS") or tmp_path / "shots")
    for shot in screenshots(out / "index.html", tmp_path, where, "wide-"):
        assert shot.stat().st_size > 10_000
    # a cell's evidence inside collapsed blocks: following its link opens them
    cell = next(r for g in report["compare_brokers"]["groups"] if g["id"] == "openmessaging"
                for r in g["rows"])["cells"]["rabbitmq-4.0.5"]
    dom = chromium(f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={WIDTH},{HEIGHT}", "--dump-dom",
                   (out / "index.html").as_uri() + cell["evidence"]).stdout
    assert re.search(r'<details class="profile" id="profile-rabbitmq-4.0.5"[^>]* open', dom)


@needs_chromium
@pytest.mark.skipif(not os.environ.get("MQCONFORM_REPORT_HTML"),
                    reason="MQCONFORM_REPORT_HTML names no built report page (e.g. OUT/report/index.html of a main run)")
def test_a_built_report_fits_the_screen_too(tmp_path):
    page = Path(os.environ["MQCONFORM_REPORT_HTML"])
    check(measure(page, tmp_path))
    where = Path(os.environ.get("MQCONFORM_SCREENSHOTS") or tmp_path / "shots")
    for shot in screenshots(page, tmp_path, where, ""):
        assert shot.stat().st_size > 10_000
