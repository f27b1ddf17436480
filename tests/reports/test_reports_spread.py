"""The clauses that fail in one implementation only and in every implementation that judged them
(reports/views/spread.py): the rule by hand, both engines over a store of two runs, and the rendering."""
from __future__ import annotations

import json

from historydata import C1, C2, C3, OM, REF, STEP, latest_rows, older_rows, write

from reports.render import render_html, render_md
from reports.views import model, spread

TEST_ID = "suites/codecs/test_ce_amqp.py::test_vector[{}-{}]"
REFERENCE = spread.NOT_COUNTED["reference"]
NO_VERDICT = spread.NOT_COUNTED[None]


def failing_row(impl, vector, clause_outcome, message, *, kind="codec", step=None, expected="pass"):
    return {"implementation": impl, "kind": kind, "outcome": clause_outcome, "vectors": [
        {"vector_id": vector, "test_id": TEST_ID.format(impl, vector), "clause_outcome": clause_outcome,
         "outcome": clause_outcome, "expected_outcome": expected, "failed_step": step, "error_kind": None,
         "message": message}]}


# What historydata's runs give (latest_rows' docstring), by hand. r1's failures (alpha on C2) are
# not in the latest run and count nowhere.
EXPECTED = {
    "fails_in_one": [
        {"spec": "ce-amqp", "spec_revision": "1.0.3-wip", "clause_id": C1, "level": "MUST", "quote": None,
         "failing": [failing_row("alpha", "v1", "fail", "v1: prefix missing", step=STEP)],
         "held": ["beta", "gamma"], "not_judged": [],
         "not_counted": [{"implementation": REF, "why": REFERENCE, "status": "fails", "outcome": "fail"}]},
        {"spec": "ce-amqp", "spec_revision": "1.0.3-wip", "clause_id": C2, "level": "MUST", "quote": None,
         "failing": [failing_row("beta", "v2", "fail", "v2: type wrong")],
         "held": ["alpha"], "not_judged": [{"implementation": "gamma", "outcome": "error"}], "not_counted": []},
        {"spec": "openmessaging", "spec_revision": "0.3.0", "clause_id": OM, "level": "MUST", "quote": None,
         "failing": [failing_row("zeta-om-1.0@acme-2.0", "om1", "fail", "om1: fail", kind="provider")],
         "held": ["yota-om-1.0@acme-2.0"], "not_judged": [],
         "not_counted": [{"implementation": "acme-2.0", "why": NO_VERDICT, "status": "fails", "outcome": "fail"}]},
    ],
    "fails_in_all": [
        {"spec": "ce-amqp", "spec_revision": "1.0.3-wip", "clause_id": C3, "level": "SHOULD", "quote": None,
         "failing": [failing_row("beta", "v3", "xfail", "v3: known", expected="fail"),
                     failing_row("gamma", "v3", "fail", "v3: ttl dropped")],
         "held": [], "not_judged": [{"implementation": "alpha", "outcome": "not_applicable"}],
         "not_counted": [{"implementation": REF, "why": REFERENCE, "status": "held", "outcome": "pass"}]},
    ],
}


def test_an_implementations_status_on_a_clause():
    assert spread.status({"pass": 2, "fail": 1}) == "fails"
    assert spread.status({"xfail": 1, "error": 1}) == "fails"          # a known deviation is a failure
    assert spread.status({"pass": 1, "unsupported": 1}) == "held"
    assert spread.status({"xpass": 1, "not_applicable": 3}) == "held"
    assert spread.status({"pass": 1, "error": 1}) == "not judged"      # the error may hide a failure
    assert spread.status({"unsupported": 1, "not_applicable": 1}) == "not judged"
    assert spread.status({}) == "not judged"


def _rows(clause, **impls):
    """Engine rows of one clause: impl -> counts (codec products unless the name says ref)."""
    return [{"spec": "s", "spec_revision": "1", "clause_id": clause, "impl": i, "kind": "codec",
             "role": "reference" if i.startswith("ref") else "product", "counts": c, "levels": ["MUST"],
             "vectors": [{"vector_id": "v", "test_id": f"t-{i}", "clause_outcome": "fail", "outcome": "fail"}]
             if c.get("fail") else []}
            for i, c in impls.items()]


def test_a_clause_needs_two_counted_judges_and_a_reference_never_counts():
    rows = (_rows("one-judge", a={"fail": 1}, b={"error": 1}, ref={"pass": 1})       # neither: one judge
            + _rows("two-fail", a={"fail": 1}, b={"fail": 1}, c={"error": 1})         # all
            + _rows("ref-fails", a={"pass": 1}, b={"pass": 1}, ref={"fail": 1})       # neither: nobody counted fails
            + _rows("ref-holds", a={"fail": 1}, b={"fail": 1}, ref={"pass": 1})       # all: the reference is no judge
            + _rows("two-of-three", a={"fail": 1}, b={"fail": 1}, c={"pass": 1}))     # neither
    got = spread.views(rows, {"one-judge": {"level": "SHOULD", "quote": "q"}}, model.covers)
    assert [e["clause_id"] for e in got["fails_in_one"]] == []
    assert [e["clause_id"] for e in got["fails_in_all"]] == ["ref-holds", "two-fail"]
    two = got["fails_in_all"][1]
    assert [f["implementation"] for f in two["failing"]] == ["a", "b"] and two["not_judged"] == [
        {"implementation": "c", "outcome": "error"}]
    one = spread.views(_rows("x", a={"fail": 1}, b={"pass": 1}), {"x": {"level": "SHOULD", "quote": "q"}}, model.covers)
    assert [(e["clause_id"], e["level"], e["quote"], e["held"]) for e in one["fails_in_one"]] == [("x", "SHOULD", "q", ["b"])]


def _parquet(rows, folder):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from reports.rows.schema import arrow_schema

    schema = arrow_schema()
    fit = []
    for r in rows:
        r = {k: r.get(k) for k in schema.names}
        r["implementation"] = {**r["implementation"], "provenance": list(r["implementation"]["provenance"].items())}
        r["clause_outcomes"] = list(r["clause_outcomes"].items())
        r["profile"] = list(r["profile"].items())
        fit.append(r)
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(fit, schema=schema), folder / "rows.parquet")
    return folder


def test_both_engines_give_the_views_of_the_latest_runs(spark, tmp_path):
    """Spark's build over JSON Lines of two runs (only the latest counts), and the DuckDB baseline over
    the same rows as Parquet: the views above, exactly."""
    from reports.baseline import baseline_duckdb
    from reports.engine import build

    rows = older_rows() + latest_rows()
    write(tmp_path / "in", rows)
    empty = tmp_path / "no-clauses"
    empty.mkdir()
    assert build.run([str(tmp_path / "in")], str(tmp_path / "spark"), spark=spark, clause_dir=str(empty),
                     quiet=True) == 0
    got = json.loads((tmp_path / "spark" / "compliance.json").read_text(encoding="utf-8"))
    assert got["spread"] == EXPECTED
    duck = baseline_duckdb.build(str(_parquet(rows, tmp_path / "pq") / "*.parquet"), str(tmp_path / "duckdb"))
    assert json.loads(json.dumps(duck["spread"])) == EXPECTED


def _report(view):
    rep = model.build_report(model.Aggregates(), {}, generated="now")
    rep["spread"] = view
    return rep


def test_the_views_in_summary_md_and_index_html():
    rep = _report(EXPECTED)
    md, html = render_md.render(rep), render_html.render(rep)
    assert "## Fails in one implementation only (3)" in md
    assert "## Fails in every implementation that judged it (1)" in md
    assert ("| ce-amqp/3.1/prefix (MUST), ce-amqp 1.0.3-wip | **alpha**: v1 "
            "fail (step 2 send (check of 1 clause)): "
            "v1: prefix missing | held by beta, gamma; not counted: mqconform-reference fail (reference: "
            "mqconform's own code standing in) |") in md
    assert "| held by alpha; not judged by gamma (error) |" in md
    assert "**beta**: v3 xfail: v3: known; **gamma**: v3" in md
    assert "suites/codecs/test_ce_amqp.py::test_vector[alpha-v1]" in html and "test_vector[alpha-v1]" not in md
    one = html.split('<section id="fails-in-one">')[1].split("</section>")[0]
    assert one.count('<tr data-clause="') == 3 and 'data-implementation="alpha"' in one
    assert "<h2>Fails in one implementation only</h2>" in one
    every = html.split('<section id="fails-in-all">')[1].split("</section>")[0]
    assert every.count('<tr data-clause="') == 1 and 'data-clause="ce-amqp/3.3/ttl"' in every
    assert "v3: ttl dropped" in every


def test_without_such_clauses_each_view_says_none():
    rep = _report({"fails_in_one": [], "fails_in_all": []})
    md, html = render_md.render(rep), render_html.render(rep)
    assert "## Fails in one implementation only (0)" in md and "None." in md.split("## Fails in one")[1]
    assert "<table" not in html.split('<section id="fails-in-all">')[1].split("</section>")[0]
