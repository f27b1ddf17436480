"""Schema 3 through Spark: roles, a broker's OpenMessaging rows without a verdict, the broker profile,
and schema 1/2 rows beside schema 3 ones (one build)."""
from __future__ import annotations

import json

from test_reports_coverage import CLAUSES, SPEC, _provider_rows, row


def test_a_build_shows_roles_profiles_and_reads_older_rows(spark, tmp_path):
    from reports.engine import build

    clause_dir = tmp_path / "clauses"
    clause_dir.mkdir()
    (clause_dir / f"{SPEC}.yaml").write_text(CLAUSES, encoding="utf-8")
    old = row("v.a", "pass", {"acme-spec/1/a": "pass"})          # schema 2: no role, no profile
    old["schema_version"] = 2
    old_om = row("om.old", "fail", {"openmessaging/p": "fail"}, spec="openmessaging")
    ref = row("v.b", "pass", {"acme-spec/1/b": "pass"}, impl="mqconform-reference", kind="codec")
    ref["schema_version"], ref["clause_outcomes"] = 1, None        # schema 1: clause_ids take the row's outcome
    rows = [*(_provider_rows()), old, old_om, ref]
    results = tmp_path / "r.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "site"
    assert build.run([str(results)], str(out), spark=spark, clause_dir=str(clause_dir)) == 0
    report = json.loads((out / "compliance.json").read_text(encoding="utf-8"))
    roles = {i["name"]: i["role"] for i in report["implementations"]}
    assert roles["mqconform-reference"] == "reference" and roles["acme-2.0"] == "product"
    assert roles["mqconform-om/amqp091@rabbitmq-4.0.5"] == "reference"
    covers = {(v["implementation"], v["spec"]): v["covers"] for v in report["verdicts"]}
    assert covers[("rocketmq-openmessaging-5.5.0@rocketmq-5.5.0", "openmessaging")] == "provider verdict"
    assert covers[("mqconform-reference", SPEC)] == "reference"
    assert ("acme-2.0", "openmessaging") not in covers
    assert [v["implementation"] for v in report["without_verdict"]] == ["acme-2.0"]
    acme = next(v for v in report["verdicts"] if v["implementation"] == "acme-2.0")
    assert acme["verdict"] == "incomplete"
    assert [c["clause_id"] for c in acme["coverage"]["not_judged"]] == ["acme-spec/1/b", "acme-spec/1/f"]
    [rmq, rocket] = report["broker_profiles"]
    pri = next(q for q in rmq["requirements"] if q["id"] == "priority")["by_protocol"]["amqp091"]
    assert pri["status"] == "native" and pri["evidence"] == "a priority 9 message overtook 3 queued"
    assert rocket["broker"] == "rocketmq-5.5.0"
    md = (out / "summary.md").read_text(encoding="utf-8")
    # the profile compared across brokers in summary.md, whole in index.html
    assert "| **OpenMessaging: what does the broker do itself?** |" in md and "provider verdict" in md
    assert 'id="profile-rabbitmq-4.0.5-priority"' in (out / "index.html").read_text(encoding="utf-8")
    # Compare brokers is in compliance.json too: the broker profile's cells, the reference mappings apart
    cols = [c["broker"] for c in report["compare_brokers"]["columns"]]
    assert "rabbitmq-4.0.5" in cols and not [c for c in cols if c.startswith("mqconform")]
