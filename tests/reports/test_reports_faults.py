"""Faults (reports/views/faults.py): the view of rows with a known tally, its rendering, the reading of rows
without one, and both engines giving the same view of the same rows."""
from __future__ import annotations

import json

from parquetdata import write_parquet

from reports.render import render_html, render_md
from reports.rows import validate
from reports.rows.record import tally_of
from reports.views import faults, model

RUN = "f" * 32
LOST = [f"m{i:03d}" for i in range(3, 15)]     # 12 confirmed messages never delivered: more than are named


def tally(fault, sent=20, confirmed=20, delivered=20, lost=(), duplicated_ids=(), duplicated=0):
    return {"fault": fault, "sent": sent, "confirmed": confirmed, "delivered": delivered, "lost": len(lost),
            "duplicated": duplicated, "lost_ids": list(lost), "duplicated_ids": list(duplicated_ids)}


def row(vector, outcome, t, *, broker="acme-2.0", protocol="amqp091", impl=None, role="reference", message=""):
    """One provider row over `broker`: mqconform's mapping (a stand-in) unless `impl` names a product's."""
    name = impl or f"mqconform-om/{protocol}@{broker}"
    prov = {"broker": broker, "broker_product": "acme", "broker_version": "2.0", "protocol": protocol}
    return {"schema_version": 4, "run_id": RUN, "run_started": "2026-11-26T10:00:00Z", "suite_version": "0.1.0",
            "vectors_digest": "d", "spec": "openmessaging", "spec_revision": "0.3.0", "clause_ids": ["om/delivery"],
            "level": "MUST", "clause_outcomes": {"om/delivery": outcome}, "vector_id": vector,
            "test_id": f"suites/openmessaging/test_openmessaging.py::test_vector[{vector}-{protocol}-{broker}]",
            "vector_status": "stable",
            "implementation": {"name": name, "kind": "provider", "version": "0.1.0", "provenance": prov, "role": role},
            "protocol": protocol, "outcome": outcome, "expected_outcome": "pass", "message": message, "notes": [],
            "profile": {}, "tally": t, "started": "2026-11-26T10:00:01Z", "duration_s": 2.0}


def rows():
    """acme-2.0: a loss under a kill (ids named), a duplicate after a restart, a clean pause, and a row of no
    fault vector; zeta-1.0: a product's provider with a clean cut."""
    return [
        row("openmessaging.faults.at-least-once.kill", "fail", tally("kill", confirmed=18, delivered=8, lost=LOST),
            message="openmessaging.faults.at-least-once.kill: 12 confirmed message(s) lost"),
        row("openmessaging.faults.at-most-once.restart", "fail",
            tally("restart", delivered=21, duplicated_ids=["m007"], duplicated=1),
            message="openmessaging.faults.at-most-once.restart: m007 delivered twice"),
        row("openmessaging.faults.exactly-once.pause", "pass", tally("pause")),
        row("openmessaging.system-header.priority", "pass", None),
        row("openmessaging.faults.at-least-once.cut", "pass", tally("cut", sent=10, confirmed=9, delivered=9),
            broker="zeta-1.0", protocol="rocketmq-grpc", impl="zeta-openmessaging-1.0@zeta-1.0", role="product"),
    ]


def fault_rows(rs):
    """What both engines' fault_rows give (reports/engine/aggregate.py), computed by hand."""
    return [{"impl": r["implementation"]["name"], "kind": r["implementation"]["kind"],
             "role": r["implementation"]["role"], "broker": r["implementation"]["provenance"].get("broker"),
             "protocol": r["protocol"], "vector_id": r["vector_id"], "test_id": r["test_id"], "outcome": r["outcome"],
             "expected_outcome": r["expected_outcome"], "message": r["message"], "tally": tally_of(r)}
            for r in rs if r["tally"] is not None]


def report(rs):
    rs = list(rs)
    runs = [{"impl": i, "run_id": RUN, "run_started": "2026-11-26T10:00:00Z", "run_us": 1, "kind": "provider",
             "version": "0.1.0", "vectors_digest": "d", "suite_version": "0.1.0", "counts": {"pass": 1}}
            for i in sorted({r["implementation"]["name"] for r in rs})]
    return model.build_report(model.Aggregates(runs=runs, fault_rows=fault_rows(rs)), {}, generated="now")


def test_one_line_per_fault_row_per_broker_with_its_counts_and_outcome():
    acme, zeta = faults.faults_view(fault_rows(rows()))
    assert acme["broker"] == "acme-2.0" and acme["stand_in"] is True and zeta["stand_in"] is False
    got = [(ln["semantics"], ln["fault"], ln["sent"], ln["confirmed"], ln["delivered"], ln["lost"], ln["duplicated"],
            ln["outcome"]) for ln in acme["lines"]]
    assert got == [("at-least-once", "kill", 20, 18, 8, 12, 0, "fail"),      # SEMANTICS order, not the rows'
                   ("at-most-once", "restart", 20, 20, 21, 0, 1, "fail"),
                   ("exactly-once", "pause", 20, 20, 20, 0, 0, "pass")]   # the row without a tally is no line
    [cut] = zeta["lines"]
    assert (cut["implementation"], cut["protocol"], cut["role"]) == (
        "zeta-openmessaging-1.0@zeta-1.0", "rocketmq-grpc", "product")


def test_lost_ids_are_named_the_first_ones_with_how_many_more():
    acme, _ = faults.faults_view(fault_rows(rows()))
    kill, restart, pause = acme["lines"]
    assert kill["lost_ids"] == LOST[:faults.SHOWN_IDS] and kill["lost_ids_more"] == len(LOST) - faults.SHOWN_IDS
    assert faults.ids_text(kill["lost_ids"], kill["lost_ids_more"]).endswith("m012 … and 2 more")
    assert restart["duplicated_ids"] == ["m007"] and restart["lost_ids"] == [] and restart["duplicated_ids_more"] == 0
    assert pause["lost_ids"] == [] and pause["duplicated_ids"] == []


def test_semantics_come_from_the_fault_family_of_vector_ids():
    assert faults.semantics_of("openmessaging.faults.exactly-once.cut") == "exactly-once"
    assert faults.semantics_of("openmessaging.system-header.durability-survives-restart") is None
    assert faults.semantics_of("openmessaging.faults.x") is None and faults.semantics_of(None) is None
    line = faults.line_of(fault_rows([row("openmessaging.system-header.durability-survives-restart", "pass",
                                          tally("restart"))])[0])
    assert faults.label(line) == "openmessaging.system-header.durability-survives-restart / restart"


def test_the_report_shows_the_faults_in_index_html_compliance_json_and_compare_brokers():
    rep = report(rows())
    assert [b["broker"] for b in rep["faults"]] == ["acme-2.0", "zeta-1.0"]
    md, html = render_md.render(rep), render_html.render(rep)
    # summary.md: per fault and broker, what was lost or duplicated (Compare brokers); the lines in index.html
    assert "| at-least-once / kill | [12 lost][" in md and "| at-most-once / restart | [1 dup][" in md
    assert "## Faults" not in md
    faults_html = html.split('<section id="faults"><h2>Faults</h2>')[1].split("</section>")[0]
    assert "its OpenMessaging broker profile" in faults_html and "stand-in for a provider" in faults_html
    assert '<h3 class="faults" id="faults-acme-2.0" data-broker="acme-2.0">' in faults_html
    assert 'data-vector="openmessaging.faults.at-least-once.kill"' in html and 'data-lost="12"' in html
    assert "m012 … and 2 more" in html and '<a href="#broker-profiles">' in html
    assert ("<td>at-least-once / kill</td><td>20</td><td>18</td><td>8</td><td>12</td><td>0</td>"
            '<td class="o-fail"><b>fail</b>') in faults_html
    assert "<td>at-most-once / restart</td><td>20</td><td>20</td><td>21</td><td>0</td><td>1</td>" in faults_html
    assert "<td>—</td><td>m007</td>" in faults_html
    json.dumps(rep)


def test_without_a_tally_the_view_says_the_run_had_no_fault_vectors_and_names_the_option():
    rep = report([r for r in rows() if r["tally"] is None])
    assert rep["faults"] == []
    html = render_html.render(rep)
    [group] = [g for g in rep["compare_brokers"]["groups"] if g["id"] == "faults"]
    assert group["rows"] == [] and "this run had no fault vectors. The main job (./mqconform run, bash " \
        "scripts/conformance.sh) runs them unless told --no-faults" in group["empty"]
    assert "<code>--no-faults</code>" in html.split('id="faults"')[1].split("</section>")[0]
    assert "<table" not in html.split('id="faults"')[1].split("</section>")[0]


def test_a_tally_that_breaks_its_rules_makes_the_record_invalid():
    good = row("openmessaging.faults.at-least-once.kill", "fail", tally("kill", confirmed=18, delivered=8, lost=LOST))
    assert validate.record_problem(good) is None
    assert validate.record_problem({**good, "tally": None}) is None
    assert validate.record_problem({k: v for k, v in good.items() if k != "tally"}) is None   # schema 3 and older
    bad = {**good, "tally": {**good["tally"], "lost": 3}}
    assert validate.record_problem(bad) == "tally names 12 lost id(s) for 3 lost message(s)"
    _, why = validate.line_problem(json.dumps({**good, "tally": {**good["tally"], "confirmed": 30}}))
    assert why.startswith("tally counts 12 lost of 30 confirmed of 20 sent")


def test_the_duckdb_baseline_reads_rows_without_a_tally_column(tmp_path):
    """A store written before schema 4 has no `tally` column: no fault rows, nothing refused."""
    import duckdb

    from reports.baseline import baseline_duckdb
    from reports.rows.schema import arrow_schema

    schema3 = arrow_schema()
    schema3 = schema3.remove(schema3.get_field_index("tally"))
    folder = write_parquet(rows(), tmp_path / "old", schema3)
    agg = baseline_duckdb.compute(duckdb.connect(), str(folder / "*.parquet"))
    assert agg.fault_rows == [] and len(agg.runs) == 2
    agg = baseline_duckdb.compute(duckdb.connect(), str(write_parquet(rows(), tmp_path / "new") / "*.parquet"))
    assert sorted(faults.line_of(r)["lost"] for r in agg.fault_rows) == [0, 0, 0, 12]


def test_both_engines_give_the_same_view_of_the_same_rows(spark, tmp_path):
    """Spark's build and the DuckDB baseline's, over one Parquet file of the rows, and Spark over the same
    rows as JSON Lines, a schema 3 row without a tally among them."""
    from reports.baseline import baseline_duckdb
    from reports.engine import build

    folder = write_parquet(rows(), tmp_path / "rows")
    empty = tmp_path / "no-clauses"
    empty.mkdir()
    assert build.run([str(folder)], str(tmp_path / "spark"), spark=spark, clause_dir=str(empty), quiet=True) == 0
    duck = baseline_duckdb.build(str(folder / "*.parquet"), str(tmp_path / "duckdb"))
    spark_rep = json.loads((tmp_path / "spark" / "compliance.json").read_text(encoding="utf-8"))
    assert spark_rep["faults"] == json.loads(json.dumps(duck["faults"]))
    assert spark_rep["faults"] == json.loads(json.dumps(report(rows())["faults"]))   # the hand-made aggregate's
    lines = tmp_path / "jsonl"
    lines.mkdir()
    old = {k: v for k, v in row("openmessaging.system-header.priority", "pass", None, broker="zeta-1.0").items()
           if k != "tally"}
    old["schema_version"] = 3
    (lines / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [*rows(), old]), encoding="utf-8")
    assert build.run([str(lines)], str(tmp_path / "spark-json"), spark=spark, clause_dir=str(empty), quiet=True) == 0
    from_json = json.loads((tmp_path / "spark-json" / "compliance.json").read_text(encoding="utf-8"))
    assert from_json["faults"] == spark_rep["faults"]
    assert "m012 … and 2 more" in (tmp_path / "spark" / "index.html").read_text(encoding="utf-8")
