"""Credit only from observed behaviour, on real brokers (issue 25, classes 1-3):

- garagemq carries an AMQP 0-9-1 priority and expiration but delivers in arrival order and
  delivers expired messages: priority-offered and expire-time-offered are not passes, and the
  rows' profiles say `absent`; RabbitMQ 4.0.5 (a priority queue) is the positive control;
- over AMQP 0-9-1 on RabbitMQ 4.0.5 a deliveryCount our mapping derived from the redelivered bit
  cannot pass the REQUIRED presence check, and the profile says `emulated`;
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
                                "-k", "priority-offered or expire-time-offered or delivery-count-present",
                                "--target", "garagemq", "--target", "rabbitmq-4.0.5"],
                               tmp, env={**engine.env, "MQCONFORM_RUN_ID": uuid.uuid4().hex}, timeout=900)
    assert len(rows) == 9, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {(r["implementation"]["name"], r["vector_id"].rsplit(".", 1)[1]): r for r in rows}


def test_rows_are_the_reference_providers_naming_the_broker(rows):
    for (name, _), r in rows.items():
        impl = r["implementation"]
        assert name.startswith("mqconform-om/") and impl["kind"] == "provider" and impl["role"] == "reference"
        prov = impl["provenance"]
        assert name == f"mqconform-om/{prov['protocol']}@{prov['broker']}"
        assert prov["broker_product"] in ("garagemq", "rabbitmq") and prov["broker_version"]


def test_a_priority_garagemq_carries_but_does_not_honour_is_not_credited(rows):
    r = rows["mqconform-om/amqp091@garagemq", "priority-offered"]
    assert r["outcome"] != "pass" and r["outcome"] == "unsupported", r["message"]
    assert "the behaviour that offers it was not seen" in r["message"]
    assert r["profile"]["priority"]["status"] == "absent", r["profile"]
    # the positive control: RabbitMQ's priority queue lets expedited messages overtake
    ok = rows["mqconform-om/amqp091@rabbitmq-4.0.5", "priority-offered"]
    assert ok["outcome"] == "pass", ok["message"]
    assert ok["profile"]["priority"]["status"] == "native"


def test_an_expiry_garagemq_does_not_honour_is_not_credited(rows):
    r = rows["mqconform-om/amqp091@garagemq", "expire-time-offered"]
    assert r["outcome"] == "unsupported", r["message"]
    assert r["profile"]["expiry"]["status"] == "absent", r["profile"]


def test_a_count_our_mapping_derived_cannot_pass_a_required_check(rows):
    r = rows["mqconform-om/amqp091@rabbitmq-4.0.5", "delivery-count-present"]
    assert r["outcome"] == "fail", r["message"]
    assert "derived by mqconform's mapping from the redelivered bit" in r["message"]
    assert r["clause_outcomes"]["openmessaging/system-header/delivery-count-required"] == "fail"
    assert r["set_by"] == {"deliveryCount": "mapping"}
    assert r["profile"]["delivery-count"]["status"] == "emulated"
