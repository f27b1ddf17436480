"""Verdicts, pass rates, names: the plain-Python rules, without Spark."""
from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

from reports.rows.outcomes import OUTCOME_ORDER, SEVERITY
from reports.views import model

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("by_level, expected", [
    ({"MUST": {"pass": 3}, "MUST NOT": {"pass": 1}, "SHOULD": {"pass": 2}}, "conformant"),
    ({"MUST": {"pass": 3}, "SHOULD NOT": {"fail": 1}}, "conformant-except-should"),
    ({"MUST": {"pass": 3}, "SHOULD": {"xfail": 1}}, "conformant-except-should"),
    ({"MUST": {"pass": 3, "xfail": 1}}, "not-conformant"),
    ({"MUST NOT": {"fail": 1}, "MUST": {"error": 2}}, "not-conformant"),
    ({"MUST": {"pass": 3, "error": 1}, "SHOULD": {"fail": 1}}, "incomplete"),
    ({"MUST": {"pass": 3}, "SHOULD": {"error": 1}}, "incomplete"),
    ({"MUST": {"pass": 3}, "SHOULD": {"error": 1, "fail": 1}}, "conformant-except-should"),
    ({"MUST": {"pass": 3, "unsupported": 2, "not_applicable": 1}, "MAY": {"unsupported": 4}}, "conformant"),
    ({"MUST": {"pass": 1}, "MAY": {"fail": 1, "error": 1}}, "conformant"),
    ({"MUST": {"xpass": 1}}, "conformant"),
    ({"MUST": {"not_applicable": 2}, "MAY": {"unsupported": 1}}, "incomplete"),
    ({"MUST": {"not_applicable": 2}, "SHOULD": {"not_applicable": 1}}, "not-applicable"),
    ({"REQUIRED-ish": {"fail": 1}}, "not-conformant"),  # unknown level counts as MUST
])
def test_verdict(by_level, expected):
    assert model.verdict(by_level) == expected


def test_pass_rate():
    assert model.pass_rate({"pass": 2, "xpass": 1, "fail": 1}) == 0.75
    assert model.pass_rate({"pass": 1, "error": 1, "unsupported": 5, "not_applicable": 5}) == 0.5
    assert model.pass_rate({"unsupported": 1}) is None


def test_outcome_order_is_total():
    assert sorted(SEVERITY, key=SEVERITY.get, reverse=True) == list(OUTCOME_ORDER)
    assert OUTCOME_ORDER[0] == "fail" and OUTCOME_ORDER[-1] == "pass"


def test_badge_names_are_safe():
    assert model.badge_name("alpha", "ce-amqp") == "alpha--ce-amqp.svg"
    assert model.badge_name("../../etc/passwd", "rabbitmq-address@4.0") == "etc_passwd--rabbitmq-address_4.0.svg"
    assert model.badge_name("a b/c", "") == "a_b_c--_.svg"
    assert re.fullmatch(r"[A-Za-z0-9._-]+", model.badge_name('x<"y">&z', "ce-amqp"))


def test_empty_report_renders():
    from reports.render import render_html, render_md

    report = model.build_report(model.Aggregates(), {}, generated="now")
    assert report["verdicts"] == [] and report["matrix"] == []
    assert "<table" not in render_html.render(report).split('id="compliance-matrix"')[1].split("</section>")[0]
    assert "No results." in render_md.render(report)


def test_schema_matches_docs_results_md():
    """reports/rows/schema.py and the table in docs/results.md name the same fields, in order."""
    from reports.rows.schema import FIELD_NAMES, IMPLEMENTATION, arrow_schema

    doc = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    table = doc.split("| field | type | meaning |")[1].split("\n\n")[0]
    documented = re.findall(r"^\| `([a-z_]+)` \|", table, re.M)
    assert documented == FIELD_NAMES
    assert [f.name for f in IMPLEMENTATION.fields] == ["name", "kind", "version", "provenance", "role"]
    assert arrow_schema().names == FIELD_NAMES


def test_coverage_subcommand_dispatch(monkeypatch):
    import reports.views
    from reports.__main__ import main

    seen = []
    fake = types.ModuleType("reports.views.coverage")
    fake.main = lambda argv: seen.append(argv) or 0
    monkeypatch.setitem(sys.modules, "reports.views.coverage", fake)
    monkeypatch.setattr(reports.views, "coverage", fake, raising=False)
    assert main(["coverage", "--x", "y"]) == 0
    assert seen == [["--x", "y"]]
