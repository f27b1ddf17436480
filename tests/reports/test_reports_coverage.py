"""Coverage-aware verdicts, roles and the OpenMessaging broker profile: the plain-Python rules, no Spark."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from certify import certificate
from fixtures.verdict.records import RecordWriter, read_records
from fixtures.verdict.row import role_of
from reports.render import render_html, render_md
from reports.rows.record import implementation_of, profile_of
from reports.views import clauses as clause_files
from reports.views import model, profile

HERE = Path(__file__).resolve().parent
SPEC = "acme-spec"

CLAUSES = """\
spec: acme-spec
revision: "1.0"
title: a spec for tests
source: acme.md
applies_to:
  - product: acme
    versions: ">=2.0"
    because: The acme broker 2.0 does this.
clauses:
  - {id: acme-spec/1/a, section: "1", level: MUST, quote: A MUST hold.}
  - {id: acme-spec/1/b, section: "1", level: MUST NOT, quote: B MUST NOT break.}
  - {id: acme-spec/1/c, section: "1", level: MUST, quote: C must be seen., testable: false, reason: cannot be seen}
  - {id: acme-spec/1/d, section: "1", level: SHOULD, quote: D SHOULD hold.}
  - id: acme-spec/1/e
    section: "1"
    level: MUST
    quote: E holds in 2.1 only.
    applies_to: [{product: acme, versions: "2.1.*", because: E is new in 2.1.}]
  - id: acme-spec/1/f
    section: "1"
    level: MUST
    quote: With the flag F is refused, without it F works.
    unjudged_part: the refusal half has no vector
"""


@pytest.fixture(scope="module")
def clauses(tmp_path_factory):
    d = tmp_path_factory.mktemp("clauses")
    (d / f"{SPEC}.yaml").write_text(CLAUSES, encoding="utf-8")
    return clause_files.load(d)


def row(vector, outcome, clause_outcomes, *, impl="acme-2.0", kind="broker", version="2.0", level="MUST",
        spec=SPEC, role=None, provenance=None, profile_=None):
    implementation = {"name": impl, "kind": kind, "version": version,
                      "provenance": provenance if provenance is not None else {"product": "acme"}}
    if role:
        implementation["role"] = role
    r = {"run_id": "r" * 32, "run_started": "2026-11-26T00:00:00Z", "suite_version": "0.1.0", "vectors_digest": "d",
         "spec": spec, "spec_revision": "1.0", "clause_ids": list(clause_outcomes), "level": level,
         "clause_outcomes": clause_outcomes, "vector_id": vector, "test_id": f"t::{vector}[{impl}]",
         "implementation": implementation, "outcome": outcome, "expected_outcome": "pass", "message": ""}
    if profile_ is not None:
        r["profile"] = profile_
    return r


def verdicts(rows, clauses):
    """The one rule (reports/views/model.py spec_verdicts) over rows, counted as certify/certificate.py counts them."""
    ids = {r["implementation"]["name"]: r["implementation"] for r in rows}
    return {(v["implementation"], v["spec"]): v for v in model.spec_verdicts(
        certificate.level_counts(rows), certificate.clause_counts(rows), clauses, ids)}


def test_a_testable_must_clause_unjudged_makes_the_verdict_incomplete_and_says_which(clauses):
    rows = [row("v.a", "pass", {"acme-spec/1/a": "pass"}), row("v.d", "pass", {"acme-spec/1/d": "pass"}, level="SHOULD"),
            row("v.f", "pass", {"acme-spec/1/f": "pass"})]   # the half of f that has a vector
    v = verdicts(rows, clauses)[("acme-2.0", SPEC)]
    assert v["verdict"] == "incomplete"
    cov = v["coverage"]
    # a, b, e (not 2.1) ... : testable MUST clauses are a, b, e, f; e does not apply to 2.0
    assert cov["testable"] == 4 and cov["applying"] == 3 and cov["judged_and_held"] == 1
    assert [c["clause_id"] for c in cov["not_judged"]] == ["acme-spec/1/b", "acme-spec/1/f"]
    assert cov["not_judged"][0]["why"] == "no row judged it"
    assert "the refusal half has no vector" in cov["not_judged"][1]["why"]
    assert cov["not_applicable"] == ["acme-spec/1/e"]


def _everything_held():
    return [row("v.a", "pass", {"acme-spec/1/a": "pass"}), row("v.b", "xpass", {"acme-spec/1/b": "xpass"}),
            row("v.d", "fail", {"acme-spec/1/d": "fail"}, level="SHOULD")]


def test_judged_and_held_everywhere_is_conformant(clauses):
    held = {k: v for k, v in clauses.items() if k != "acme-spec/1/f"}   # no clause with an unjudged part
    v = verdicts(_everything_held(), held)[("acme-2.0", SPEC)]
    assert v["verdict"] == "conformant-except-should"
    assert v["coverage"]["not_judged"] == [] and v["coverage"]["judged_and_held"] == 2


def test_a_clause_whose_every_row_is_not_applicable_is_excluded(clauses):
    held = {k: v for k, v in clauses.items() if k != "acme-spec/1/f"}
    rows = _everything_held()[:1] + [row("v.b", "not_applicable", {"acme-spec/1/b": "not_applicable"})]
    v = verdicts(rows, held)[("acme-2.0", SPEC)]
    assert v["verdict"] == "conformant"
    assert v["coverage"]["not_applicable"] == ["acme-spec/1/b", "acme-spec/1/e"]
    assert v["coverage"]["applying"] == 1 and v["coverage"]["judged_and_held"] == 1


def test_an_error_or_an_unreached_clause_is_not_judged(clauses):
    held = {k: v for k, v in clauses.items() if k != "acme-spec/1/f"}
    rows = [row("v.a", "error", {"acme-spec/1/a": "error"}), row("v.b", "pass", {"acme-spec/1/b": "pass"})]
    v = verdicts(rows, held)[("acme-2.0", SPEC)]
    assert v["verdict"] == "incomplete"
    assert v["coverage"]["not_judged"][0]["clause_id"] == "acme-spec/1/a"


def test_a_clause_in_its_own_version_range_applies(clauses):
    held = {k: v for k, v in clauses.items() if k != "acme-spec/1/f"}
    rows = [row("v.a", "pass", {"acme-spec/1/a": "pass"}, version="2.1.3"),
            row("v.b", "pass", {"acme-spec/1/b": "pass"}, version="2.1.3")]
    v = verdicts(rows, held)[("acme-2.0", SPEC)]
    assert v["verdict"] == "incomplete"
    assert [c["clause_id"] for c in v["coverage"]["not_judged"]] == ["acme-spec/1/e"]


def test_without_the_spec_clause_file_coverage_is_unknown_and_never_conformant():
    v = verdicts(_everything_held(), {})[("acme-2.0", SPEC)]
    assert v["verdict"] == "incomplete" and v["coverage"]["status"] == "unknown"


def test_passing_rows_on_a_text_that_does_not_describe_the_implementation_are_not_a_conformance(clauses):
    rows = [row("v.a", "pass", {"acme-spec/1/a": "pass"}, impl="other", provenance={"product": "other"})]
    assert verdicts(rows, clauses)[("other", SPEC)]["verdict"] == "not-applicable"


def test_a_product_the_rows_do_not_name_leaves_no_clause_out(clauses):
    # a broker that never started: its rows name no product, so the product's clauses still apply
    rows = [row("v.a", "error", {"acme-spec/1/a": "error"}, provenance={})]
    cov = verdicts(rows, clauses)[("acme-2.0", SPEC)]["coverage"]
    assert cov["applying"] == 4 and cov["not_applicable"] == []


def test_a_failure_stays_not_conformant_whatever_the_coverage(clauses):
    rows = [row("v.a", "fail", {"acme-spec/1/a": "fail"})]
    v = verdicts(rows, clauses)[("acme-2.0", SPEC)]
    assert v["verdict"] == "not-conformant" and v["coverage"]["failed"] == ["acme-spec/1/a"]


def test_a_schema_1_row_gives_each_clause_its_outcome(clauses):
    r = row("v.ab", "pass", {})
    r["clause_outcomes"], r["clause_ids"] = None, ["acme-spec/1/a", "acme-spec/1/b"]
    v = verdicts([r], clauses)[("acme-2.0", SPEC)]
    assert v["coverage"]["judged_and_held"] == 2


# ---- roles and schema 2 rows --------------------------------------------------------------------

def test_schema_2_rows_read_as_product_except_mqconform_reference_codecs_and_mappings():
    assert role_of({"name": "rabbitmq-4.0.5", "kind": "broker"}) == "product"
    assert role_of({"name": "cloudevents-sdk-python", "kind": "codec"}) == "product"
    assert role_of({"name": "mqconform-reference", "kind": "codec"}) == "reference"
    assert role_of({"name": "mqconform-om/amqp091@rabbitmq-4.0.5", "kind": "provider"}) == "reference"
    assert role_of({"name": "mqconform-reference", "role": "product"}) == "product"   # a role given is kept
    old = {"implementation": {"name": "mqconform-reference", "kind": "codec", "provenance": [("a", "b")]}}
    assert implementation_of(old)["role"] == "reference" and implementation_of(old)["provenance"] == {"a": "b"}
    assert profile_of(old) == {}
    assert profile_of({"profile": {"r": {"status": "made-up", "evidence": None}}}) == {"r": {"status": "unknown",
                                                                                          "evidence": ""}}


def test_the_writer_writes_the_schemas_defaults(tmp_path):
    w = RecordWriter(tmp_path / "r.jsonl", {"run_id": "x" * 32})
    w.write({"outcome": "pass", "implementation": {"name": "mqconform-reference", "kind": "codec"}})
    w.write({"outcome": "pass", "implementation": {"name": "p", "kind": "provider", "role": "product"},
             "profile": {"priority": {"status": "native", "evidence": "seen"}}})
    w.close()
    a, b = read_records(tmp_path / "r.jsonl")
    assert a["schema_version"] == 6 and a["implementation"]["role"] == "reference" and a["profile"] == {}
    assert a["tally"] is None and b["tally"] is None and a["witnesses"] is None and a["shard"] is None
    assert b["implementation"]["role"] == "product" and b["profile"]["priority"]["status"] == "native"


def test_the_existing_schema_1_sample_keeps_its_verdicts_readable():
    import gzip

    with gzip.open(HERE / "data" / "results.jsonl.gz", "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    got = verdicts(rows, clause_files.load())
    # Every testable MUST clause of the 4.0 address format has a row there that held: the registry
    # names no part of a clause unjudged (both halves of the amq.default clause have vectors now).
    assert got[("rabbitmq-4.0.5", "rabbitmq-address@4.0")]["coverage"]["not_judged"] == []
    assert got[("mqconform-reference", "ce-amqp")]["covers"] == "reference"
    assert got[("mqconform-reference", "ce-amqp")]["verdict"] == "conformant"
    om = got[("rabbitmq-4.0.5", "openmessaging")]
    assert om["verdict"] is None and om["covers"].startswith("no verdict")


# ---- the broker profile --------------------------------------------------------------------------

def _p(status, evidence=""):
    return {"status": status, "evidence": evidence}


def _provider_rows():
    ref = "mqconform-om/amqp091@rabbitmq-4.0.5"
    ref10 = "mqconform-om/amqp10@rabbitmq-4.0.5"
    prov = lambda protocol: {"broker": "rabbitmq-4.0.5", "broker_product": "rabbitmq", "broker_version": "4.0.5",  # noqa: E731
                             "protocol": protocol}
    return [
        row("om.priority", "pass", {"openmessaging/p": "pass"}, impl=ref, kind="provider", spec="openmessaging",
            provenance=prov("amqp091"), profile_={"priority": _p("emulated", "the mapping sorted"),
                                                  "storeHost": _p("absent", "no field")}),
        row("om.priority-2", "pass", {"openmessaging/p": "pass"}, impl=ref, kind="provider", spec="openmessaging",
            provenance=prov("amqp091"), profile_={"priority": _p("native", "a priority 9 message overtook 3 queued")}),
        row("om.store", "pass", {"openmessaging/p": "pass"}, impl=ref10, kind="provider", spec="openmessaging",
            provenance=prov("amqp10"), profile_={"storeHost": _p("unknown")}),
        row("om.x", "pass", {"openmessaging/p": "pass"}, impl="rocketmq-openmessaging-5.5.0@rocketmq-5.5.0",
            kind="provider", version="5.5.0", spec="openmessaging", role="product",
            provenance={"broker": "rocketmq-5.5.0", "protocol": "remoting"},
            profile_={"storeHost": _p("native", "the broker's store host read back")}),
        row("om.delay", "fail", {"openmessaging/p": "fail"}, impl="rocketmq-openmessaging-5.5.0@rocketmq-5.5.0",
            kind="provider", version="5.5.0", spec="openmessaging", role="product",
            provenance={"broker": "rocketmq-5.5.0", "protocol": "remoting"},
            profile_={"delay": _p("absent", "the provider's delayed message came at once")}),
    ]


def _profile_rows(rows):
    """What the engines' profile_rows aggregate gives (reports/engine/aggregate.py), computed by hand."""
    groups: dict[tuple, list] = {}
    for r in rows:
        impl = implementation_of(r)
        for req, e in profile_of(r).items():
            key = (impl["provenance"].get("broker"), impl["provenance"].get("protocol"), req, e["status"], impl["role"])
            groups.setdefault(key, []).append((impl["name"], r["vector_id"], impl["role"], e["evidence"]))
    return [{"broker": b, "protocol": p, "requirement": q, "status": s, "n": len(xs),
             **dict(zip(("impl", "vector_id", "role", "evidence"), min(xs), strict=True))}
            for (b, p, q, s, _), xs in groups.items()]


def test_profile_statuses_combine_native_first_with_the_deciding_rows_evidence():
    reqs = profile.load_requirements(HERE / "data" / "profile.yaml")
    assert [q["id"] for q in reqs] == ["priority", "storeHost", "delay"]
    [rmq, rocket] = profile.broker_profiles(_profile_rows(_provider_rows()), reqs)
    assert rmq["broker"] == "rabbitmq-4.0.5" and rmq["protocols"] == ["amqp091", "amqp10"]
    by = {q["id"]: q["by_protocol"] for q in rmq["requirements"]}
    assert by["priority"]["amqp091"]["status"] == "native"
    assert by["priority"]["amqp091"]["evidence"] == "a priority 9 message overtook 3 queued"
    assert by["priority"]["amqp091"]["rows"] == {"native": 1, "emulated": 1}
    assert by["priority"]["amqp10"]["status"] == "unknown"      # no row of that protocol spoke of it
    assert by["storeHost"]["amqp091"]["status"] == "absent" and by["storeHost"]["amqp10"]["status"] == "unknown"
    assert by["delay"]["amqp091"]["status"] == "unknown"         # in the file, in no row
    assert rmq["requirements"][0]["quote"].startswith("The priority")
    assert rocket["requirements"][1]["by_protocol"]["remoting"]["status"] == "native"
    # a product provider's absence is the provider's (its own code stands between), never the broker's
    assert rocket["requirements"][2]["id"] == "delay" and rocket["requirements"][2]["by_protocol"]["remoting"]["status"] \
        == "unknown"


def test_without_the_requirements_file_the_profile_names_requirements_by_id(tmp_path):
    assert profile.load_requirements(tmp_path / "absent.yaml") == []
    [rmq, _] = profile.broker_profiles(_profile_rows(_provider_rows()), [])
    assert [q["id"] for q in rmq["requirements"]] == ["priority", "storeHost"]
    assert rmq["requirements"][0]["title"] == "priority"


def _report(clauses):
    rows = _provider_rows() + [row("v.a", "pass", {"acme-spec/1/a": "pass"}),
                               row("om.old", "fail", {"openmessaging/p": "fail"}, spec="openmessaging")]
    lc, cc = certificate.level_counts(rows), certificate.clause_counts(rows)
    agg = model.Aggregates(
        runs=[{"impl": n, "run_id": "r", "run_started": "t", "run_us": 1, "kind": i["kind"], "version": i["version"],
               "vectors_digest": "d", "suite_version": "s", "counts": {"pass": 1}}
              for n, i in {r["implementation"]["name"]: r["implementation"] for r in rows}.items()],
        level_counts=lc,
        cells=[{**c, "worst": "pass", "levels": ["MUST"], "vectors": []} for c in cc],
        identities=[{"impl": r["implementation"]["name"], "implementation": implementation_of(r)} for r in rows],
        profile_rows=_profile_rows(rows))
    return model.build_report(agg, clauses, generated="now",
                              requirements=profile.load_requirements(HERE / "data" / "profile.yaml")), rows


def test_the_report_says_what_each_verdict_covers_and_shows_the_broker_profile(clauses):
    report, rows = _report(clauses)
    covers = {v["implementation"]: v["covers"] for v in report["verdicts"]}
    assert covers["mqconform-om/amqp091@rabbitmq-4.0.5"] == "reference"
    assert covers["rocketmq-openmessaging-5.5.0@rocketmq-5.5.0"] == "provider verdict"
    assert covers["acme-2.0"] == "broker verdict"
    # the broker's own OpenMessaging rows (an old run) are shown, never as its verdict
    assert ("acme-2.0", "openmessaging") not in {(v["implementation"], v["spec"]) for v in report["verdicts"]}
    assert [(v["implementation"], v["spec"]) for v in report["without_verdict"]] == [("acme-2.0", "openmessaging")]
    assert [p["broker"] for p in report["broker_profiles"]] == ["rabbitmq-4.0.5", "rocketmq-5.5.0"]
    md, html = render_md.render(report), render_html.render(report)
    # the profile per broker in index.html; summary.md compares the brokers on each requirement
    assert '<details class="profile" id="profile-rabbitmq-4.0.5" data-broker="rabbitmq-4.0.5">' in html
    assert ('<td class="o-pass" data-status="native"><b>native</b><div class="msg">a priority 9 message overtook 3 '
            "queued") in html
    assert "| Priority | · | [native][e3] | [not observed][e4] |" in md and "[e3]: index.html#profile-rabbitmq-4.0.5" in md
    assert "| mqconform-om/amqp091 on openmessaging | [incomplete][e5] |" in md   # a reference: below the brokers
    assert "Reference implementations (mqconform's own code, never a product): 2 verdict(s)" in md
    assert "| provider verdict |" in md
    assert "acme-2.0 on openmessaging 1.0: 1 row(s)" in md
    assert "acme-spec/1/b — no row judged it" in md
    assert 'id="broker-profiles"' in html and 'data-covers="provider verdict"' in html
    assert 'data-requirement="storeHost"' in html and "not judged: 2" in html
    json.dumps(report)   # compliance.json


def test_certificate_and_report_give_the_same_verdicts(clauses):
    report, rows = _report(clauses)
    mine = {}
    for impl in {r["implementation"]["name"] for r in rows}:
        mine.update({(impl, v["spec"]): v["verdict"] for v in certificate.spec_verdicts(
            [r for r in rows if r["implementation"]["name"] == impl], clauses) if v["verdict"] is not None})
    assert mine == {(v["implementation"], v["spec"]): v["verdict"] for v in report["verdicts"]}


def test_the_certificate_shows_coverage_and_the_clauses_not_judged(clauses):
    rows = [row("v.a", "pass", {"acme-spec/1/a": "pass"})]
    f = certificate.facts(rows, scope=[], suite_commit="abc", made="2026-11-26T00:00:00Z")
    f["specs"] = certificate.spec_verdicts(rows, clauses)
    text = certificate.render(f)
    assert "| acme-spec | 1.0 | **incomplete** | broker verdict | 3 / 1 (of 4 testable) |" in text
    assert "### acme-spec 1.0: incomplete" in text and "- acme-spec/1/b: no row judged it" in text
    assert certificate.overall(f) == "incomplete"
    assert text.splitlines()[2].startswith("**Overall: INCOMPLETE**: acme")


# ---- the DuckDB baseline reads schema 2 and schema 3 Parquet alike -----------------------------------

def test_duckdb_reads_roles_and_profiles_of_schema_3_and_defaults_of_older_files(tmp_path, clauses):
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    from reports.baseline import baseline_duckdb
    from reports.rows.schema import arrow_schema

    new = tmp_path / "new"
    new.mkdir()
    rows = _provider_rows()
    for r in rows:
        r.setdefault("profile", {})
        r["profile"] = list(r["profile"].items())
        r["implementation"]["provenance"] = list(r["implementation"]["provenance"].items())
        r["clause_outcomes"] = list(r["clause_outcomes"].items())
    pq.write_table(pa.Table.from_pylist(rows, schema=arrow_schema()), new / "p.parquet")
    con = duckdb.connect()
    agg = baseline_duckdb.compute(con, str(new / "*.parquet"))
    by = {i["impl"]: i["implementation"] for i in agg.identities}
    assert by["mqconform-om/amqp091@rabbitmq-4.0.5"]["role"] == "reference"     # given none: read as reference
    assert by["rocketmq-openmessaging-5.5.0@rocketmq-5.5.0"]["role"] == "product"
    [rmq, _] = profile.broker_profiles(agg.profile_rows, [])
    got = {q["id"]: q["by_protocol"]["amqp091"]["status"] for q in rmq["requirements"]}
    assert got == {"priority": "native", "storeHost": "absent"}
    # a file of schema 2: no implementation.role, no profile
    old = tmp_path / "old"
    old.mkdir()
    schema2 = pa.schema([f for f in arrow_schema() if f.name != "profile"])
    impl = schema2.field("implementation").type
    schema2 = schema2.set(schema2.get_field_index("implementation"),
                          pa.field("implementation", pa.struct([f for f in impl if f.name != "role"])))
    r = row("v.a", "pass", {"acme-spec/1/a": "pass"}, impl="mqconform-reference", kind="codec")
    r["clause_outcomes"] = list(r["clause_outcomes"].items())
    r["implementation"]["provenance"] = list(r["implementation"]["provenance"].items())
    pq.write_table(pa.Table.from_pylist([r], schema=schema2), old / "o.parquet")
    agg = baseline_duckdb.compute(duckdb.connect(), str(old / "*.parquet"))
    assert agg.identities[0]["implementation"]["role"] == "reference" and agg.profile_rows == []
