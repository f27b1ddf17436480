"""Compare brokers (reports/views/compare_brokers.py) over a small run (brokersdata.py): the columns, each group's
cells and their evidence, the reference implementations kept apart, and its rendering in index.html,
summary.md and compliance.json. Plain Python; the measurements beside a results file (reports/views/measurements.py)
read from files. The page in a browser: test_reports_layout.py."""
from __future__ import annotations

import json
import re

import brokersdata as B

from fixtures.measurements.tables import transit_tables
from reports.render import render_html, render_md
from reports.views import compare_brokers, measurements


def cells(rep, group):
    g = next(g for g in rep["compare_brokers"]["groups"] if g["id"] == group)
    return {r["label"]: {b: c["text"] for b, c in r["cells"].items()} for r in g["rows"]}


def test_a_column_per_broker_products_only_a_variant_after_its_version():
    cols = B.report()["compare_brokers"]["columns"]
    assert [c["broker"] for c in cols] == ["acme-1.0", "acme-2.0", "acme-2.0+fast", "zeta-3.0"]
    fast = cols[2]
    assert (fast["version"], fast["variant"], fast["configuration"]) == ("2.0", "fast", ["fast.path = on (the fast half)"])
    # neither codec nor any provider is a column; the providers' brokers are
    assert not {"mqconform-reference", "acme-codec", "mqconform-om/amqp091@acme-2.0"} & {c["broker"] for c in cols}


def test_cloudevents_through_the_broker_and_across_protocols():
    rep = B.report()
    assert cells(rep, "cloudevents") == {"ce-amqp over amqp10": {"acme-1.0": "1/2 kept", "acme-2.0": "kept"},
                                         "ce-zeta over zeta-wire": {"zeta-3.0": "1/2 kept"}}
    row = next(g for g in rep["compare_brokers"]["groups"] if g["id"] == "cloudevents")["rows"][1]
    assert row["cells"]["zeta-3.0"]["status"] == "lost" and "ce.y not delivered: refused" in row["cells"]["zeta-3.0"]["detail"]
    assert cells(rep, "cross-protocol") == {"amqp10->amqp091, binary: the attributes": {"acme-2.0": "1 changed"},
                                            "amqp10->amqp091, structured: the event": {"acme-2.0": "readable"}}
    binary = next(g for g in rep["compare_brokers"]["groups"] if g["id"] == "cross-protocol")["rows"][0]
    assert "timestamp truncated to whole seconds: 1" in binary["cells"]["acme-2.0"]["detail"]


def test_a_cross_protocol_cell_reads_what_was_lost_changed_or_kept():
    t = {"mode": "binary", "messages": 7, "delivered": 7, "body_kept": 7, "content_type_kept": 7,
         "fields_kept": 0, "fields_changed": 0, "fields_lost": 41, "events_equal": 0}
    assert compare_brokers.crossing_cell(t) == ("all lost", "lost")
    assert compare_brokers.crossing_cell({**t, "fields_kept": 41, "fields_lost": 0}) == ("kept", "kept")
    assert compare_brokers.crossing_cell({**t, "delivered": 1}) == ("1/7 delivered", "lost")
    s = {**t, "mode": "structured"}
    assert compare_brokers.crossing_cell({**s, "events_equal": 6}) == ("6/7 readable", "changed")
    assert compare_brokers.crossing_cell(s) == ("not readable", "lost")


def test_the_specs_about_brokers_only_where_one_applies():
    # acme-old applies to no broker (every row not_applicable): no row
    assert cells(B.report(), "broker-specs") == {"acme-address@2.0": {
        "acme-1.0": "n/a", "acme-2.0": "conformant", "acme-2.0+fast": "conformant", "zeta-3.0": "n/a"}}


def test_the_openmessaging_profile_across_protocols_and_configurations():
    got = cells(B.report(), "openmessaging")
    assert got["the product's own provider (its verdict)"] == {"zeta-3.0": "NOT conformant"}
    # native over amqp10, emulated over amqp091: the strongest, marked
    assert got["expedited messages go first"] == {"acme-2.0": "native*", "acme-2.0+fast": "not observed",
                                                  "zeta-3.0": "native"}
    # the variant observed natively what its version did not: both say configured, the version saying so
    assert got["the server stamps a stored message"] == {"acme-2.0": "configured", "acme-2.0+fast": "configured",
                                                         "zeta-3.0": "not observed"}
    rep = B.report()
    row = next(r for g in rep["compare_brokers"]["groups"] for r in g["rows"] if r["id"] == "openmessaging store-timestamp")
    assert "in the default configuration: absent" in row["cells"]["acme-2.0"]["detail"]
    assert "fast.path = on" in row["cells"]["acme-2.0"]["detail"]
    assert row["cells"]["acme-2.0"]["evidence"] == "#profile-acme-2.0-fast-store-timestamp"


def test_faults_per_fault_summed_per_broker_and_said_when_the_run_had_none():
    assert cells(B.report(), "faults") == {"at-least-once / kill": {"acme-2.0": "12 lost", "zeta-3.0": "kept"},
                                           "at-most-once / restart": {"acme-2.0": "1 dup"}}
    [faults] = [g for g in B.report(with_faults=False)["compare_brokers"]["groups"] if g["id"] == "faults"]
    assert faults["rows"] == [] and "unless told --no-faults" in faults["empty"]


def test_versions_against_the_version_before():
    assert cells(B.report(), "versions") == {
        "against the version before (+ now pass, − now fail, ~ other changes)":
            {"acme-1.0": "—", "acme-2.0": "+1 −1", "acme-2.0+fast": "+1"}}


def test_reference_implementations_in_a_table_of_their_own():
    rep = B.report()
    ref = rep["compare_brokers"]["reference"]
    assert [r["label"] for r in ref["rows"]] == ["mqconform-om/amqp091 on openmessaging", "mqconform-om/amqp10 on openmessaging"]
    assert set(ref["rows"][0]["cells"]) == {"acme-2.0", "acme-2.0+fast"}
    assert [o["implementation"] for o in ref["others"]] == ["mqconform-reference"]
    brokers_table = [r for g in rep["compare_brokers"]["groups"] for r in g["rows"]]
    assert not any("mqconform" in r["label"] for r in brokers_table)


def test_without_measurements_the_groups_say_not_measured():
    groups = {g["id"]: g for g in B.report(with_measurements=False)["compare_brokers"]["groups"]}
    assert groups["cloudevents"]["rows"] == [] and groups["cloudevents"]["empty"].startswith("Not measured")
    assert groups["cross-protocol"]["rows"] == []


def test_index_html_every_cell_links_to_an_element_of_the_page():
    rep = B.report()
    page = render_html.render(rep)
    section = page.split('<section id="compare-brokers">')[1].split("</section>")[0]
    links = set(re.findall(r'href="#([^"]+)"', section))
    every = re.findall(r' id="([^"]+)"', page)
    ids = set(every)
    assert links and links <= ids, links - ids
    assert len(every) == len(ids), sorted(i for i in ids if every.count(i) > 1)     # an id names one element
    # the first section of the page, before the verdict grids
    assert page.index('id="compare-brokers"') < page.index('id="comparison"') < page.index('id="compliance-matrix"')
    assert '<th colspan="3">acme</th><th colspan="1">zeta</th>' in section
    assert 'data-broker="acme-2.0" data-status="configured"' in section
    assert 'id="transit-acme-1.0"' in page and "header order" in page      # the measurement's evidence


def test_summary_md_has_the_comparison_with_its_links_and_leaves_the_rest_to_index_html():
    md = render_md.render(B.report())
    assert "## Compare brokers" in md and md.index("## Compare brokers") < md.index("## Verdicts")
    assert "| ce-amqp over amqp10 | [1/2 kept][e1] | [kept][e2] | · | · |" in md
    assert "[e1]: index.html#transit-acme-1.0" in md
    # one link per broker's profile, not per requirement
    assert "index.html#profile-acme-2.0\n" in md + "\n" and "#profile-acme-2.0-priority" not in md
    assert "### Reference implementations over these brokers" in md
    for gone in ("## OpenMessaging broker profile", "## Across versions", "## Faults", "## Latest runs"):
        assert gone not in md
    assert "mqconform-om/amqp091@acme-2.0 |" not in md.split("## Verdicts")[1]   # references are not among products


def test_compliance_json_has_the_view_after_the_verdicts():
    rep = json.loads(json.dumps(B.report()))
    keys = list(rep)
    assert keys.index("compare_brokers") == keys.index("without_verdict") + 1
    assert rep["measurements"]["transit"][0]["target"] == "acme-1.0"
    assert rep["compare_brokers"]["groups"][0]["rows"][0]["cells"]["acme-2.0"] == {
        "text": "kept", "status": "kept", "evidence": "#transit-acme-2.0",
        "detail": "2 message(s): 2 delivered, 2 unchanged, 2 still satisfy the vector"}


def test_measurements_are_read_from_beside_the_results_the_newest_run_per_target(tmp_path):
    results = tmp_path / "results.jsonl"
    results.write_text("")
    old = [{**r, "run_id": "old", "changes": ["x"], "satisfies_vector": False} for r in B.transit_rows()[:2]]
    lines = [json.dumps(r) for r in old + B.transit_rows()] + ['{"target": "acme-9.9", "torn']
    (tmp_path / "results.transit.jsonl").write_text("\n".join(lines))
    (tmp_path / "results.cross-protocol.jsonl").write_text("\n".join(json.dumps(r) for r in B.crossing_rows()) + "\n")
    found = measurements.beside([str(results), str(tmp_path / "absent.jsonl"), "hdfs://nn/results.jsonl"])
    assert found == {"transit": [tmp_path / "results.transit.jsonl"],
                     "cross_protocol": [tmp_path / "results.cross-protocol.jsonl"]}
    got = measurements.load(found)
    assert got == B.measurements()                        # the old run's rows of acme-1.0 left out, the torn line too
    assert measurements.load(measurements.beside([str(tmp_path / "nothing.jsonl")])) == measurements.EMPTY


def test_the_tables_are_those_of_the_files_beside_the_results():
    [acme1, acme2, zeta] = transit_tables(B.transit_rows())
    assert (acme1["messages"], acme1["delivered"], acme1["unchanged"], acme1["satisfying"]) == (2, 2, 1, 1)
    assert zeta["not_delivered"] == [{"vector_id": "ce.y", "why": "refused"}]
