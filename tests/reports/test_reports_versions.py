"""Across versions (reports/views/versions.py): the plain-Python view on synthetic rows, its rendering, and both
engines giving the same view of the same rows."""
from __future__ import annotations

import json

from reports.render import render_html, render_md
from reports.views import model, versions

RUN = "a" * 32


def row(impl, version, vector, clause_outcomes, *, kind="broker", variant="", spec="acme-address", revision="1.0",
        message="", notes=(), protocol="amqp10", provenance=None, level="MUST"):
    """One result row of a broker (or, with kind provider, of a provider over it)."""
    if provenance is None:
        provenance = {"product": "acme", "version": version, "variant": variant,
                      "config.deviations": "guest may log in (tests)"
                      + (" | flag.v1 = false (the denied half)" if variant else "")}
    outcome = max(clause_outcomes.values(), key=lambda o: {"pass": 0, "not_applicable": 1, "fail": 2}.get(o, 3))
    return {"schema_version": 3, "run_id": RUN, "run_started": "2026-11-26T00:00:00Z", "suite_version": "0.1.0",
            "vectors_digest": "d", "spec": spec, "spec_revision": revision, "clause_ids": list(clause_outcomes),
            "level": level, "clause_outcomes": clause_outcomes, "vector_id": vector,
            "test_id": f"suites/t.py::test_behaviour[{vector}::{impl}]",
            "implementation": {"name": impl, "kind": kind, "version": version, "provenance": provenance},
            "protocol": protocol, "outcome": outcome, "expected_outcome": "pass", "message": message,
            "notes": list(notes), "started": "2026-11-26T00:00:01Z", "duration_s": 0.1}


def provider(name, broker_version, vector, clause_outcomes, **kw):
    prov = {"broker": f"acme-{broker_version}", "broker_product": "acme", "broker_version": broker_version,
            "broker_variant": "", "protocol": "amqp091"}
    return row(f"{name}@acme-{broker_version}", "0.1.0", vector, clause_outcomes, kind="provider", provenance=prov,
               spec="om", protocol="amqp091", **kw)


def rows():
    """acme 1.0, 2.0, 2.0 with the v1 flag denied, 2.3; a codec that has no product."""
    out = []
    for impl, version, variant in (("acme-2.0", "2.0", ""), ("acme-2.0+v1-denied", "2.0", "v1-denied"),
                                   ("acme-2.3", "2.3", "")):
        v1 = "pass" if impl == "acme-2.0" else "not_applicable"
        out += [
            row(impl, version, "v1.works", {"acme-address/v1": v1}, variant=variant,
                message="" if v1 == "pass" else f"needs v1 'permitted'; {impl} has v1 'denied'"),
            row(impl, version, "v1.denied", {"acme-address/v1": "not_applicable" if v1 == "pass" else "pass"},
                variant=variant, message=f"needs v1 'denied'; {impl} has v1 'permitted'" if v1 == "pass" else "",
                notes=[] if v1 == "pass" else ["refused at link scope: amqp_address_v1_not_permitted"]),
            row(impl, version, "v2.queue", {"acme-address/v2": "pass"}, variant=variant),
        ]
    # 1.0 has no address format of 1.0 at all: every row of the spec not applicable
    out += [row("acme-1.0", "1.0", v, {c: "not_applicable"}, message="the text describes acme 2.*")
            for v, c in (("v1.works", "acme-address/v1"), ("v1.denied", "acme-address/v1"),
                         ("v2.queue", "acme-address/v2"))]
    # a provider over 1.0 and 2.0: the delivery counter came with 2.0; a fail and an xfail are one behaviour
    out += [provider("om/amqp091", "1.0", "om.count", {"om/count": "fail"}, message="expected deliveryCount 1, got 0"),
            provider("om/amqp091", "2.0", "om.count", {"om/count": "pass"}, notes=["deliveryCount 1: x-acquired-count"]),
            provider("om/amqp091", "1.0", "om.other", {"om/other": "fail"}, message="refused"),
            provider("om/amqp091", "2.0", "om.other", {"om/other": "xfail"}, message="known deviation (refused)")]
    out.append(row("acme-codec", "9.9", "v2.queue", {"acme-address/v2": "fail"}, kind="codec",
                   provenance={"package": "acme-codec==9.9"}))
    return out


def aggregates(rs):
    """What both engines aggregate of these rows (one run each): the cells and the identities."""
    cells, idents = {}, {}
    for r in rs:
        impl = r["implementation"]["name"]
        idents[impl] = {"impl": impl, "implementation": {**r["implementation"], "role": "product"}}
        for clause, outcome in r["clause_outcomes"].items():
            c = cells.setdefault((r["spec"], clause, impl), {
                "spec": r["spec"], "spec_revision": r["spec_revision"], "clause_id": clause, "impl": impl,
                "worst": outcome, "counts": {}, "levels": [r["level"]], "vectors": []})
            c["counts"][outcome] = c["counts"].get(outcome, 0) + 1
            c["vectors"].append({k: r.get(k) for k in ("vector_id", "test_id", "level", "outcome", "expected_outcome",
                                                      "message", "failed_step", "error_kind", "notes", "protocol")}
                                | {"clause_outcome": outcome, "version": r["implementation"]["version"]})
    runs = [{"impl": i, "run_id": RUN, "run_started": "2026-11-26T00:00:00Z", "run_us": 1, "kind": x["implementation"]["kind"],
             "version": x["implementation"]["version"], "vectors_digest": "d", "suite_version": "0.1.0",
             "counts": {"pass": 1}} for i, x in idents.items()]
    return model.Aggregates(runs=runs, cells=list(cells.values()), identities=list(idents.values()))


def view(rs=None):
    agg = aggregates(rows() if rs is None else rs)
    return versions.across_versions(agg.cells, agg.identities)


def test_columns_are_versions_and_variants_of_a_product_with_the_variants_configuration():
    [acme] = view()                       # the codec has no product
    assert acme["product"] == "acme"
    assert [c["label"] for c in acme["columns"]] == ["1.0", "2.0", "2.0 v1-denied", "2.3"]
    by = {c["key"]: c for c in acme["columns"]}
    assert by["2.0 v1-denied"]["configuration"] == ["flag.v1 = false (the denied half)"]
    assert by["2.0"]["configuration"] == [] and by["2.0 v1-denied"]["variant"] == "v1-denied"
    assert by["1.0"]["implementations"] == ["acme-1.0", "om/amqp091@acme-1.0"]


def test_only_vectors_whose_outcome_class_differs_are_listed_with_each_rows_evidence():
    [acme] = view()
    got = {(ln["lane"], ln["vector_id"]): {k: c["outcome"] for k, c in ln["cells"].items()} for ln in acme["lines"]}
    assert got == {
        ("", "v1.denied"): {"1.0": "not_applicable", "2.0": "not_applicable", "2.0 v1-denied": "pass", "2.3": "pass"},
        ("", "v1.works"): {"1.0": "not_applicable", "2.0": "pass", "2.0 v1-denied": "not_applicable",
                           "2.3": "not_applicable"},
        ("om/amqp091", "om.count"): {"1.0": "fail", "2.0": "pass"},
    }                                     # v2.queue passes everywhere; om.other: fail and xfail are one behaviour
    assert acme["compared"] == 5
    line = next(ln for ln in acme["lines"] if ln["vector_id"] == "v1.denied")
    cell = line["cells"]["2.3"]
    assert cell["test_id"] == "suites/t.py::test_behaviour[v1.denied::acme-2.3]" and cell["implementation"] == "acme-2.3"
    assert cell["evidence"] == "refused at link scope: amqp_address_v1_not_permitted"        # its notes
    assert line["cells"]["2.0"]["evidence"] == "needs v1 'denied'; acme-2.0 has v1 'permitted'"   # its message
    assert line["clause_id"] == "acme-address/v1" and line["level"] == "MUST" and line["protocol"] == "amqp10"
    count = next(ln for ln in acme["lines"] if ln["vector_id"] == "om.count")
    assert count["cells"]["1.0"]["evidence"] == "expected deliveryCount 1, got 0"


def test_the_evidence_is_what_the_message_adds_to_the_vector_and_the_clause():
    msg = ("known deviation (no counter): om.count: a first delivery carries a deliveryCount\n"
           'om/count (MUST): "the times the message was delivered"\n'
           "over amqp091 on acme-2.0: check 1 (header.deliveryCount): no counter of the broker's\n"
           "  observed {'first_count': 0}")
    assert versions.evidence({"message": msg}, "om.count") == (
        "over amqp091 on acme-2.0: check 1 (header.deliveryCount): no counter of the broker's observed {'first_count': 0}")
    assert versions.evidence({"message": "precondition: setup failed\n  {undefined}"}, "om.count") == (
        "precondition: setup failed {undefined}")
    assert versions.evidence({"message": "", "notes": ["a", "b"]}, "v") == "a; b"
    assert versions.evidence({"failed_step": {"index": 2, "action": "send"}, "error_kind": "adapter"}) == (
        "step 2 send adapter")


def test_a_spec_that_applies_to_none_of_a_versions_rows_is_left_out_there_and_said_once():
    [acme] = view()
    assert acme["not_applicable"] == [{"spec": "acme-address", "spec_revision": "1.0", "lane": "", "columns": ["1.0"]}]
    line = next(ln for ln in acme["lines"] if ln["vector_id"] == "v1.denied")
    assert line["cells"]["1.0"]["compared"] is False and line["cells"]["2.0"]["compared"] is True
    # without the variant and 2.3, 1.0's not_applicable alone would be the only difference from 2.0: none listed
    only = [r for r in rows() if r["implementation"]["name"] in ("acme-1.0", "acme-2.0")]
    [acme] = view(only)
    assert acme["lines"] == [] and acme["compared"] == 0


def test_a_product_in_one_version_and_its_variant_has_no_view():
    only = [r for r in rows() if r["implementation"]["name"].startswith("acme-2.0")]
    assert view(only) == []


def test_a_column_of_several_rows_of_a_vector_shows_the_worst():
    rs = [row("acme-1.0", "1.0", "v", {"acme-address/x": "pass"}, protocol="amqp091"),
          row("acme-1.0", "1.0", "v", {"acme-address/x": "fail"}, protocol="amqp091", message="no"),
          row("acme-2.0", "2.0", "v", {"acme-address/x": "pass"}, protocol="amqp091")]
    [acme] = view(rs)
    [line] = acme["lines"]
    assert line["cells"]["1.0"]["outcome"] == "fail" and line["cells"]["1.0"]["message"] == "no"


def test_column_of_reads_brokers_and_providers_and_nothing_else():
    broker = {"name": "acme-2.0", "kind": "broker", "version": "2.0",
              "provenance": {"product": "acme", "version": "2.0", "variant": "", "config.deviations": "none"}}
    assert versions.column_of(broker) == {"product": "acme", "version": "2.0", "variant": "", "lane": "",
                                          "deviations": []}
    product_provider = {"name": "acme-om-2.0@acme-2.0", "kind": "provider", "version": "2.0",
                        "provenance": {"broker_product": "acme", "broker_version": "2.0"}}
    assert versions.column_of(product_provider)["lane"] == "acme-om"
    assert versions.column_of({"name": "c", "kind": "codec", "version": "1", "provenance": {"package": "c"}}) is None
    assert versions.column_of({"name": "b", "kind": "broker", "provenance": {"product": "acme"}}) is None


def test_the_report_shows_across_versions_in_index_html_and_what_changed_in_summary_md():
    report = model.build_report(aggregates(rows()), {}, generated="now")
    assert [p["product"] for p in report["across_versions"]] == ["acme"]
    md, html = render_md.render(report), render_html.render(report)
    # summary.md: each version against the one before (Compare brokers); the lines are in index.html
    assert "## Across versions" not in md
    assert ("| against the version before (+ now pass, − now fail, ~ other changes) | [—][e1] | [+1][e1] | [~2][e1] "
            "| [~2][e1] |") in md and "[e1]: index.html#across-acme" in md
    section = html.split('<section id="across-versions"><h2>Across versions</h2>')[1].split("</section>")[0]
    assert ('<details class="product" id="across-acme" data-product="acme"><summary><b>acme</b>: 1.0, 2.0, '
            "2.0 v1-denied, 2.3: 3 of 5 vector(s) run by two or more columns differ</summary>") in section
    assert "<li>2.0 v1-denied: configuration flag.v1 = false (the denied half)</li>" in section
    assert ('title="left out of the comparison: the spec applies to none of this column\'s rows" data-column="1.0" '
            'data-outcome="not_applicable"') in section
    assert "needs v1 &#x27;denied&#x27;; acme-2.0 has v1 &#x27;permitted&#x27;" in section
    assert "<td>om/amqp091 amqp091</td>" in section and "suites/t.py::test_behaviour[om.count::om/amqp091@acme-1.0]" in section
    assert 'data-vector="om.count"' in html and "expected deliveryCount 1, got 0" in html
    assert '<a href="#clause-acme-address-v1"><code>acme-address/v1</code></a>' in html
    json.dumps(report)


def test_without_two_versions_the_section_says_so():
    report = model.build_report(aggregates([r for r in rows() if r["implementation"]["name"] == "acme-2.3"]), {},
                                generated="now")
    assert report["across_versions"] == []
    assert "No product ran in two or more versions." in render_md.render(report)   # Compare brokers says so
    assert "No product ran in two or more versions." in render_html.render(report)


def test_both_engines_give_the_same_view_of_the_same_rows(spark, tmp_path):
    """Spark's build and the DuckDB baseline's, over one Parquet file of the rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from reports.baseline import baseline_duckdb
    from reports.engine import build
    from reports.rows.schema import arrow_schema

    folder = tmp_path / "rows"
    folder.mkdir()
    schema = arrow_schema()
    fit = []
    for r in rows():
        r = {k: r.get(k) for k in schema.names}
        r["implementation"] = {**r["implementation"], "role": "product",
                               "provenance": list(r["implementation"]["provenance"].items())}
        r["clause_outcomes"] = list(r["clause_outcomes"].items())
        fit.append(r)
    pq.write_table(pa.Table.from_pylist(fit, schema=schema), folder / "rows.parquet")
    empty = tmp_path / "no-clauses"
    empty.mkdir()
    assert build.run([str(folder)], str(tmp_path / "spark"), spark=spark, clause_dir=str(empty), quiet=True) == 0
    duck = baseline_duckdb.build(str(folder / "*.parquet"), str(tmp_path / "duckdb"))
    spark_rep = json.loads((tmp_path / "spark" / "compliance.json").read_text(encoding="utf-8"))
    assert spark_rep["across_versions"] == json.loads(json.dumps(duck["across_versions"]))
    assert [ln["vector_id"] for ln in duck["across_versions"][0]["lines"]] == ["v1.denied", "v1.works", "om.count"]
