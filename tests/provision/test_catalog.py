"""Fast checks of the provisioning layer: catalog, config resolution, image hashing,
engine probing. No containers (protocol probes: tests/adapters/test_registry.py)."""
from __future__ import annotations

import copy
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from fixtures.provision import catalog, engine, images, reaper

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def raw():
    return yaml.safe_load(catalog.DEFAULT_CATALOG.read_text())


def test_activemq_pin_is_the_catalog_version():
    """The prebuild fetches the artifact activemq.pin names; the image must be the catalog's version."""
    entry = catalog.load().get("activemq-5.18.3")
    pin = dict(line.split("=", 1) for line in (entry.context_dir / "activemq.pin").read_text().splitlines()
               if line and not line.startswith("#"))
    group, name, version, kind, classifier = pin["artifact"].split(":")
    assert (group, name, kind, classifier) == ("org.apache.activemq", "apache-activemq", "tar.gz", "bin")
    assert version == entry.version == entry.build_args["ACTIVEMQ_VERSION"]
    assert len(pin["sha512"]) == 128
    assert entry.amqp10_queue_address == "queue://{queue}" and entry.amqp10_topic_address == "topic://{topic}"


def test_catalog_loads_and_validates():
    cat = catalog.load()
    assert {"rabbitmq-4.0.5", "rabbitmq-3.10.8", "garagemq"} <= set(cat.names())
    for t in cat.targets.values():
        assert t.containerfile.is_file(), t.name
        assert t.protocols and all(1 <= p <= 65535 for p in t.protocols.values())
        assert 0 < t.start_timeout_s <= 600
        assert t.checks


def test_rabbitmq_targets_offer_both_amqp_versions():
    cat = catalog.load()
    for name, version in (("rabbitmq-4.0.5", "4.0.5"), ("rabbitmq-3.10.8", "3.10.8")):
        t = cat.get(name)
        assert t.product == "rabbitmq" and t.version == version
        assert t.protocols["amqp091"] == 5672 and t.protocols["amqp10"] == 5672
        assert t.official_image == f"rabbitmq:{version}-management" and t.official_pinned
        assert [(c.kind, c.port) for c in t.checks] == [("probe", "amqp091"), ("probe", "amqp10")]
    assert "rabbitmq_amqp1_0" in cat.get("rabbitmq-3.10.8").config().files["/etc/rabbitmq/enabled_plugins"]
    g = cat.get("garagemq")
    assert set(g.protocols) == {"amqp091"} and set(g.ports) == {"http-management"} and not g.official_pinned


def test_rabbitmq_4_address_v1_variants():
    t = catalog.load().get("rabbitmq-4.0.5")
    base = t.config().files["/etc/rabbitmq/rabbitmq.conf"]
    assert "deprecated_features" not in base
    denied = t.config("address-v1-denied").files["/etc/rabbitmq/rabbitmq.conf"]
    permitted = t.config("address-v1-permitted").files["/etc/rabbitmq/rabbitmq.conf"]
    # appended to the base file, not replacing it
    assert denied.startswith(base) and permitted.startswith(base)
    assert denied.rstrip().endswith("deprecated_features.permit.amqp_address_v1 = false")
    assert permitted.rstrip().endswith("deprecated_features.permit.amqp_address_v1 = true")
    assert t.config("address-v1-denied").env == t.config().env
    with pytest.raises(KeyError, match="rabbitmq-4.0.5 has no variant 'nope'"):
        t.config("nope")


def test_unknown_target_names_the_known_ones():
    with pytest.raises(KeyError, match="unknown target 'activemq'.*rabbitmq-4.0.5"):
        catalog.load().get("activemq")


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["targets"][0].pop("version"), r"targets\[0\] \(rabbitmq-4.0.5\).*'version' is a required property"),
    (lambda d: d["targets"][1]["protocols"].update({"stomp": {"port": 61613}}),
     r"targets\[1\] \(rabbitmq-3.10.8\)\.protocols: 'stomp' is not one of \['amqp091', 'amqp10', 'rocketmq-grpc'\]"),
    (lambda d: d["targets"][0]["protocols"]["amqp091"].update({"port": 70000}), r"amqp091\.port"),
    (lambda d: d["targets"][0]["readiness"].update({"start_timeout_s": 0}), r"start_timeout_s"),
    (lambda d: d["targets"][0]["readiness"]["checks"].append({"probe": "amqp091", "tcp": "amqp091"}), r"readiness\.checks\[2\]"),
    (lambda d: d["targets"][2]["readiness"]["checks"].append({"probe": "amqp10"}), r"garagemq.*protocol amqp10 is not offered"),
    (lambda d: d["targets"][2]["readiness"]["checks"].append({"tcp": "web"}), r"garagemq.*web is neither a protocol nor a port"),
    (lambda d: d["targets"][2]["ports"].update({"amqp091": {"port": 1}}), r"garagemq\)\.ports: amqp091 is a protocol"),
    (lambda d: d["targets"].append(copy.deepcopy(d["targets"][0])), r"duplicate target name"),
    (lambda d: d["targets"][0]["image"]["local"].update({"containerfile": "containers/nope/Containerfile"}),
     r"containers/nope/Containerfile does not exist"),
    (lambda d: d["targets"][0]["variants"]["address-v1-denied"]["files"][0].update({"mode": "prepend"}),
     r"variants\.address-v1-denied\.files\[0\]\.mode"),
    (lambda d: d["targets"][0]["configuration"].update({"env": {"X": 1}}), r"configuration\.env\.X"),
])
def test_invalid_catalog_is_rejected_with_location(raw, mutate, message):
    data = copy.deepcopy(raw)
    mutate(data)
    with pytest.raises(catalog.CatalogError, match=message):
        catalog.parse(data, "test.yaml")


def test_bad_yaml_is_a_catalog_error(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text("targets: [\n")
    with pytest.raises(catalog.CatalogError, match="not valid YAML"):
        catalog.load(p)


def test_content_hash_is_stable_and_covers_inputs():
    t = catalog.load().get("rabbitmq-4.0.5")
    h = images.content_hash(t, "sha256:base1")
    assert h == images.content_hash(t, "sha256:base1")
    assert h != images.content_hash(t, "sha256:base2")
    t2 = catalog.CatalogEntry(**{**t.__dict__, "build_args": {"RABBITMQ_VERSION": "4.0.6"}})
    assert images.content_hash(t2, "sha256:base1") != h
    assert images.local_tag(t, h) == f"mqconform/rabbitmq-4.0.5:{h[:16]}"


def test_parse_provenance():
    text = "debian.suite=trixie\ndeb.rabbitmq-server=4.0.5-6\ndeb.libssl3=\n\nnoise\n"
    assert images.parse_provenance(text) == {"debian.suite": "trixie", "deb.rabbitmq-server": "4.0.5-6"}


def test_probe_of_missing_socket_is_fast(tmp_path):
    t0 = time.monotonic()
    assert engine.probe(f"unix://{tmp_path}/none.sock", timeout=1) is None
    assert time.monotonic() - t0 < 2


def test_engine_host_is_loopback_for_local_engines(monkeypatch):
    monkeypatch.delenv("MQCONFORM_TARGET_HOST", raising=False)
    assert engine.Engine("podman", {"DOCKER_HOST": "unix:///x/podman.sock"}).host == "127.0.0.1"
    assert engine.Engine("docker", {"DOCKER_HOST": "tcp://buildhost:2375"}).host == "buildhost"
    monkeypatch.setenv("MQCONFORM_TARGET_HOST", "::1")
    assert engine.Engine("docker", {"DOCKER_HOST": "unix:///var/run/docker.sock"}).host == "::1"


def test_engine_mode_is_checked(monkeypatch):
    monkeypatch.setenv("MQCONFORM_ENGINE", "lxc")
    monkeypatch.setattr(engine, "_cached", None)
    with pytest.raises(engine.EngineUnavailable, match="MQCONFORM_ENGINE='lxc'"):
        engine.ensure(apply=False)


@pytest.mark.parametrize("script", ["scripts/container-engine.sh", "scripts/build-base-image.sh", "scripts/images.sh",
                                    "scripts/bootstrap.sh", "scripts/conformance.sh", "scripts/fresh-run.sh",
                                    "containers/garagemq/build.sh"])
def test_shell_scripts_parse(script):
    subprocess.run(["bash", "-n", str(ROOT / script)], check=True)


def test_proc_start_tells_live_from_dead():
    import os

    assert reaper.proc_start(os.getpid()) != ""
    assert reaper.proc_start(2**22 + 12345) == ""


def test_no_engine_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(engine, "probe", lambda host, timeout=3.0: None)
    monkeypatch.setattr(engine, "_cached", None)
    monkeypatch.setenv("MQCONFORM_ENGINE", "docker")
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(engine.EngineUnavailable, match="no Docker API answers.*unix:///nonexistent/docker.sock: no answer"):
        engine.ensure(apply=False)
