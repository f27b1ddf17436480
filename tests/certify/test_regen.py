"""verify makes the bundle's derived files again from its rows (certify/regen.py), without a broker:
the report (compliance.json as data, summary.md, index.html, badges byte for byte) and junit.xml case
by case. An edit of any of them, or a file the rows do not give, is named."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from certify import bundle, regen

C = "rabbitmq-address@4.0/target-v1/exchange-routing-key"


def row(n, outcome, level="MUST"):
    return {"schema_version": 2, "run_id": "a" * 32, "run_started": "2026-11-26T10:00:00Z", "suite_version": "0.1.0",
            "vectors_digest": "sha256:d", "spec": "rabbitmq-address@4.0", "spec_revision": "4.0", "clause_ids": [C],
            "level": level, "clause_outcomes": {C: outcome} if outcome in ("pass", "fail") else {},
            "failed_step": None, "error_kind": None, "notes": [], "set_by": {}, "test_id": f"suites/t.py::test[{n}]",
            "vector_id": f"v{n}", "vector_status": "stable",
            "implementation": {"name": "mine", "kind": "broker", "version": "4.0.5", "provenance": {"endpoint": "amqp://h"}},
            "adapter": "pika 1.3.2", "outcome": outcome, "expected_outcome": "pass", "message": "" if outcome == "pass" else "m",
            "started": "2026-11-26T10:00:01Z", "duration_s": 0.1}


ROWS = [row(1, "pass"), row(2, "fail"), row(3, "not_applicable"), row(4, "fail", "SHOULD")]


@pytest.fixture
def folder(tmp_path):
    from reports.render.outputs import write_outputs

    write_outputs(regen.report_of(ROWS, "2026-11-26T11:00:00Z"), tmp_path / bundle.REPORT)
    suite = ET.Element("testsuite", name="pytest", tests="4", failures="1", errors="0", skipped="2")
    for r in ROWS:
        case = ET.SubElement(suite, "testcase", classname="suites.t", name=r["test_id"].split("::")[1], time="0.1")
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", name="mqconform",
                      value=json.dumps({k: r[k] for k in ("test_id", "vector_id", "outcome", "implementation", "level")}))
        want = regen.shown_as(r["outcome"], r["level"])
        if None not in want:
            ET.SubElement(case, "failure" if "failure" in want else "skipped", message=r["message"])
    ET.ElementTree(ET.Element("testsuites")).getroot().append(suite)
    ET.ElementTree(suite).write(tmp_path / bundle.JUNIT, encoding="utf-8", xml_declaration=True)
    return tmp_path


def test_genuine_files_are_what_the_rows_give(folder):
    assert regen.check_report(folder, ROWS) == []
    assert regen.check_junit(folder, ROWS) == []


@pytest.mark.parametrize("rel", ["summary.md", "index.html", "badges/mine--rabbitmq-address_4.0.svg"])
def test_an_edited_rendering(folder, rel):
    p = folder / bundle.REPORT / rel
    p.write_text(p.read_text().replace("not-conformant", "conformant"))
    said = regen.check_report(folder, ROWS)
    assert len(said) == 1 and said[0].startswith(f"report/{rel}: line "), said


def test_an_edited_compliance_json_and_an_extra_report_file(folder):
    p = folder / bundle.REPORT / "compliance.json"
    rep = json.loads(p.read_text())
    rep["verdicts"][0]["verdict"] = "conformant"
    p.write_text(json.dumps(rep))
    (folder / bundle.REPORT / "badges" / "other.svg").write_text("<svg/>")
    said = "\n".join(regen.check_report(folder, ROWS))
    assert 'report/compliance.json: verdicts[0].verdict: the rows give "not-conformant", the file says "conformant"' in said
    assert "report/badges/other.svg: the rows give no such file" in said


def test_junit_with_a_failure_removed_or_a_row_changed(folder):
    tree = ET.parse(folder / bundle.JUNIT)
    case = [c for c in tree.iter("testcase") if c.find("failure") is not None][0]
    case.remove(case.find("failure"))
    tree.write(folder / bundle.JUNIT)
    said = "\n".join(regen.check_junit(folder, ROWS))
    assert "suites/t.py::test[2]: shown as None, a row fail at MUST shows as error or failure" in said
    assert "testsuite pytest: failures=1, its test cases give 0" in said
    changed = [dict(r, outcome="pass") if r["vector_id"] == "v2" else r for r in ROWS]
    assert any("outcome differ from the row" in p for p in regen.check_junit(folder, changed))
