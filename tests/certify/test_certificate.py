"""Declared deviations on a certificate, and verify's rule for a suite with local changes (pure)."""
from __future__ import annotations

import json

from certify import bundle, certificate, counts, verify
from fixtures.verdict import expectations as exp_mod


def _row(vector, outcome, clauses, clause_outcomes=None, error_kind=None):
    return {"implementation": {"name": "acme"}, "vector_id": vector, "outcome": outcome, "clause_ids": clauses,
            "clause_outcomes": clause_outcomes, "error_kind": error_kind}


def _entries(tmp_path, text):
    f = tmp_path / "deviations.yaml"
    f.write_text(text, encoding="utf-8")
    return exp_mod.load(f)


def test_a_declared_deviation_lists_the_failing_rows_it_accounts_for(tmp_path):
    import datetime as dt

    rows = [
        _row("om.store-host", "fail", ["om/store-host", "om/other"], {"om/store-host": "fail", "om/other": "pass"}),
        _row("om.other-vector", "fail", ["om/other"], {"om/other": "pass", "om/third": "fail"}),
        _row("om.crash", "error", ["om/crash"], error_kind="precondition"),
        _row("om.passes", "pass", ["om/store-host"], {"om/store-host": "pass"}),
    ]
    entries = _entries(tmp_path, """expectations:
  - {implementation: acme, clause: om/store-host, reason: no store host}
  - {implementation: acme, clause: om/other, reason: declared on a clause no row fails}
  - {implementation: acme, vector: om.crash, outcome: error, reason: setup fails here}
  - {implementation: acme, vector: om.crash, reason: a fail entry does not cover an error}
""")
    got = certificate.declared(rows, entries, dt.date(2026, 11, 23))
    assert [d["rows"] for d in got] == [["om.store-host"], [], ["om.crash"], []]
    text = certificate.render({**_facts(), "declared_deviations": got})
    assert "they change no verdict" in text and "none (not observed in this run)" in text


def _facts():
    return {"schema": certificate.SCHEMA, "made": "2026-11-23T00:00:00Z",
            "implementation": {"name": "acme", "kind": "broker", "version": None, "endpoint": None, "server": {},
                               "adapters": []},
            "suite": {"version": "0.1.0+gabc1234", "commit": "abc1234", "vectors_digest": "d"},
            "run": {"run_id": "r", "run_started": "t", "rows": 0, "outcomes": {}}, "counts": counts.of([]),
            "scope": ["every spec"],
            "specs": [], "declared_deviations": []}


def test_a_certificate_made_with_local_changes_verifies_only_when_accepted(tmp_path):
    commit = f"abc1234def {bundle.LOCAL_CHANGES}"
    (tmp_path / bundle.CERTIFICATE_JSON).write_text(json.dumps({"suite": {"commit": commit}}))
    rows = [{"suite_version": "0.1.0+gabc1234", "vectors_digest": "x"}]
    said = verify._suite(tmp_path, rows)
    assert any("no published suite can judge these rows again" in p for p in said), said
    assert not any("no published suite" in p for p in verify._suite(tmp_path, rows, accept_local_changes=True))


def test_a_spec_that_does_not_apply_gives_the_reason_most_of_its_rows_give():
    def na(msg):
        return {"implementation": {"name": "acme"}, "spec": "s", "spec_revision": "r", "level": "MUST",
                "outcome": "not_applicable", "message": msg}

    rows = [na("the text describes x 3.13.* (a clause of its own)")] + [na("the text describes x 4.0.0-*")] * 3
    [s] = certificate.spec_verdicts(rows)
    assert s["verdict"] == "not-applicable" and s["why"] == "the text describes x 4.0.0-*"
