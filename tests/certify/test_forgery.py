"""A genuine bundle of a catalog RabbitMQ 4.0.5 (certified as an endpoint, `--spec rabbitmq-address@4.0`)
verifies, rerun included; each forgery of issue 26 is refused by `verify`, with `--rerun` where the
forgery is in the rows (there the bundle is remade with the suite's own code and verifies without it).

Slow (a certification with its report, then two reruns, each starting a broker): marked `containers`."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from certify import bundle, certificate, regen, timing

from ..paths import ROOT

# The module's tests share `genuine` (a certification and its broker): one worker runs them all.
pytestmark = [pytest.mark.containers, pytest.mark.xdist_group("forgery")]


def mqconform(*args: str, env: dict | None = None, timeout: int = 1800) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(ROOT / "mqconform"), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    print(f"$ ./mqconform {' '.join(args)}  -> exit {proc.returncode}\n{proc.stdout}{proc.stderr[-3000:]}")
    return proc


@pytest.fixture(scope="module")
def genuine(tmp_path_factory):
    from fixtures.provision import engine, start, stop_all
    from fixtures.verdict.records import new_run_id

    eng = engine.ensure()
    rt = start("rabbitmq-4.0.5", run_id=new_run_id())
    try:
        out = tmp_path_factory.mktemp("certify") / "bundle"
        url = f"mine=amqp://guest@{rt.host}:{rt.port('amqp091')}?amqp_address_v1=permitted"
        env = {**os.environ, **eng.env, "MQCONFORM_PASSWORD_mine": "guest", "MQCONFORM_RUN_ID": uuid.uuid4().hex}
        proc = mqconform("certify", "--endpoint", url, "--spec", "rabbitmq-address@4.0", "--out", str(out), env=env)
        assert proc.returncode in (0, 1) and (out / bundle.MANIFEST).is_file(), proc.stderr[-3000:]
        yield out, env
    finally:
        stop_all()


def copy(genuine, tmp_path) -> Path:
    b = tmp_path / "bundle"
    shutil.copytree(genuine[0], b, symlinks=True)
    return b


def verify(b: Path, *more: str, env=None) -> subprocess.CompletedProcess:
    return mqconform("verify", str(b), *more, env=env)


def test_a_genuine_bundle_verifies_rerun_included(genuine):
    b, env = genuine
    cert = json.loads((b / bundle.CERTIFICATE_JSON).read_text())
    assert cert["rerun"]["rule"] == "certify/timing.py" and cert["rerun"]["reproducible_vectors"] > 0
    proc = verify(b, "--rerun", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "against catalog target rabbitmq-4.0.5" in proc.stdout and " 0 reproducible one(s) differ" in proc.stdout


# ---- forgeries of the derived files: verify alone refuses them ---------------------------------------

def _rewrite_manifest(b: Path) -> None:
    bundle.write_manifest(b)


def test_junit_with_its_failures_removed(genuine, tmp_path):
    b = copy(genuine, tmp_path)
    tree = ET.parse(b / bundle.JUNIT)
    removed = 0
    # failures removed; a bundle with none has its not-applicable and unsupported cases shown as passed
    tags = ("failure", "error") if tree.find(".//failure") is not None or tree.find(".//error") is not None \
        else ("skipped",)
    for case in tree.iter("testcase"):
        for child in list(case):
            if child.tag in tags:
                case.remove(child)
                removed += 1
    for suite in tree.iter("testsuite"):
        for attr in ("failures", "errors", "skipped"):
            suite.set(attr, "0")
    tree.write(b / bundle.JUNIT, encoding="utf-8", xml_declaration=True)
    _rewrite_manifest(b)
    proc = verify(b)
    assert removed and proc.returncode == 1 and "junit.xml: " in proc.stdout and "shown as None" in proc.stdout


@pytest.mark.parametrize("rel, old, new", [
    ("report/summary.md", "not-conformant", "conformant"),
    ("report/index.html", "not-conformant", "conformant"),
    ("report/badges/*.svg", None, "conformant"),
])
def test_an_edited_report_file(genuine, tmp_path, rel, old, new):
    b = copy(genuine, tmp_path)
    path = sorted(b.glob(rel))[0]
    text = path.read_text()
    path.write_text(text.replace(old, new) if old and old in text else f"<!-- {new} -->{text}")
    _rewrite_manifest(b)
    proc = verify(b)
    assert proc.returncode == 1 and f"{path.relative_to(b).as_posix()}: line" in proc.stdout, proc.stdout


@pytest.mark.parametrize("how", ["extra file", "symlink", "empty folder", "unlisted file"])
def test_nothing_outside_the_manifest(genuine, tmp_path, how):
    b = copy(genuine, tmp_path)
    if how == "extra file":
        (b / "notes.txt").write_text("mine conformant\n")
        _rewrite_manifest(b)
        said = "notes.txt: no file of that name is part of a bundle"
    elif how == "symlink":
        badge = sorted((b / "report" / "badges").glob("*.svg"))[0]
        badge.unlink()
        badge.symlink_to(tmp_path / "elsewhere.svg")
        (tmp_path / "elsewhere.svg").write_text("<svg>conformant</svg>")
        said = f"{badge.relative_to(b).as_posix()}: a symbolic link"
    elif how == "empty folder":
        (b / "report" / "more").mkdir()
        said = "report/more/: an empty folder"
    else:
        (b / "report" / "extra.html").write_text("<p>conformant</p>")
        said = "report/extra.html: in the bundle but not in MANIFEST.sha256"
    proc = verify(b)
    assert proc.returncode == 1 and said in proc.stdout, proc.stdout


# ---- a forgery in the rows, the whole bundle remade with the suite's own code: only --rerun refuses it -----

def _flip(rows: list[dict]) -> list[str]:
    """Failing rows made passing; when none fails, passing rows made failing (a competitor's forgery)."""
    vectors = {r["vector_id"] for r in rows}
    timed = timing.split(vectors)["timing_dependent"]
    failing = [r for r in rows if r["outcome"] == "fail" and r["vector_id"] not in timed]
    targets = failing or [r for r in rows if r["outcome"] == "pass" and r["vector_id"] not in timed][:3]
    for r in targets:
        if r["outcome"] == "fail":
            r.update(outcome="pass", message="", failed_step=None,
                     clause_outcomes={c: "pass" for c in r["clause_ids"]})
        else:
            r.update(outcome="fail", message="forged", clause_outcomes={c: "fail" for c in r["clause_ids"]})
    return sorted(r["vector_id"] for r in targets)


def _remake(b: Path, rows: list[dict]) -> None:
    from reports.render.outputs import write_outputs

    (b / bundle.RESULTS).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    by_test = {r["test_id"]: r for r in rows}
    tree = ET.parse(b / bundle.JUNIT)
    for case in tree.iter("testcase"):
        for prop in case.iter("property"):
            if prop.get("name") == "mqconform":
                rec = json.loads(prop.get("value"))
                row = by_test[rec["test_id"]]
                prop.set("value", json.dumps({k: row.get(k) for k in rec}))
                for child in list(case):
                    if child.tag in ("failure", "error", "skipped"):
                        case.remove(child)
                want = regen.shown_as(row["outcome"], row.get("level"))
                if None not in want:
                    ET.SubElement(case, sorted(want)[-1] if "skipped" not in want else "skipped", message="forged")
    for suite in tree.iter("testsuite"):
        cases = list(suite.iter("testcase"))
        for attr, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
            suite.set(attr, str(sum(1 for c in cases if c.find(tag) is not None)))
    tree.write(b / bundle.JUNIT, encoding="utf-8", xml_declaration=True)
    report = json.loads((b / "report" / "compliance.json").read_text())
    shutil.rmtree(b / "report")
    write_outputs(regen.report_of(rows, report["generated"]), b / "report")
    stated = json.loads((b / bundle.CERTIFICATE_JSON).read_text())
    scope = [] if stated["scope"] == ["every spec"] else stated["scope"]
    f = certificate.facts(rows, scope=scope, suite_commit=stated["suite"]["commit"], made=stated["made"])
    (b / bundle.CERTIFICATE_JSON).write_text(json.dumps(f, indent=1, ensure_ascii=False) + "\n")
    (b / bundle.CERTIFICATE_MD).write_text(certificate.render(f))
    bundle.write_manifest(b)


def test_rows_flipped_and_the_bundle_remade_verify_but_the_rerun_refuses(genuine, tmp_path):
    b = copy(genuine, tmp_path)
    rows = [json.loads(ln) for ln in (b / bundle.RESULTS).read_text().splitlines() if ln.strip()]
    flipped = _flip(rows)
    assert flipped
    _remake(b, rows)
    plain = verify(b)
    assert plain.returncode == 0, plain.stdout   # whole and self-consistent: a hash proves no more
    proc = verify(b, "--rerun", env=genuine[1])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    listed = [ln for ln in proc.stdout.splitlines() if ln.strip().startswith("DIFFERS ")]
    assert sorted({ln.split()[1] for ln in listed}) == sorted(set(flipped)), proc.stdout


def test_a_timed_vector_forged_at_a_step_before_its_timing_is_compared_strictly(genuine, tmp_path):
    """Issue 42, item 3: a timing-dependent vector that passed, rewritten to fail at its first step (an
    attach, before the quiet period that makes it timing-dependent): the rerun lists it as a
    reproducible difference, not as timing."""
    from fixtures.vectordata.vectors import load_vectors

    b = copy(genuine, tmp_path)
    rows = [json.loads(ln) for ln in (b / bundle.RESULTS).read_text().splitlines() if ln.strip()]
    by_id = {v.id: v for v in load_vectors(ROOT / "vectors").vectors}
    timed = timing.split({r["vector_id"] for r in rows})["timing_dependent"]
    r = next(r for r in rows if r["outcome"] == "pass" and r["vector_id"] in timed
             and timing.strict_part(by_id[r["vector_id"]])[1] >= 1)
    first = by_id[r["vector_id"]].expect["steps"][0]
    r.update(outcome="fail", message="forged: refused at attach", clause_outcomes={c: "fail" for c in r["clause_ids"]},
             failed_step={"index": 1, "action": next(iter(first)), "role": "check", "clause_ids": r["clause_ids"]})
    _remake(b, rows)
    assert verify(b).returncode == 0
    proc = verify(b, "--rerun", env=genuine[1])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    listed = [ln.split()[1] for ln in proc.stdout.splitlines() if ln.strip().startswith("DIFFERS ")]
    assert listed == [r["vector_id"]], proc.stdout
