"""Two clients (reports/views/witnesses.py): the view of rows judged by two AMQP 1.0 clients, from their recorded
`witnesses`, its rendering (index.html, summary.md), both engines giving the same view of the same rows; and the
client libraries listed as a group of their own (reports/views/model.py GROUP_ORDER)."""
from __future__ import annotations

import json

from parquetdata import write_parquet

from reports.render import render_html, render_md
from reports.rows.record import witnesses_of
from reports.views import model, witnesses

RUN = "w" * 32
PROTON, GO = "python-qpid-proton 0.40.0", "go-amqp 0.17.0"
SPEC, REV = "rabbitmq-address@4.0", "4.0"


def account(client, outcome, step=None, clauses=(), kind=None, saw="", unseen=()):
    return {"client": client, "outcome": outcome, "error_kind": kind, "step": step, "clause_ids": list(clauses),
            "saw": saw, "unseen": list(unseen)}


def row(vector, outcome, w, *, impl="rabbitmq-4.0.5", kind="broker", clause="rabbitmq-address@4.0/outcomes/a"):
    return {"schema_version": 5, "run_id": RUN, "run_started": "2026-11-29T10:00:00Z", "suite_version": "0.1.0",
            "vectors_digest": "d", "spec": SPEC, "spec_revision": REV, "clause_ids": [clause], "level": "MUST",
            "clause_outcomes": {clause: outcome}, "vector_id": vector,
            "test_id": f"suites/rabbitmq_address/test_address_4_0.py::test_behaviour[{vector}::{impl}]",
            "vector_status": "stable", "failed_step": None, "error_kind": "adapter" if outcome == "error" else None,
            "implementation": {"name": impl, "kind": kind, "version": "4.0.5", "role": "product",
                               "provenance": {"product": "rabbitmq", "version": "4.0.5"}},
            "protocol": "amqp10", "outcome": outcome, "expected_outcome": "pass", "message": "", "notes": [],
            "profile": {}, "tally": None, "witnesses": w, "started": "2026-11-29T10:00:01Z", "duration_s": 1.0}


def rows():
    """rabbitmq-4.0.5: both saw a pass, the second met its limit, the clients disagree on a failure; a row no second
    client ran; a client library's row (no witnesses)."""
    unseen = ["step 2: go-amqp 0.17.0 does not say which of accepted, released, modified settled the send"]
    return [
        row(f"{SPEC}.outcomes.accepted", "pass",
            {"rule": "both-saw", "why_second": "the client settles the delivery",
             "accounts": [account(PROTON, "pass"), account(GO, "pass", unseen=unseen)]}),
        row(f"{SPEC}.outcomes.released", "pass",
            {"rule": "second-limit", "why_second": "the client settles the delivery",
             "accounts": [account(PROTON, "pass"),
                          account(GO, "limit", step=5, saw="go-amqp accepted the delivery of step 4 when it received it")]}),
        row(f"{SPEC}.outcomes.rejected", "error",
            {"rule": "disagree", "why_second": "the first client saw a failure",
             "accounts": [account(PROTON, "fail", step=3, clauses=["rabbitmq-address@4.0/outcomes/a"],
                                  saw="the message was still on the queue"),
                          account(GO, "pass")]}, clause="rabbitmq-address@4.0/outcomes/b"),
        row(f"{SPEC}.target-v2.exchange", "pass", None),
        row(f"{SPEC}.client-addresses.exchange", "pass", None, impl="rabbitmq-amqp-java-client", kind="client-library"),
    ]


def witness_rows(rs):
    """What both engines' witness_rows give (reports/engine/aggregate.py), computed by hand."""
    return [{"impl": r["implementation"]["name"], "kind": r["implementation"]["kind"], "role": r["implementation"]["role"],
             "spec": r["spec"], "spec_revision": r["spec_revision"], "vector_id": r["vector_id"], "test_id": r["test_id"],
             "outcome": r["outcome"], "clause_ids": r["clause_ids"], "witnesses": witnesses_of(r)}
            for r in rs if r["witnesses"] is not None]


def report(rs):
    rs = list(rs)
    idents = {r["implementation"]["name"]: r["implementation"] for r in rs}
    runs = [{"impl": i, "run_id": RUN, "run_started": "2026-11-29T10:00:00Z", "run_us": 1, "kind": idents[i]["kind"],
             "version": "4.0.5", "vectors_digest": "d", "suite_version": "0.1.0", "counts": {"pass": 1}} for i in sorted(idents)]
    cells = [{"spec": SPEC, "spec_revision": REV, "clause_id": r["clause_ids"][0], "impl": r["implementation"]["name"],
              "worst": r["outcome"], "counts": {r["outcome"]: 1}, "levels": ["MUST"],
              "vectors": [{"vector_id": r["vector_id"], "test_id": r["test_id"], "level": "MUST", "outcome": r["outcome"],
                           "clause_outcome": r["outcome"], "expected_outcome": "pass", "message": "", "failed_step": None,
                           "error_kind": None, "notes": [], "protocol": "amqp10", "version": "4.0.5"}]} for r in rs]
    counts = [{"impl": i, "spec": SPEC, "spec_revision": REV, "level": "MUST", "outcome": "pass", "n": 1} for i in idents]
    return model.build_report(model.Aggregates(
        runs=runs, cells=cells, level_counts=counts, witness_rows=witness_rows(rs),
        identities=[{"impl": i, "implementation": v} for i, v in idents.items()]), {}, generated="now")


def test_the_view_is_the_recorded_rule_one_line_per_row_disagreements_first():
    v = report(rows())["two_clients"]
    assert [(ln["vector_id"].rsplit(".", 1)[1], ln["rule"], ln["disagree"]) for ln in v["lines"]] == [
        ("rejected", "disagree", True), ("released", "second-limit", False), ("accepted", "both-saw", False)]
    assert v["counts"] == {"disagree": 1, "second-absent": 0, "second-limit": 1, "both-saw": 1}
    assert v["disagreements"] == 1 and v["clients"] == ["python-qpid-proton", "go-amqp"]
    first, second = v["lines"][0]["accounts"]
    assert first["observed"] == "fail at step 3 blaming rabbitmq-address@4.0/outcomes/a: the message was still on the queue"
    assert second["observed"] == "pass" and first["client"] == PROTON
    assert v["lines"][1]["accounts"][1]["observed"] == "limit at step 5: go-amqp accepted the delivery of step 4 when it received it"
    assert v["lines"][2]["accounts"][1]["unseen"] == [
        "step 2: go-amqp 0.17.0 does not say which of accepted, released, modified settled the send"]
    assert witnesses.count_text(v) == ("3 row(s) judged by two AMQP 1.0 clients (python-qpid-proton, go-amqp): "
                                       "1 disagree, 1 second-limit, 1 both-saw")
    # the rule is the row's: a line never says both saw what the row recorded as a limit, whatever the outcomes
    odd = rows()[1]
    odd["witnesses"] = {**odd["witnesses"], "rule": "both-saw"}
    assert report([odd])["two_clients"]["lines"][0]["rule"] == "both-saw"
    assert report([r for r in rows() if r["witnesses"] is None])["two_clients"]["lines"] == []
    json.dumps(v)


def test_the_view_in_index_html_and_summary_md():
    rep = report(rows())
    html, md = render_html.render(rep), render_md.render(rep)
    sec = html.split('<section id="two-clients"><h2>Two clients</h2>')[1].split("</section>")[0]
    assert '<a href="#two-clients">Two clients</a>' in html
    assert sec.index('data-rule="disagree"') < sec.index('data-rule="second-limit"') < sec.index('data-rule="both-saw"')
    assert '<tr class="witness disagree" data-rule="disagree"' in sec and "<details class=\"section\" open>" in sec
    # the vector links to the drill-down of its clause in the matrix (the row's evidence)
    assert f'<a href="#clause-rabbitmq-address-4.0-outcomes-b"><code>{SPEC}.outcomes.rejected</code></a>' in sec
    assert 'id="clause-rabbitmq-address-4.0-outcomes-b"' in html
    assert '<td class="acct" data-client="go-amqp" data-outcome="limit">' in sec and "could not see step 2: go-amqp" in sec
    assert "<th>First client</th><th>Second client</th>" in sec
    part = md.split("## Two clients")[1].split("\n## ")[0]
    assert "3 row(s) judged by two AMQP 1.0 clients (python-qpid-proton, go-amqp): 1 disagree, 1 second-limit" in part
    assert (f"- ⚠ rabbitmq-4.0.5: {SPEC}.outcomes.rejected — python-qpid-proton 0.40.0: fail at step 3 blaming "
            "rabbitmq-address@4.0/outcomes/a: the message…; go-amqp 0.17.0: pass") in part.replace("\\", "")
    assert "released" not in part    # summary.md lists the disagreements only
    many = report([rows()[2]] + [{**rows()[2], "vector_id": f"{SPEC}.outcomes.r{k}"} for k in range(4)])
    part = render_md.render(many).split("## Two clients")[1].split("\n## ")[0]
    assert part.count("- ⚠ ") == 3 and "- … and 2 more in index.html" in part
    none = report([r for r in rows() if r["witnesses"] is None])
    assert "## Two clients" not in render_md.render(none)
    assert witnesses.EMPTY in render_html.render(none)


def test_client_libraries_are_a_group_of_their_own():
    rep = report(rows())
    html, md = render_html.render(rep), render_md.render(rep)
    products = html.split('<table id="verdict-grid"')[1].split("</table>")[0]
    clients = html.split('<section id="client-libraries">')[1].split("</section>")[0]
    assert 'data-impl="rabbitmq-4.0.5"' in products and "rabbitmq-amqp-java-client" not in products
    assert '<table id="client-library-grid" class="grid">' in clients and 'data-impl="rabbitmq-amqp-java-client"' in clients
    assert html.index('id="verdict-grid"') < html.index('id="client-library-grid"')
    assert render_html.matrix_columns(rep) == [("rabbitmq-4.0.5", False), ("rabbitmq-amqp-java-client", False)]
    table, rest = md.split("### Client libraries (judged on the client's clauses)")
    assert "| rabbitmq-4.0.5 |" in table.split("## Verdicts")[1] and "rabbitmq-amqp-java-client" not in table.split("## Verdicts")[1]
    assert rest.lstrip().startswith("| Implementation |") and "| rabbitmq-amqp-java-client |" in rest
    assert [model.impl_group(i) for i in ({"kind": "client-library", "role": "product"}, {"kind": "codec", "role": "reference"},
                                          {"kind": "broker"})] == ["client-library", "reference", "product"]


def test_the_duckdb_baseline_reads_rows_without_a_witnesses_column(tmp_path):
    """A store written before schema 5 has no `witnesses` column: no lines, nothing refused."""
    import duckdb

    from reports.baseline import baseline_duckdb
    from reports.rows.schema import arrow_schema

    schema4 = arrow_schema()
    schema4 = schema4.remove(schema4.get_field_index("witnesses"))
    agg = baseline_duckdb.compute(duckdb.connect(), str(write_parquet(rows(), tmp_path / "old", schema4) / "*.parquet"))
    assert agg.witness_rows == [] and len(agg.runs) == 2
    agg = baseline_duckdb.compute(duckdb.connect(), str(write_parquet(rows(), tmp_path / "new") / "*.parquet"))
    key = lambda r: r["vector_id"]  # noqa: E731
    assert sorted(agg.witness_rows, key=key) == sorted(witness_rows(rows()), key=key)


def test_both_engines_give_the_same_view_of_the_same_rows(spark, tmp_path):
    """Spark's build and the DuckDB baseline's over one Parquet file of the rows, and Spark over the same rows as
    JSON Lines: the view of the hand-made aggregate."""
    from reports.baseline import baseline_duckdb
    from reports.engine import build

    folder = write_parquet(rows(), tmp_path / "rows")
    empty = tmp_path / "no-clauses"
    empty.mkdir()
    assert build.run([str(folder)], str(tmp_path / "spark"), spark=spark, clause_dir=str(empty), quiet=True) == 0
    duck = baseline_duckdb.build(str(folder / "*.parquet"), str(tmp_path / "duckdb"))
    spark_rep = json.loads((tmp_path / "spark" / "compliance.json").read_text(encoding="utf-8"))
    assert spark_rep["two_clients"] == json.loads(json.dumps(duck["two_clients"]))
    assert spark_rep["two_clients"] == json.loads(json.dumps(report(rows())["two_clients"]))
    assert len(spark_rep["two_clients"]["lines"]) == 3
    lines = tmp_path / "jsonl"
    lines.mkdir()
    (lines / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows()), encoding="utf-8")
    assert build.run([str(lines)], str(tmp_path / "spark-json"), spark=spark, clause_dir=str(empty), quiet=True) == 0
    from_json = json.loads((tmp_path / "spark-json" / "compliance.json").read_text(encoding="utf-8"))
    assert from_json["two_clients"] == spark_rep["two_clients"]
    assert 'data-rule="disagree"' in (tmp_path / "spark" / "index.html").read_text(encoding="utf-8")
