"""A vendor certifies their broker with `./mqconform certify` and anyone checks the bundle with
`./mqconform verify`, as the README says; a bundle with one row altered does not verify.

The vendor's broker is the catalog's RabbitMQ 4.0.5 started here with a user of its own, whose
password comes from a netrc file (--netrc-file); the vendor declares one deviation
(--deviations), which the certificate lists and verify matches again. Certified: the RabbitMQ address format
(4.0, and the PR #10873 draft that does not apply to 4.0.5), kept to two specs so the test stays
short; the full certification is the same command without --spec.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid

import pytest

from certify import bundle

from ..paths import ROOT
from .test_vendor_endpoint import rabbitmqctl

pytestmark = [pytest.mark.containers]

PASSWORD = "Ce7/rt#If?y@é %"
VHOST = "vendor vh/1"


def mqconform(*args, env=None, timeout=900):
    return subprocess.run([str(ROOT / "mqconform"), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def vendor(engine, stop_targets):
    from fixtures.provision import start
    from fixtures.verdict.records import new_run_id

    rt = start("rabbitmq-4.0.5", run_id=new_run_id())
    rabbitmqctl(rt, "add_vhost", VHOST)
    rabbitmqctl(rt, "add_user", "vendor", PASSWORD)
    rabbitmqctl(rt, "set_permissions", "-p", VHOST, "vendor", ".*", ".*", ".*")
    # administrator: the vendor lets vectors make users (--allow-users) through the management API
    rabbitmqctl(rt, "set_user_tags", "vendor", "administrator")
    cluster = f"vendor-{uuid.uuid4().hex[:8]}"
    rabbitmqctl(rt, "set_cluster_name", cluster)
    return rt, cluster


def test_certify_then_verify_and_a_tampered_row_fails(vendor, engine, tmp_path):
    rt, cluster = vendor
    host, port, mport = rt.host, rt.port("amqp091"), rt.port("http-management")
    url = f"vendor=amqp://vendor@{host}:{port}/vendor%20vh%2F1?amqp_address_v1=permitted&management=http://{host}:{mport}"
    env = {k: v for k, v in os.environ.items() if k != "MQCONFORM_RUN_ID" and not k.startswith("MQCONFORM_PASSWORD")}
    env.update(engine.env)
    out = tmp_path / "bundle"
    netrc = tmp_path / "netrc"
    netrc.write_text(f'machine {host} login vendor password "{PASSWORD}"\n', encoding="utf-8")
    netrc.chmod(0o600)
    deviations = tmp_path / "deviations.yaml"
    deviations.write_text(
        "expectations:\n"
        "  - {implementation: vendor, vector: rabbitmq-address@4.0.outcomes-sender.released-unroutable-v2,\n"
        "     reason: 'declared by the vendor for this test', link: 'https://github.com/rabbitmq/rabbitmq-server/issues/1'}\n",
        encoding="utf-8")

    proc = mqconform("certify", "--endpoint", url, "--spec", "rabbitmq-address*", "--out", str(out),
                     "--netrc-file", str(netrc), "--deviations", str(deviations), "--allow-users", env=env)
    said = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), said[-4000:]
    names = {p.name for p in out.iterdir()}
    made = {bundle.CERTIFICATE_JSON, bundle.CERTIFICATE_MD, bundle.JUNIT, bundle.MANIFEST, bundle.REPORT, bundle.RESULTS,
            bundle.DEVIATIONS}
    assert made <= names and all(n.startswith("results.") for n in names - made), names   # side files: results.*
    assert not list(tmp_path.glob("*.partial-*"))

    cert = json.loads((out / bundle.CERTIFICATE_JSON).read_text())
    server = cert["implementation"]["server"]
    assert server["product"] == "RabbitMQ" and server["version"] == "4.0.5" and server["cluster_name"] == cluster
    assert cert["implementation"]["endpoint"] == f"amqp://vendor:***@{host}:{port}/vendor%20vh%2F1"
    # how it was given, for a rerun: the options and the consent to users, never the password
    assert cert["implementation"]["endpoint_options"] == f"amqp_address_v1=permitted&management=http://{host}:{mport}"
    assert cert["implementation"]["allow_users"] is True
    assert cert["stated_facts"]["stated"] == {"amqp_address_v1": "permitted"}
    made = [json.loads(ln) for ln in (out / bundle.RESULTS).read_text().splitlines()]
    assert not [r["vector_id"] for r in made if "--allow-users" in (r.get("message") or "")]
    specs = {s["spec"]: s for s in cert["specs"]}
    assert set(specs) == {"rabbitmq-address@4.0", "rabbitmq-address@pr10873"}, specs
    assert specs["rabbitmq-address@pr10873"]["verdict"] == "not-applicable"
    text = (out / bundle.CERTIFICATE_MD).read_text()
    assert "version, as the broker said | 4.0.5" in text and cert["suite"]["vectors_digest"] in text
    # the declared deviation is listed as declared, with the failing rows it accounts for (none here)
    [dev] = cert["declared_deviations"]
    assert dev["vector"] == "rabbitmq-address@4.0.outcomes-sender.released-unroutable-v2" and dev["rows"] == []
    assert "declared by the vendor for this test" in text and (out / bundle.DEVIATIONS).is_file()
    # the report's verdicts are the certificate's (one code, reports/views/model.py spec_verdicts)
    shown = {v["spec"]: v["verdict"] for v in json.loads((out / "report" / "compliance.json").read_text())["verdicts"]}
    assert shown == {s: v["verdict"] for s, v in specs.items()}
    # the password is nowhere: not in what was said, not in any file of the bundle
    for p in out.rglob("*"):
        assert not p.is_file() or PASSWORD.encode() not in p.read_bytes(), p
    assert PASSWORD not in said

    # A bundle made with local changes to the suite does not verify unless the checker accepts that
    # (a clean checkout, as in CI, makes a bundle that verifies as it is).
    local = bundle.LOCAL_CHANGES in cert["suite"]["commit"]
    if local:
        refused = mqconform("verify", str(out), env=env, timeout=300)
        assert refused.returncode == 1 and "no published suite can judge" in refused.stdout, refused.stdout
    accept = ["--accept-local-changes"] if local else []
    ok = mqconform("verify", *accept, str(out), env=env, timeout=300)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # seven checks: manifest, rows, certificate, report, junit.xml, suite version and vectors digest, audit
    assert ok.stdout.count("\nok  ") + ok.stdout.startswith("ok  ") == 7 and "verified" in ok.stdout, ok.stdout

    # One row altered: its outcome changed. As is, the manifest catches it; with the manifest
    # written again to match, the verdicts recomputed from the rows catch it.
    lines = (out / bundle.RESULTS).read_text().splitlines()
    i = next(n for n, line in enumerate(lines) if json.loads(line)["outcome"] == "pass"
             and json.loads(line)["level"] in ("MUST", "MUST NOT"))
    row = json.loads(lines[i])
    row["outcome"] = "fail"
    row["clause_outcomes"] = {c: "fail" for c in row.get("clause_outcomes") or {}}
    lines[i] = json.dumps(row)
    tampered = tmp_path / "tampered"
    shutil.copytree(out, tampered)
    (tampered / bundle.RESULTS).write_text("\n".join(lines) + "\n")
    bad = mqconform("verify", *accept, str(tampered), env=env, timeout=300)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "FAIL every file's SHA-256 matches MANIFEST.sha256" in bad.stdout
    assert "results.jsonl: its SHA-256 is" in bad.stdout and "does NOT verify" in bad.stdout

    bundle.write_manifest(tampered)
    worse = mqconform("verify", *accept, str(tampered), env=env, timeout=300)
    assert worse.returncode == 1, worse.stdout + worse.stderr
    assert "ok   every file's SHA-256 matches MANIFEST.sha256" in worse.stdout
    assert "FAIL certificate.json and CERTIFICATE.md are what the rows give" in worse.stdout, worse.stdout
    assert "FAIL report/ (compliance.json, summary.md, index.html, badges) is what the rows give" in worse.stdout, \
        worse.stdout

    # The declared deviation altered after the fact (its reason), the manifest written again: the
    # certificate no longer says what the bundle's deviations.yaml declares.
    edited = tmp_path / "edited"
    shutil.copytree(out, edited)
    dev_file = edited / bundle.DEVIATIONS
    dev_file.write_text(dev_file.read_text().replace("declared by the vendor for this test", "something else"))
    bundle.write_manifest(edited)
    again = mqconform("verify", *accept, str(edited), env=env, timeout=300)
    assert again.returncode == 1 and "FAIL certificate.json and CERTIFICATE.md are what the rows give" in again.stdout, \
        again.stdout

    # The rerun asks the same endpoint the same way (certificate.json's options, facts and consent to
    # users; the password from the netrc file again): an honest bundle reproduces (issue 42, item 2).
    # Only from a checkout of the certificate's commit: with local changes it says so and runs nothing.
    rerun = mqconform("verify", "--rerun", "endpoint", "--netrc-file", str(netrc), *accept, str(out), env=env,
                      timeout=900)
    if local:
        assert rerun.returncode == 2 and "local changes" in rerun.stderr, rerun.stdout + rerun.stderr
    else:
        assert rerun.returncode == 0, rerun.stdout[-4000:] + rerun.stderr[-2000:]
        assert " 0 reproducible one(s) differ" in rerun.stdout and "reproduced against endpoint vendor" in rerun.stdout
    assert PASSWORD not in rerun.stdout + rerun.stderr


def test_an_endpoint_that_speaks_no_protocol_of_a_spec_gets_a_not_applicable_bundle(engine, stop_targets, tmp_path):
    """garagemq speaks only AMQP 0-9-1; the address format is AMQP 1.0's: each vector not_applicable,
    saying which protocol the endpoint does not offer, and the bundle verifies (issue 42, item 9)."""
    from fixtures.provision import start
    from fixtures.verdict.records import new_run_id

    rt = start("garagemq", run_id=new_run_id())
    env = {k: v for k, v in os.environ.items() if k != "MQCONFORM_RUN_ID" and not k.startswith("MQCONFORM_PASSWORD")}
    env.update(engine.env, MQCONFORM_PASSWORD_g="guest")
    out = tmp_path / "bundle"
    proc = mqconform("certify", "--endpoint", f"g=amqp://guest@{rt.host}:{rt.port('amqp091')}", "--spec",
                     "rabbitmq-address*", "--out", str(out), env=env)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    cert = json.loads((out / bundle.CERTIFICATE_JSON).read_text())
    assert {s["spec"]: s["verdict"] for s in cert["specs"]} == {"rabbitmq-address@4.0": "not-applicable",
                                                                 "rabbitmq-address@pr10873": "not-applicable"}
    rows = [json.loads(ln) for ln in (out / bundle.RESULTS).read_text().splitlines()]
    assert {r["message"] for r in rows} == {
        "g does not offer amqp10, which this vector speaks (the protocols it offers: amqp091)"}
    assert all(s["why"].startswith("g does not offer amqp10") for s in cert["specs"])
    local = bundle.LOCAL_CHANGES in cert["suite"]["commit"]
    ok = mqconform("verify", *(["--accept-local-changes"] if local else []), str(out), env=env, timeout=300)
    assert ok.returncode == 0, ok.stdout + ok.stderr


def test_a_spec_that_describes_no_broker_is_refused_before_anything_runs(tmp_path):
    """`certify --endpoint ... --spec ce-amqp`: the CloudEvents bindings describe codecs; said at once,
    quoting the text, nothing written (issue 42, item 9)."""
    proc = mqconform("certify", "--endpoint", "g=amqp://guest@127.0.0.1:1", "--spec", "ce-amqp", "--out",
                     str(tmp_path / "b"), timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--spec 'ce-amqp': not a broker's text: ce-amqp describes codec (\"This specification does not prescribe" \
        in proc.stderr
    assert not (tmp_path / "b").exists()
