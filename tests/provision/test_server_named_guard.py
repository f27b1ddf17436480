"""The README's certify example against a stock RabbitMQ 4.0.5: the URL states amqp_address_v1=denied,
the broker permits v1, and no management API can be had. The two vectors that attach receivers
to v1 sources (`/exchange/amq.direct/K`, `/topic/K`) would make the broker name two queues itself
(`amq.gen-*`) that nothing could find to delete; the footprint's guard (fixtures/adapters/amqp10.py
`_v1_guard`) sees the broker take v1 first and leaves those vectors not judged instead: the broker
is left as found, and the rows say why."""
from __future__ import annotations

import uuid

import pytest

from ..sessions import run_pytest
from .test_vendor_endpoint import PASSWORD, state, vendor  # noqa: F401 - `vendor` is a fixture

pytestmark = [pytest.mark.containers]


def test_no_server_named_queue_is_made_that_could_not_be_deleted(vendor, engine, tmp_path):  # noqa: F811
    rt, _ = vendor
    before = state(rt)
    url = f"stock=amqp://vendor@{rt.host}:{rt.port('amqp091')}?amqp_address_v1=denied&management=none"
    env = {**engine.env, "MQCONFORM_PASSWORD_stock": PASSWORD, "MQCONFORM_RUN_ID": uuid.uuid4().hex}
    proc, rows, _ = run_pytest(["suites/rabbitmq_address", "--spec", "rabbitmq-address@4.0", "-k", "denied-source",
                                "--endpoint", url], tmp_path, env=env, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out[-3000:]
    guarded = [r for r in rows if "takes AMQP 1.0 address v1" in (r.get("message") or "")]
    assert {r["vector_id"] for r in guarded} >= {"rabbitmq-address@4.0.feature-flag.denied-source-exchange-key",
                                                 "rabbitmq-address@4.0.feature-flag.denied-source-topic"}, \
        [(r["vector_id"], r["outcome"], r["message"][:150]) for r in rows]
    assert all(r["outcome"] == "error" and r["error_kind"] == "precondition" for r in guarded)
    assert state(rt) == before, out[-3000:]
