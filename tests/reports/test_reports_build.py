"""`reports build` on the fixture files of conftest.py: exact numbers."""
from __future__ import annotations

import json

import pytest
from reportdata import C1, C2, C3, C4, C5, EVIL

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def cell(report, clause, impl):
    for row in report["matrix"]:
        if row["clause_id"] == clause:
            return row["cells"].get(impl)
    raise AssertionError(f"no matrix row for {clause}")


def test_latest_run_per_implementation(built):
    _, report = built
    latest = {i["name"]: i["run_id"][:2] for i in report["implementations"]}
    assert latest == {"alpha": "a3", "beta": "b4", EVIL: "g1", "delta": "d1"}
    # 3 alpha + 4 beta + gamma + delta runs; the truncated line and the duplicate are gone.
    assert report["totals"] == {"runs": 9, "records": 5 + 5 + 5 + 3 + 2 + 3 + 3 + 5 + 5, "implementations": 4}


def test_matrix_cells(built):
    _, r = built
    assert cell(r, C1, "alpha") | {"vectors": None} == {"worst": "pass", "counts": {"pass": 2}, "vectors": None}
    assert cell(r, C1, "beta")["worst"] == "error"          # error outranks xfail
    assert cell(r, C1, "beta")["counts"] == {"error": 1, "xfail": 1}
    assert cell(r, C1, EVIL)["counts"] == {"error": 1, "pass": 1}
    assert cell(r, C2, "delta")["worst"] == "pass"
    assert cell(r, C2, "beta")["worst"] == "error"
    assert cell(r, C3, "alpha")["worst"] == "fail"
    assert cell(r, C3, "delta") | {"vectors": None} == {"worst": "xpass", "counts": {"xpass": 1, "pass": 1}, "vectors": None}
    assert cell(r, C4, "alpha")["worst"] == "unsupported"
    assert cell(r, C4, "beta") is None                      # beta's latest run did not run v4
    assert cell(r, C4, "delta")["worst"] == "fail"
    assert cell(r, C5, EVIL)["worst"] == "not_applicable"
    assert {row["clause_id"] for row in r["matrix"]} == {C1, C2, C3, C4, C5}
    # The drill-down carries expected and observed per vector.
    v = cell(r, C1, "beta")["vectors"]
    assert [(x["vector_id"], x["expected_outcome"], x["outcome"]) for x in v] == [
        ("ce-amqp.v1", "fail", "xfail"), ("ce-amqp.v2", "pass", "error")]
    assert v[1]["message"] == "ce-amqp.v2: expected <ok> & observed error"


def test_clause_quotes_and_levels(built):
    _, r = built
    rows = {row["clause_id"]: row for row in r["matrix"]}
    assert rows[C1]["quote"].startswith("CloudEvent attributes MUST")
    assert rows[C3]["level"] == "SHOULD"
    # No clause entry: the strongest level of its vectors stands in, and no quote.
    assert rows[C2]["level"] == "MUST" and rows[C2]["quote"] is None
    assert rows[C4]["level"] == "MAY"


def test_verdicts(built):
    _, r = built
    got = {(v["implementation"], v["spec"]): v["verdict"] for v in r["verdicts"]}
    assert got == {
        ("alpha", "ce-amqp"): "conformant-except-should",   # SHOULD v3 fails, MAY v4 unsupported
        # every row passes, but the test's clause folder has no file for this spec: which MUST clauses
        # it must judge is not known, so coverage is unknown and the verdict cannot be conformant
        ("alpha", "rabbitmq-address@4.0"): "incomplete",
        ("beta", "ce-amqp"): "not-conformant",                # MUST v1 xfail: a known deviation is a deviation
        (EVIL, "ce-amqp"): "incomplete",                      # MUST v2 error
        (EVIL, "rabbitmq-address@4.0"): "not-applicable",     # every vector not_applicable
        ("delta", "ce-amqp"): "conformant",                   # only a MAY fails
    }
    alpha = next(v for v in r["verdicts"] if v["implementation"] == "alpha" and v["spec"] == "ce-amqp")
    assert alpha["counts"] == {"MUST": {"pass": 2}, "SHOULD": {"fail": 1}, "MAY": {"unsupported": 1}}
    assert alpha["spec_revision"] == "1.0.3-wip"
    assert alpha["badge"] == "badges/alpha--ce-amqp.svg"
    # the clause file knows one testable MUST clause (C1): judged and held in alpha's latest run
    assert alpha["coverage"]["applying"] == 1 and alpha["coverage"]["judged_and_held"] == 1
    assert alpha["covers"] == "codec verdict" and alpha["role"] == "product"
    rmq = next(v for v in r["verdicts"] if v["implementation"] == "alpha" and v["spec"] == "rabbitmq-address@4.0")
    assert rmq["coverage"]["status"] == "unknown" and "no clause file" in rmq["coverage"]["not_judged"][0]["why"]


def test_history(built):
    _, r = built
    hist = {h["implementation"]: h["runs"] for h in r["history"]}
    assert [x["run_id"][:2] for x in hist["alpha"]] == ["a1", "a2", "a3"]
    assert [x["pass_rate"] for x in hist["alpha"]] == [1.0, 0.75, 0.75]
    assert hist["alpha"][1]["counts"] == {"fail": 1, "unsupported": 1, "pass": 3}
    assert [x["pass_rate"] for x in hist["beta"]] == [2 / 3, 0.5, 1.0, 1 / 3]
    assert hist["delta"][0]["total"] == 5 and hist["delta"][0]["pass_rate"] == 0.8  # MAY v4 fails
    assert hist[EVIL][0]["pass_rate"] == 0.75


def test_diff_of_latest_two_runs(built):
    _, r = built
    diff = {d["implementation"]: d for d in r["diff"]}
    assert set(diff) == {"alpha", "beta"}                    # gamma and delta have one run
    a = diff["alpha"]
    assert (a["from_run"][:2], a["to_run"][:2]) == ("a2", "a3")
    assert a["new_failures"] == [{"vector_id": "ce-amqp.v3", "before": "pass", "after": "fail"}]
    assert a["fixed"] == [{"vector_id": "ce-amqp.v1", "before": "fail", "after": "pass"}]
    assert a["changed"] == []
    b = diff["beta"]
    assert b["new_failures"] == [{"vector_id": "ce-amqp.v1", "before": "pass", "after": "xfail"},
                                 {"vector_id": "ce-amqp.v2", "before": "pass", "after": "error"}]
    assert b["fixed"] == [] and b["changed"] == []


def test_flakiness(built):
    _, r = built
    got = {(f["implementation"], f["vector_id"]): (f["changes"], f["pairs"], f["score"]) for f in r["flaky"]}
    assert got == {
        ("alpha", "ce-amqp.v1"): (2, 2, 1.0),    # pass, fail, pass
        ("alpha", "ce-amqp.v3"): (1, 2, 0.5),    # pass, pass, fail
        ("alpha", "ce-amqp.v4"): (1, 2, 0.5),    # pass, unsupported, unsupported
        # beta: b1->b2 changed version, b2->b3 changed digest; only b3->b4 counts.
        ("beta", "ce-amqp.v1"): (1, 1, 1.0),     # pass -> xfail
        ("beta", "ce-amqp.v2"): (1, 1, 1.0),     # pass -> error
    }
    assert r["flaky"][0]["score"] >= r["flaky"][-1]["score"]


def test_level_pass_rates(built):
    _, r = built
    assert r["level_pass_rates"]["alpha"] == {"MUST": 1.0, "SHOULD": 0.0, "MAY": None}
    assert r["level_pass_rates"]["beta"] == {"MUST": 0.0, "SHOULD": 1.0}


def test_store_is_a_delta_table_partitioned_by_date(built):
    out, _ = built
    records = out / "store" / "records"
    assert (records / "_delta_log").is_dir()
    parts = sorted(p.name for p in records.glob("date=*") if p.is_dir())
    assert parts == ["date=2026-11-01", "date=2026-11-02", "date=2026-11-03", "date=2026-11-04"]
    assert (out / "store" / "runs" / "_delta_log").is_dir() and (out / "store" / "flaky" / "_delta_log").is_dir()


def test_rebuild_from_store_and_accumulate(built, spark, results, clause_dir, tmp_path):
    """The store reads back to the same report, and --accumulate adds runs without doubling."""
    from reports.engine import build

    out, report = built
    again = tmp_path / "again"
    # the same clause files: a verdict's coverage depends on them
    assert build.run([str(out / "store")], str(again), spark=spark, clause_dir=str(clause_dir)) == 0
    rebuilt = json.loads((again / "compliance.json").read_text())
    for key in ("implementations", "verdicts", "history", "diff", "flaky", "totals"):
        assert rebuilt[key] == report[key], key
    # Accumulate: the same beta file again on top of the store counts once.
    assert build.run([str(results["beta"])], str(again), spark=spark, accumulate=True) == 0
    acc = json.loads((again / "compliance.json").read_text())
    assert acc["totals"] == report["totals"]


def test_as_of_rebuilds_a_past_version(built, spark, clause_dir, tmp_path, capsys):
    """Time travel: the report of the store's version 0 equals the build that wrote it; a date before
    the store existed is an input error."""
    from reports.engine import build

    out, report = built
    old = tmp_path / "old"
    assert build.run([], str(old), spark=spark, store=str(out / "store"), as_of="0", clause_dir=str(clause_dir)) == 0
    again = json.loads((old / "compliance.json").read_text())
    for key in ("implementations", "verdicts", "matrix", "history", "diff", "flaky", "totals"):
        assert again[key] == report[key], key
    assert build.run([], str(tmp_path / "older"), spark=spark, store=str(out / "store"), as_of="2000-01-01") == 2
    assert "no store version as of 2000-01-01" in capsys.readouterr().err


def test_build_from_one_mixed_folder(built, spark, results, clause_dir, tmp_path):
    """A folder holding a Parquet file, JSON Lines files and a subfolder reads like the files one by one."""
    from reports.engine import build

    _, report = built
    folder = results["alpha"].parent
    assert build.run([str(folder)], str(tmp_path / "site"), spark=spark, clause_dir=str(clause_dir)) == 0
    again = json.loads((tmp_path / "site" / "compliance.json").read_text())
    assert again["totals"] == report["totals"] and again["verdicts"] == report["verdicts"]


def test_outputs_written(built):
    out, report = built
    assert sorted(p.name for p in (out / "badges").iterdir()) == sorted(
        {v["badge"].split("/")[1] for v in report["verdicts"]})
    assert (out / "badges" / "gamma_i_co_x--rabbitmq-address_4.0.svg").is_file()
    svg = (out / "badges" / "alpha--ce-amqp.svg").read_text()
    assert svg.startswith("<svg") and "conformant-except-should" in svg and "ce-amqp 1.0.3-wip" in svg
    md = (out / "summary.md").read_text()
    assert "| alpha | 1.0 | ce-amqp 1.0.3-wip | 🟡 conformant-except-should |" in md
    assert "gamma \\<i\\>&co" in md                         # escaped for Markdown
    assert "new failures: ce-amqp.v3 (pass → fail)" in md
    html = (out / "index.html").read_text()
    assert EVIL not in html and "gamma &lt;i&gt;&amp;co &quot;x&quot;" in html
    assert "expected &lt;ok&gt; &amp; observed" in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html


def test_missing_input_is_a_usage_error(spark, tmp_path, capsys):
    from reports.engine import build

    assert build.run([str(tmp_path / "nope.jsonl")], str(tmp_path / "out"), spark=spark) == 2
    assert "no such file" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("{not json\n")
    assert build.run([str(empty)], str(tmp_path / "out2"), spark=spark) == 2
