"""Integration: the RocketMQ adapter (official gRPC client) against a real RocketMQ 5.3.3 in a container.

Select with `-m containers`; skipped without the client library or a container engine."""
from __future__ import annotations

import time
import uuid

import pytest

from fixtures.adapters.base import Refused
from fixtures.codecs.model import RocketMQMessage

pytest.importorskip("rocketmq", reason="rocketmq-python-client is not installed")

from tests.provision.conftest import engine, shared_target  # noqa: E402,F401 - fixtures shared with provision tests

# One broker for the module and for tests/process/test_provider_rocketmq.py (a start takes a minute or
# more): each test makes its own uniquely named topic and group, or names a topic nobody makes.
pytestmark = [pytest.mark.containers, pytest.mark.xdist_group("rocketmq-5.3.3")]


@pytest.fixture
def rocketmq(shared_target):  # noqa: F811
    from fixtures.adapters.rocketmq import RocketMQAdapter

    rt = shared_target("rocketmq-5.3.3")
    adapter = RocketMQAdapter.for_container(rt, wait_s=10)
    try:
        yield adapter
    finally:
        adapter.close()


def test_roundtrip_with_properties(rocketmq):
    suffix = uuid.uuid4().hex[:8]
    topic, group = f"mqc_t_{suffix}", f"mqc_g_{suffix}"
    rocketmq.admin.create_topic(topic, "NORMAL")
    rocketmq.admin.create_group(group)

    sent = RocketMQMessage(topic=topic, properties={"ce_id": "42", "ce_type": "com.example.ü", "empty-ish": " x "},
                           body=b"\x00\x01binary\xff", tag="TagA", keys=("k1", "k2"))
    t0 = time.monotonic()
    mid = rocketmq.topics.send(topic, sent)
    got = rocketmq.topics.receive(topic, group, timeout=15)
    elapsed = time.monotonic() - t0
    print(f"rocketmq round trip {elapsed:.3f}s")

    assert mid and got is not None
    assert got.message_id == mid
    assert got.acked and got.delivery_attempt == 1 and got.message_type == "NORMAL"
    assert got.message == sent
    # acked: nothing more for this group
    assert rocketmq.topics.receive(topic, group, timeout=5) is None


def test_missing_topic_is_refused(rocketmq):
    with pytest.raises(Refused) as info:
        rocketmq.topics.send("mqc_no_such_topic", RocketMQMessage(body=b"x"))
    assert info.value.error.condition == "TOPIC_NOT_FOUND"


def test_bad_topic_name_refused_by_the_broker(rocketmq):
    with pytest.raises(Refused) as info:
        rocketmq.admin.create_topic("bad@topic")
    assert info.value.error.condition == "29"
