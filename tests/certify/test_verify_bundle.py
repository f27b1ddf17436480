"""`verify` over a whole bundle, without a broker: a bundle made with the suite's own code from rows of
this checkout's vectors verifies; each forgery of the derived files or of the folder is refused; rows
flipped with everything remade verify (whole and self-consistent), which is why only --rerun
(tests/certify/test_forgery.py, with a broker) can show where rows came from."""
from __future__ import annotations

import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from certify import bundle, certificate, regen, verify
from certify.run import suite_commit
from fixtures.vectordata.vectors import load_vectors
from fixtures.verdict.records import suite_version

from ..paths import ROOT


def _message(v, outcome: str) -> str:
    """A row's message; a not_applicable one gives the reason the suite gives (the auditor recomputes it)."""
    if outcome == "pass":
        return ""
    if outcome == "not_applicable":
        [(key, want)] = v.input["requires"].items()
        return f"needs {key}={want!r}; the fact {key} is not known for mine: add ?{key}=... to --endpoint mine's URL"
    return "m"


def _rows() -> list[dict]:
    vs = load_vectors(ROOT / "vectors")
    broker = [v for v in vs.vectors if v.spec == "rabbitmq-address@4.0" and v.kind != "address"]
    # a broker's bundle: broker vectors only, the not_applicable one a vector that states what it requires
    plain = [v for v in broker if not v.input.get("requires")][:5]
    picked = plain[:3] + [next(v for v in broker if v.input.get("requires"))] + plain[3:]
    outcomes = ["pass", "fail", "pass", "not_applicable", "pass", "fail"]
    rows = []
    for v, o in zip(picked, outcomes, strict=True):
        rows.append({
            "schema_version": 2, "run_id": "c" * 32, "run_started": "2026-11-26T10:00:00Z",
            "suite_version": suite_version(ROOT), "vectors_digest": vs.digest, "spec": v.spec, "spec_revision": "4.0",
            "clause_ids": list(v.clauses), "level": v.level,
            "clause_outcomes": {c: o for c in v.clauses} if o in ("pass", "fail") else {},
            "failed_step": None, "error_kind": None, "notes": [], "set_by": {},
            "test_id": f"suites/rabbitmq_address/test_x.py::test[mine-{v.id}]", "vector_id": v.id,
            "vector_status": v.status, "implementation": {"name": "mine", "kind": "broker", "version": "4.0.5",
                                                          "provenance": {"endpoint": "amqp://guest@h:5672"}},
            "adapter": "pika 1.3.2", "outcome": o, "expected_outcome": "pass", "message": _message(v, o),
            "started": "2026-11-26T10:00:01Z", "duration_s": 0.1})
    return rows


def make(b: Path, rows: list[dict], generated="2026-11-26T10:05:00Z", made="2026-11-26T10:05:01Z") -> None:
    """A bundle as certify writes it (the report through the DuckDB engine, not Spark: same model)."""
    from reports.render.outputs import write_outputs

    b.mkdir(exist_ok=True)
    (b / bundle.RESULTS).write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = ET.Element("testsuite", name="pytest", errors="0", failures="0", skipped="0", tests=str(len(rows)))
    for r in rows:
        case = ET.SubElement(suite, "testcase", classname="suites.rabbitmq_address.test_x",
                             name=r["test_id"].split("::")[1], time="0.1")
        ET.SubElement(ET.SubElement(case, "properties"), "property", name="mqconform", value=json.dumps(
            {k: r[k] for k in ("spec", "clause_ids", "level", "test_id", "vector_id", "implementation", "outcome")}))
        want = regen.shown_as(r["outcome"], r["level"])
        if None not in want:
            ET.SubElement(case, "failure" if "failure" in want else "skipped", message=r["message"])
    for attr, tag in (("failures", "failure"), ("skipped", "skipped")):
        suite.set(attr, str(sum(1 for c in suite.iter("testcase") if c.find(tag) is not None)))
    ET.ElementTree(suite).write(b / bundle.JUNIT, encoding="utf-8", xml_declaration=True)
    if (b / bundle.REPORT).exists():
        import shutil
        shutil.rmtree(b / bundle.REPORT)
    write_outputs(regen.report_of(rows, generated), b / bundle.REPORT)
    f = certificate.facts(rows, scope=["rabbitmq-address@4.0"], suite_commit=suite_commit(), made=made)
    (b / bundle.CERTIFICATE_JSON).write_text(json.dumps(f, indent=1) + "\n")
    (b / bundle.CERTIFICATE_MD).write_text(certificate.render(f))
    bundle.write_manifest(b)


def run(b: Path) -> tuple[int, str]:
    out = io.StringIO()
    code = verify.verify(str(b), out=out, accept_local_changes=True)
    return code, out.getvalue()


@pytest.fixture(scope="module")
def genuine(tmp_path_factory):
    b = tmp_path_factory.mktemp("bundle") / "b"
    make(b, _rows())
    return b


@pytest.fixture
def b(genuine, tmp_path):
    import shutil

    shutil.copytree(genuine, tmp_path / "b", symlinks=True)
    return tmp_path / "b"


def test_a_bundle_made_by_the_suite_verifies(genuine):
    code, said = run(genuine)
    assert code == 0, said
    assert "only `--rerun` shows" in said


def test_junit_without_its_failures(b):
    text = (b / bundle.JUNIT).read_text()
    (b / bundle.JUNIT).write_text(text.replace('<failure message="m" />', "").replace('failures="2"', 'failures="0"'))
    bundle.write_manifest(b)
    code, said = run(b)
    assert code == 1 and "shown as None, a row fail at MUST shows as error or failure" in said, said


@pytest.mark.parametrize("rel", ["summary.md", "index.html", "badges/mine--rabbitmq-address_4.0.svg"])
def test_an_edited_report_file(b, rel):
    p = b / bundle.REPORT / rel
    p.write_text(p.read_text().replace("not-conformant", "conformant"))
    bundle.write_manifest(b)
    code, said = run(b)
    assert code == 1 and f"report/{rel}: line " in said, said


@pytest.mark.parametrize("how, said", [
    ("extra", "notes.txt: no file of that name is part of a bundle"),
    ("symlink", "report/badges/mine--rabbitmq-address_4.0.svg: a symbolic link"),
    ("empty", "report/more/: an empty folder"),
])
def test_nothing_but_the_bundles_files(b, tmp_path, how, said):
    if how == "extra":
        (b / "notes.txt").write_text("conformant")
        bundle.write_manifest(b)
    elif how == "symlink":
        badge = b / bundle.REPORT / "badges" / "mine--rabbitmq-address_4.0.svg"
        (tmp_path / "x.svg").write_bytes(badge.read_bytes())
        badge.unlink()
        os.symlink(tmp_path / "x.svg", badge)
    else:
        (b / bundle.REPORT / "more").mkdir()
    code, out = run(b)
    assert code == 1 and said in out, out


def test_a_row_from_the_future_makes_no_certificate(b):
    rows = [json.loads(ln) for ln in (b / bundle.RESULTS).read_text().splitlines()]
    rows[0]["started"] = "2099-01-01T00:00:00Z"
    make(b, rows)
    code, said = run(b)
    assert code == 1 and "results.jsonl:1: started 2099-01-01T00:00:00Z is after now" in said, said


def test_rows_flipped_and_everything_remade_verify_without_a_rerun(b):
    rows = [json.loads(ln) for ln in (b / bundle.RESULTS).read_text().splitlines()]
    for r in rows:
        if r["outcome"] == "fail":
            r.update(outcome="pass", message="", clause_outcomes={c: "pass" for c in r["clause_ids"]})
    make(b, rows)
    code, said = run(b)
    assert code == 0, said   # a hash the bundle makes of itself proves it whole, not true: --rerun does
