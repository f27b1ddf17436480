"""reports/views/known_deviations.py: the expectation entry beside each row it accounts for, the quarantine beside a
flaky vector; verdicts untouched. Plain Python, no Spark."""
from __future__ import annotations

import datetime as dt

from reports.render import render_html, render_md
from reports.views import known_deviations as known
from reports.views import model

ENTRIES = """\
expectations:
  - {implementation: b, clause: "s/1/*", reason: "drops the prefix", link: "https://bugs.example/b/1"}
  - {implementation: b, vector: v2, outcome: error, error_kind: adapter, reason: "our client cannot say it"}
  - {implementation: b, vector: v3, outcome: flaky, reason: "timing", link: "https://bugs.example/b/3"}
"""


def vec(vid, outcome, clause_outcome, kind=None):
    return {"vector_id": vid, "test_id": vid, "level": "MUST", "outcome": outcome, "clause_outcome": clause_outcome,
            "expected_outcome": "pass", "message": "m", "failed_step": None, "error_kind": kind, "notes": []}


def test_entries_are_shown_beside_the_rows_they_account_for(tmp_path):
    (tmp_path / "e.yaml").write_text(ENTRIES)
    agg = model.Aggregates(
        runs=[{"impl": "b", "run_id": "r", "run_started": "t", "run_us": 1, "kind": "broker", "version": "1",
               "vectors_digest": "d", "suite_version": "0", "counts": {"fail": 2, "error": 1}}],
        cells=[{"spec": "s", "spec_revision": "1", "clause_id": "s/1/a", "impl": "b", "worst": "fail",
                "counts": {"fail": 1, "pass": 1}, "levels": ["MUST"],
                "vectors": [vec("v1", "fail", "fail"), vec("v4", "fail", "pass")]},
               {"spec": "s", "spec_revision": "1", "clause_id": "s/2/b", "impl": "b", "worst": "error",
                "counts": {"error": 1}, "levels": ["MUST"], "vectors": [vec("v2", "error", "error", "adapter")]}],
        level_counts=[{"impl": "b", "spec": "s", "spec_revision": "1", "level": "MUST", "outcome": "fail", "n": 2}],
        flaky=[{"impl": "b", "vector_id": "v3", "pairs": 2, "changes": 1}])
    report = model.build_report(agg, {}, generated="now")
    before = [v["verdict"] for v in report["verdicts"]]
    known.annotate(report, known.load([str(tmp_path / "e.yaml")]), dt.date(2026, 11, 21))
    cells = {(r["clause_id"], v["vector_id"]): v for r in report["matrix"] for v in r["cells"]["b"]["vectors"]}
    # v1 fails s/1/a: the clause entry accounts for it, with its link; v4 passed that clause: nothing.
    assert cells[("s/1/a", "v1")]["expectation"]["link"] == "https://bugs.example/b/1"
    assert "expectation" not in cells[("s/1/a", "v4")]
    assert cells[("s/2/b", "v2")]["expectation"]["outcome"] == "error"
    assert report["flaky"][0]["quarantine"]["reason"] == "timing"
    assert [v["verdict"] for v in report["verdicts"]] == before == ["not-conformant"]
    html, md = render_html.render(report), render_md.render(report)
    assert 'href="https://bugs.example/b/1"' in html and "quarantined: timing" in html
    assert "[bug report](https://bugs.example/b/1)" in md and "quarantined in the gate: timing" in md


def test_a_level_read_from_a_sentence_without_a_keyword_is_said_so():
    """Issue 41 item 6: a clause whose registry entry says `keyword: none` is marked in the grid and its
    evidence says the level was read from a sentence with no RFC 2119 keyword."""
    agg = model.Aggregates(
        runs=[{"impl": "b", "run_id": "r", "run_started": "t", "run_us": 1, "kind": "broker", "version": "1",
               "vectors_digest": "d", "suite_version": "0", "counts": {"fail": 1}}],
        cells=[{"spec": "s", "spec_revision": "1", "clause_id": "s/1/a", "impl": "b", "worst": "fail",
                "counts": {"fail": 1}, "levels": ["MUST"], "vectors": [vec("v1", "fail", "fail")]}],
        level_counts=[{"impl": "b", "spec": "s", "spec_revision": "1", "level": "MUST", "outcome": "fail", "n": 1}],
        flaky=[])
    clauses = {"s/1/a": {"spec": "s", "spec_revision": "1", "level": "MUST", "keyword": "none", "quote": "q",
                         "testable": True, "applies_to": (), "unjudged_part": None}}
    html = render_html.render(model.build_report(agg, clauses, generated="now"))
    assert "<td>MUST*</td>" in html and "no RFC 2119 keyword" in html
    plain = render_html.render(model.build_report(agg, {"s/1/a": {**clauses["s/1/a"], "keyword": "MUST"}}, generated="now"))
    assert "<td>MUST*</td>" not in plain and "no RFC 2119 keyword" not in plain
