"""Credit only from observed behaviour, on real brokers:

- garagemq carries an AMQP 0-9-1 priority and expiration: the headers are offered (the
  `*-offered` rows pass, and credit no behaviour in the profile), and what the text asks of them
  is judged by the gated vectors: garagemq delivers in arrival order and delivers expired
  messages, so priority-best-effort and expire-time fail and the profile says `absent`; RabbitMQ
  4.0.5 (a priority queue, per-message TTL) is the positive control, `native`;
- a first delivery over AMQP 0-9-1 on RabbitMQ 4.0.5 carries no counter header: AMQP 0-9-1 has no
  delivery counter (redelivered is a hint, not a count), so deliveryCount 0 is mqconform's
  mapping's reading of the redelivered bit, never the broker's (the protocols differ: AMQP 1.0's
  omitted delivery-count is a field's value, `by-protocol`), and the REQUIRED header fails;
- every row is the reference provider's (mqconform-om/<protocol>@<target>), naming its broker.

The repository's own vectors run through the OpenMessaging suite in an inner session."""
from __future__ import annotations

import uuid

import pytest

from ..provision.conftest import engine  # noqa: F401 - the fixture
from ..sessions import run_pytest

# The module's tests share `rows` (one inner session with two brokers): one worker runs them all.
pytestmark = [pytest.mark.containers, pytest.mark.xdist_group("om-credit")]


@pytest.fixture(scope="module")
def rows(engine, tmp_path_factory):  # noqa: F811 - the fixture
    tmp = tmp_path_factory.mktemp("om-credit")
    (tmp / "none.yaml").write_text("expectations: []\n")
    proc, rows, _ = run_pytest(["suites/openmessaging/test_openmessaging.py", "--expectations", str(tmp / "none.yaml"),
                                "-k", "priority-offered or priority-best-effort or expire-time-offered or "
                                      "expire-time or delivery-count-present",
                                "--target", "garagemq", "--target", "rabbitmq-4.0.5"],
                               tmp, env={**engine.env, "MQCONFORM_RUN_ID": uuid.uuid4().hex}, timeout=900)
    assert len(rows) == 21, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {(r["implementation"]["name"], r["vector_id"].rsplit(".", 1)[1]): r for r in rows}


def test_rows_are_the_reference_providers_naming_the_broker(rows):
    for (name, _), r in rows.items():
        impl = r["implementation"]
        assert name.startswith("mqconform-om/") and impl["kind"] == "provider" and impl["role"] == "reference"
        prov = impl["provenance"]
        assert name == f"mqconform-om/{prov['protocol']}@{prov['broker']}"
        assert prov["broker_product"] in ("garagemq", "rabbitmq") and prov["broker_version"]


def test_a_priority_garagemq_carries_but_does_not_honour_fails_its_behaviour_not_its_offer(rows):
    r = rows["mqconform-om/amqp091@garagemq", "priority-offered"]
    assert r["outcome"] == "pass", r["message"]                 # the header is carried: offered
    assert "priority" not in r["profile"], r["profile"]          # carrying credits no behaviour
    b = rows["mqconform-om/amqp091@garagemq", "priority-best-effort"]
    assert b["outcome"] == "fail" and b["level"] == "SHOULD", b["message"]
    assert b["profile"]["priority"]["status"] == "absent", b["profile"]
    # the positive control: RabbitMQ's priority queue lets expedited messages overtake
    ok = rows["mqconform-om/amqp091@rabbitmq-4.0.5", "priority-best-effort"]
    assert ok["outcome"] == "pass", ok["message"]
    assert ok["profile"]["priority"]["status"] == "native"


def test_an_expiry_garagemq_does_not_honour_fails_its_must(rows):
    assert rows["mqconform-om/amqp091@garagemq", "expire-time-offered"]["outcome"] == "pass"
    r = rows["mqconform-om/amqp091@garagemq", "expire-time"]
    assert r["outcome"] == "fail" and r["level"] == "MUST", r["message"]
    assert r["profile"]["expiry"]["status"] == "absent", r["profile"]
    assert rows["mqconform-om/amqp091@rabbitmq-4.0.5", "expire-time"]["outcome"] == "pass"


def test_a_first_deliverys_zero_over_amqp091_is_the_mappings_reading_and_fails(rows):
    r = rows["mqconform-om/amqp091@rabbitmq-4.0.5", "delivery-count-present"]
    assert r["outcome"] == "fail" and r["level"] == "MUST", r["message"]
    assert r["set_by"] == {"deliveryCount": "mapping"}
    assert "mqconform's mapping" in r["message"], r["message"]
    assert "delivery-count" not in r["profile"] or r["profile"]["delivery-count"]["status"] == "emulated", r["profile"]
