"""The rules behind `verify --rerun` and verify's file checks, without a broker: which vectors depend on
timing (from their data), how a rerun is matched and compared, which catalog target reruns a certificate,
and that a bundle holds regular, known files only."""
from __future__ import annotations

import os
from types import SimpleNamespace

from certify import bundle, rerun, timing


def vec(input=None, expect=None):
    return SimpleNamespace(input=input or {}, expect=expect or {})


def test_timing_is_read_from_the_vectors_data():
    assert timing.reasons(vec({"scenario": "delay", "params": {"delay_ms": 2000}})) == ["names a duration (delay_ms)"]
    assert timing.reasons(vec(expect={"steps": [{"queue_get": {"queue": "q"}, "expect": "none"}]})) == [
        "watches for something that must not come (a quiet period)"]
    assert timing.reasons(vec({"message": {"headers": {"expireTime": "+60000"}}})) == [
        "sets a time relative to the send (expireTime: +60000)", "sets a timed header (expireTime)"]
    assert timing.reasons(vec(expect={"checks": [{"of": "observe.delivered_again", "is": {"equals": True}}]})) == [
        "observes a delivery happening again (observe.delivered_again)"]
    assert timing.reasons(vec(expect={"checks": [{"of": "observe.duplicates", "is": {"equals": 0}}]})) == [
        "observes an absence at the end of a drain (observe.duplicates)"]
    # a word of the subject's name, not a part of one; a plain check is reproducible
    assert timing.reasons(vec(expect={"checks": [{"of": "observe.reply_correlates", "is": {"equals": True}}]})) == []
    assert timing.reasons(vec({"protocol": "amqp10"}, {"steps": [{"attach_sender": "/queues/q", "expect": "attached"}]})) == []


def test_the_checkouts_vectors_split_into_reproducible_and_timed():
    s = timing.split(["rabbitmq-address@4.0.target-v1.exchange-routing-key", "openmessaging.system-header.delay-time"])
    assert "openmessaging.system-header.delay-time" in s["timing_dependent"]
    assert s["reproducible"] + len(s["timing_dependent"]) == 2


def row(vector, impl, outcome):
    return {"vector_id": vector, "implementation": {"name": impl}, "outcome": outcome}


def test_a_rerun_is_compared_vector_by_implementation():
    mine = [row("v1", "mine", "pass"), row("v2", "mine", "pass"), row("v3", "mine", "fail"),
            row("v4", "mqconform-om/amqp091@mine", "pass")]
    again = [row("v1", "rabbitmq-4.0.5", "pass"), row("v2", "rabbitmq-4.0.5", "fail"), row("v3", "rabbitmq-4.0.5", "pass"),
             row("v4", "mqconform-om/amqp091@rabbitmq-4.0.5", "pass"), row("v5", "rabbitmq-4.0.5", "fail")]
    res = rerun.compare(mine, "mine", again, "rabbitmq-4.0.5", timed={"v3": ["names a duration (delay_ms)"]})
    assert res["same"] == 2
    assert res["differ"] == [("v2", rerun.IUT, ["pass"], ["fail"]), ("v5", rerun.IUT, ["no row"], ["fail"])]
    assert res["timing"] == [("v3", rerun.IUT, ["fail"], ["pass"])]
    # a rerun row the rerun could not judge is not evidence: set apart
    lost = dict(row("v2", "rabbitmq-4.0.5", "error"), error_kind="target")
    res = rerun.compare(mine[:2], "mine", [again[0], lost], "rabbitmq-4.0.5", timed={})
    assert res["differ"] == [] and res["unjudged"] == [("v2", rerun.IUT, ["pass"], ["error"])]
    # nor is a vector the endpoint did not run for want of a fact it did not state
    na = dict(row("v1", "mine", "not_applicable"), message="needs config_default=True; the fact config_default is "
                                                            "not known for mine: add ...")
    res = rerun.compare([na], "mine", [again[0]], "rabbitmq-4.0.5", timed={})
    assert res["differ"] == [] and res["unjudged"] == [("v1", rerun.IUT, ["not_applicable"], ["pass"])]
    # but a fact the endpoint's URL stated is the target's too: a row hidden behind it is a difference
    na2 = dict(na, message="needs amqp_address_v1='denied'; mine has amqp_address_v1 permitted")
    res = rerun.compare([na2], "mine", [again[0]], "rabbitmq-4.0.5", timed={}, stated={"amqp_address_v1"})
    assert res["differ"] == [("v1", rerun.IUT, ["not_applicable"], ["pass"])]


def test_timing_belongs_to_a_step_and_what_comes_before_it_is_compared_strictly():
    attach = {"attach_sender": "/queues/q", "expect": "attached"}
    quiet = {"queue_get": {"queue": "q2"}, "expect": "none"}
    v = vec({"protocol": "amqp10", "setup": [{"declare_queue": "q"}]}, {"steps": [attach, {"send": {}}, quiet]})
    assert timing.strict_part(v) == (True, 2)
    assert timing.strict_part(vec({"delay_ms": 5}, {"steps": [attach, quiet]})) == (False, 0)   # timing in the input
    assert timing.strict_part(vec({"setup": [{"wait_ms": 5}]}, {"steps": [attach, quiet]})) == (False, 1)
    part = timing.strict_part(v)
    assert timing.before_timing({"index": 1, "role": "check"}, part)
    assert timing.before_timing({"index": None, "action": "input.setup", "role": "setup"}, part)
    # another step booked as setup (a delivery the scenario needed) may be where the timing shows
    assert not timing.before_timing({"index": None, "action": "receive", "role": "setup"}, part)
    assert timing.strict_part(vec({"scenario": "delay"}, {"checks": [{"of": "observe.late"}]}))[0] is False
    assert not timing.before_timing({"index": 3, "role": "check"}, part)
    assert not timing.before_timing(None, part)
    # a vector that fails at its attach, flipped to pass, is a difference; one that fails at its quiet period is not
    timed = {"v1": ["watches for something that must not come (a quiet period)"]}
    mine = [row("v1", "mine", "pass")]
    at_attach = [dict(row("v1", "t", "fail"), failed_step={"index": 1, "action": "attach_sender", "role": "check"})]
    at_quiet = [dict(row("v1", "t", "fail"), failed_step={"index": 3, "action": "queue_get", "role": "check"})]
    res = rerun.compare(mine, "mine", at_attach, "t", timed=timed, strict={"v1": part})
    assert res["differ"] == [("v1", rerun.IUT, ["pass"], ["fail"])] and res["timing"] == []
    res = rerun.compare(mine, "mine", at_quiet, "t", timed=timed, strict={"v1": part})
    assert res["differ"] == [] and res["timing"] == [("v1", rerun.IUT, ["pass"], ["fail"])]
    # the bundle's own early failure, passing in the rerun, is compared strictly too
    res = rerun.compare([dict(at_attach[0], implementation={"name": "mine"})], "mine", [row("v1", "t", "pass")], "t",
                        timed=timed, strict={"v1": part})
    assert res["differ"] == [("v1", rerun.IUT, ["fail"], ["pass"])]


def test_a_setup_error_is_compared_when_the_rerun_asks_the_endpoint_itself():
    setup = dict(row("v1", "mine", "error"), error_kind="precondition", message="setup declare_queue: refused")
    again = [row("v1", "t", "fail")]
    res = rerun.compare([setup], "mine", again, "t", timed={})
    assert res["differ"] == [] and res["unjudged"] == [("v1", rerun.IUT, ["error"], ["fail"])]   # a catalog target
    res = rerun.compare([setup], "mine", again, "t", timed={}, same_broker=True)
    assert res["differ"] == [("v1", rerun.IUT, ["error"], ["fail"])]


def test_the_rerun_takes_facts_and_options_from_the_certificate_never_from_a_url():
    cert = {"implementation": {"endpoint": "amqp://vendor:***@h:5672/prod%2Fvh",
                               "endpoint_options": "amqp_address_v1=permitted&protocols=amqp10,amqp091",
                               "allow_users": True, "server": {"product": "RabbitMQ", "version": "4.3.6"}},
            "stated_facts": {"stated": {"amqp_address_v1": "permitted"}, "not_stated": {}}}
    assert rerun.stated_facts(cert) == {"amqp_address_v1": "permitted"}
    assert rerun.endpoint_url(cert) == "amqp://vendor@h:5672/prod%2Fvh?amqp_address_v1=permitted&protocols=amqp10,amqp091"
    assert rerun.endpoint_url(cert, "amqp://other@h2:5672/prod%2Fvh").endswith("h2:5672/prod%2Fvh?amqp_address_v1=permitted"
                                                                              "&protocols=amqp10,amqp091")
    try:
        rerun.endpoint_url(cert, "amqp://other@h2:5672?amqp_address_v1=denied")
        raise AssertionError("a checker's URL with other options was taken")
    except rerun.CannotRerun as exc:
        assert "not the certificate's" in str(exc)
    # the same options written otherwise (`+` kept as written, `verify=false` for the stored `verify=0`) are the same
    tls = {"implementation": {**cert["implementation"], "endpoint": "amqps://v:***@h:5671",
                              "endpoint_options": "amqp10_queue=q%2B{queue}&verify=0"}}
    assert rerun.endpoint_url(tls, "amqps://v@h:5671?verify=false&amqp10_queue=q+{queue}").endswith("verify=0")
    # the catalog's 4.3.6 denies v1 by default; its variant permitting it has the stated facts
    assert rerun.catalog_target(cert) == "rabbitmq-4.3.6+address-v1-permitted"


def test_the_catalog_target_of_a_certificate():
    def cert(product, version, endpoint):   # a certificate made before the stated facts were kept
        return {"implementation": {"server": {"product": product, "version": version}, "version": None,
                                   "endpoint": endpoint}}

    assert rerun.catalog_target(cert("RabbitMQ", "4.0.5", "amqp://u@h:5672?amqp_address_v1=permitted")) == "rabbitmq-4.0.5"
    assert rerun.catalog_target(cert("RabbitMQ", "4.0.5", "amqp://u:***@h:5672?amqp_address_v1=denied")) == \
        "rabbitmq-4.0.5+address-v1-denied"
    assert rerun.catalog_target(cert("RabbitMQ", "9.9.9", "amqp://u@h:5672")) is None


def test_a_bundle_holds_regular_known_files_only(tmp_path):
    (tmp_path / "report" / "badges").mkdir(parents=True)
    for rel in ("results.jsonl", "results.openmessaging-figures.jsonl", "junit.xml", "report/index.html",
                "certificate.json", "CERTIFICATE.md"):
        (tmp_path / rel).write_text("x")
    (tmp_path / "report" / "badges" / "b.svg").write_text("<svg/>")
    bundle.write_manifest(tmp_path)
    assert bundle.check_manifest(tmp_path) == []
    (tmp_path / "empty").mkdir()
    os.symlink("/etc/hostname", tmp_path / "report" / "badges" / "a.svg")
    os.symlink("report", tmp_path / "r")
    (tmp_path / "notes.txt").write_text("x")
    bundle.write_manifest(tmp_path)
    said = bundle.check_manifest(tmp_path)
    assert said == ["empty/: an empty folder; a bundle holds files only",
                    "notes.txt: no file of that name is part of a bundle (certify/bundle.py)",
                    "r: a symbolic link (to report); a bundle holds files only",
                    "report/badges/a.svg: a symbolic link (to /etc/hostname); a bundle holds files only"], said


def test_a_rerun_needs_the_certificates_commit_and_vectors(tmp_path, capsys):
    import json

    from certify.rerun import ROOT, checkout_problem
    from certify.rerun import rerun as do_rerun

    cert = {"suite": {"commit": "0" * 40, "vectors_digest": "sha256:x"},
            "implementation": {"name": "mine", "server": {}, "endpoint": None}}
    assert "the certificate's is " + "0" * 40 in checkout_problem(cert)
    assert "no published commit" in checkout_problem({**cert, "suite": {"commit": f"abc {bundle.LOCAL_CHANGES}"}})
    (tmp_path / bundle.CERTIFICATE_JSON).write_text(json.dumps(cert))
    (tmp_path / bundle.RESULTS).write_text("")
    assert do_rerun(tmp_path) == 2
    assert "verify --rerun: cannot rerun: this checkout is commit" in capsys.readouterr().err
    assert ROOT.is_dir()
