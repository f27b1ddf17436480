"""A vendor certifies their own broker with --endpoint, as the README says, while the suite's own
RabbitMQ 4.0.5 of the same product and version runs beside it.

The "vendor's broker" is a RabbitMQ 4.0.5 container this test starts and configures like a vendor
would: a user of its own whose password holds / # ? @ % and a non-ASCII letter (given through
MQCONFORM_PASSWORD_vendor, never on a command line), a cluster name of its own, and queues,
exchanges and bindings of its own, one queue server-named and one holding a message. Then:

- every row of the endpoint came from that broker: its cluster name is in the rows' provenance
  with the masked URL, and its log shows the suite's logins as the vendor's user; the catalog
  target's rows carry the container's provenance instead;
- a full run against the endpoint (every suite, amqp_address_v1 permitted, so RabbitMQ names
  queues itself for v1 source addresses) whose vectors cannot delete anything themselves leaves
  the broker's queues, exchanges and bindings exactly as they were;
- an endpoint that does not state amqp_address_v1 gets the vectors that need it said to be
  not_applicable for want of it, in the summary and in the rows; a wrong password is one line;
- the password appears nowhere: output, results, side files, junit, the gate's report.
"""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import uuid

import pytest

from fixtures.adapters.amqp091 import Amqp091Adapter
from fixtures.adapters.endpoint import Endpoint
from fixtures.codecs.model import Amqp091Message

from ..paths import ROOT
from ..sessions import run_pytest

pytestmark = [pytest.mark.containers]

PASSWORD = "Zq7/Kx9#Wm3?Rt5@Pv8%Hy4é"
SECRETS = (PASSWORD, "Zq7%2FKx9", "Kx9#Wm3", "Wm3?Rt5", "Rt5@Pv8", "Pv8%Hy4")

# Loaded with -p: every queue and exchange delete the vectors make fails, as when a vector's
# connection breaks before its cleanup; restored before the targets close (the footprint's sweep).
NO_DELETES = textwrap.dedent('''
    import pytest
    from fixtures.adapters import amqp091
    from fixtures.adapters.base import TransportError

    _saved = {n: getattr(amqp091.Topology, n) for n in ("delete_queue", "delete_exchange")}

    def _fail(self, *args, **kwargs):
        raise TransportError("this test makes every delete of a vector fail")

    def pytest_configure(config):
        for name in _saved:
            setattr(amqp091.Topology, name, _fail)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(session):
        for name, fn in _saved.items():
            setattr(amqp091.Topology, name, fn)
''')


def rabbitmqctl(rt, *args: str) -> str:
    from fixtures.provision.reaper import docker_client

    client = docker_client(rt._engine, 60)
    try:
        exec_id = client.api.exec_create(rt.container_id, ["rabbitmqctl", "-q", *args], stdout=True, stderr=True)
        out = client.api.exec_start(exec_id).decode(errors="replace")
        assert client.api.exec_inspect(exec_id)["ExitCode"] == 0, out
        return out
    finally:
        client.close()


def state(rt) -> dict:
    """The broker's queues (with message counts), exchanges and bindings, as rabbitmqctl lists them."""
    def rows(*args):
        return sorted(line for line in rabbitmqctl(rt, *args, "--no-table-headers").splitlines() if line.strip())
    return {"queues": rows("list_queues", "name", "messages"), "exchanges": rows("list_exchanges", "name", "type"),
            "bindings": rows("list_bindings", "source_name", "destination_name", "routing_key")}


@pytest.fixture
def vendor(engine, stop_targets):
    """The vendor's broker, configured and holding entities of its own."""
    from fixtures.provision import start
    from fixtures.verdict.records import new_run_id

    rt = start("rabbitmq-4.0.5", run_id=new_run_id())
    cluster = f"vendor-{uuid.uuid4().hex[:8]}"
    rabbitmqctl(rt, "add_user", "vendor", PASSWORD)
    rabbitmqctl(rt, "set_permissions", "vendor", ".*", ".*", ".*")
    rabbitmqctl(rt, "set_user_tags", "vendor", "management")   # the management API finds server-named queues
    rabbitmqctl(rt, "set_cluster_name", cluster)
    own = Amqp091Adapter(Endpoint(rt.host, rt.port("amqp091"), "guest", "guest"))
    try:
        own.topology.declare_queue("orders", durable=True)
        own.topology.declare_exchange("vendor.events", "topic")
        own.topology.bind("orders", "vendor.events", "order.*")
        own.messages.publish("", "orders", Amqp091Message(body=b"an order"))
        named = own.channel().queue_declare("", exclusive=False, auto_delete=False).method.queue
        own.topology.bind(named, "amq.topic", "audit.#")
    finally:
        own.close()
    return rt, cluster


def no_secret(*texts: str) -> None:
    for text in texts:
        for s in SECRETS:
            assert s not in text, f"{s!r} leaked: ...{text[max(0, text.find(s) - 200):text.find(s) + 50]}..."


def everything_written(tmp_path) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted(tmp_path.rglob("*")) if p.is_file())


def test_a_vendors_broker_certified_beside_the_catalogs_own(vendor, engine, tmp_path):
    rt, cluster = vendor
    before = state(rt)
    assert "orders\t1" in before["queues"] and any(q.startswith("amq.gen-") for q in before["queues"])
    host, port, mport = rt.host, rt.port("amqp091"), rt.port("http-management")
    url = f"vendor=amqp://vendor@{host}:{port}?amqp_address_v1=permitted&management=http://{host}:{mport}"
    env = {**engine.env, "MQCONFORM_PASSWORD_vendor": PASSWORD, "MQCONFORM_PASSWORD_nofacts": PASSWORD,
           "MQCONFORM_PASSWORD_wrongpw": PASSWORD + "-not-it", "MQCONFORM_RUN_ID": uuid.uuid4().hex}

    # An endpoint may not take the catalog target's name (the rows would be the container's).
    clash, _, _ = run_pytest(["suites/openmessaging/test_openmessaging.py", "--target", "rabbitmq-4.0.5",
                              "--endpoint", f"rabbitmq-4.0.5=amqp://vendor@{host}:{port}"], tmp_path / "clash", env=env)
    assert clash.returncode == 4 and "the name of a catalog target" in clash.stderr, clash.stdout + clash.stderr

    # One session (2 workers, one per target): the full run against the endpoint, whose vectors cannot
    # delete anything themselves (as when a vector's connection breaks before its cleanup: the
    # footprint must remove all); some vectors of the catalog's own RabbitMQ 4.0.5 beside it; an
    # endpoint that does not state amqp_address_v1, and one whose password is wrong.
    (tmp_path / "no_deletes.py").write_text(NO_DELETES)
    bare = f"nofacts=amqp://vendor@{host}:{port}?management=http://{host}:{mport}"
    wrong = f"wrongpw=amqp://vendor@{host}:{port}?amqp_address_v1=permitted"
    proc, rows, _ = run_pytest(["-p", "no_deletes", "suites", "-n", "2", "--dist", "loadgroup",
                                "-k", "vendor or (rabbitmq-4.0.5 and (message-format or type-system)) or (nofacts and source-v1) or wrongpw",
                                "--target", "rabbitmq-4.0.5", "--endpoint", url, "--endpoint", bare, "--endpoint", wrong,
                                "--junitxml", str(tmp_path / "junit.xml")], tmp_path, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out[-3000:]
    # A row's broker: the implementation itself, or the broker a provider row ran over (OpenMessaging
    # rows are the reference provider's, mqconform-om/P@T, with the broker's provenance as broker_*).
    by = {}
    for r in rows:
        by.setdefault(r["implementation"]["provenance"].get("broker") or r["implementation"]["name"], []).append(r)

    def own(prov, key):
        return prov.get(key, prov.get(f"broker_{key}"))
    mine, theirs = by.get("vendor", []), by.get("rabbitmq-4.0.5", [])
    assert len(mine) > 250 and len(theirs) > 20, out[-3000:]

    # every row of the endpoint came from the vendor's broker; the catalog target's from its container
    for r in mine:
        prov = r["implementation"]["provenance"]
        assert own(prov, "endpoint") == f"amqp://vendor:***@{host}:{port}", prov
        assert own(prov, "server_cluster_name") == cluster and own(prov, "server_product") == "RabbitMQ", \
            (r["vector_id"], prov)
        # not judged only for the vector's own reasons (docs/verdicts.md), never because the broker was unusable
        assert r["outcome"] != "error" or r["error_kind"] in ("precondition", "adapter", "observation"), \
            (r["vector_id"], r["message"])
    assert all(own(r["implementation"]["provenance"], "container.name") and
               own(r["implementation"]["provenance"], "endpoint") is None for r in theirs)
    logins = rt.logs(tail=100000).count("user 'vendor' authenticated")
    assert logins >= 2, "the vendor's broker saw no login of the suite"

    # left as found, though no vector could delete what it made
    assert "mqconform: endpoint vendor" not in out, out[-2000:]   # nothing left behind, nothing to say
    assert state(rt) == before, "the run left the vendor's broker changed:\n" + out[-2000:]

    # a wrong password: error rows naming the login tried, and one line
    refused = by.get("wrongpw", [])
    assert refused and all(r["outcome"] == "error" for r in refused)
    assert all(r["message"].endswith(f"target wrongpw is unavailable: AMQP 0-9-1 login refused at amqp://vendor:***@"
                                     f"{host}:{port} (user 'vendor', password from MQCONFORM_PASSWORD_wrongpw)")
               for r in refused), refused[0]["message"]
    # (the progress lines of its connection attempt, "connecting to ... failed after", are not failures)
    assert len([ln for ln in out.splitlines() if "wrongpw" in ln and ": connecting to " not in ln]) <= 4, out[-3000:]

    # vectors not run for want of a fact: said in their rows and in the summary
    missing = [r for r in by.get("nofacts", []) if r["outcome"] == "not_applicable"]
    assert len(missing) >= 2, out[-3000:]
    assert all("the fact amqp_address_v1 is not known for nofacts: add ?amqp_address_v1=permitted or "
               "?amqp_address_v1=denied to --endpoint nofacts's URL" in r["message"] for r in missing)
    summary = [ln for ln in proc.stdout.splitlines() if "for want of the fact amqp_address_v1" in ln]
    assert summary == [f"mqconform: {len(missing)} vector(s) of nofacts are not_applicable for want of the fact "
                       "amqp_address_v1: add ?amqp_address_v1=permitted or ?amqp_address_v1=denied to --endpoint "
                       "nofacts's URL, as its configuration is, to run it"], proc.stdout[-2000:]

    # The password never shows: output, results and side files, junit, and the gate's report.
    gate = subprocess.run([sys.executable, "-m", "reports", "gate", "--results", str(tmp_path / "results.jsonl"),
                           "--expectations", "expectations"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert gate.returncode == 1 and re.search(r"UNCOVERED fail: (\S+@)?vendor ", gate.stdout), gate.stdout[-2000:] + gate.stderr
    no_secret(clash.stdout, clash.stderr, out, gate.stdout, gate.stderr, everything_written(tmp_path))
