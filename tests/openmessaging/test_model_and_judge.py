"""OpenMessaging values, vector notation and matchers (pure code)."""
import math

import pytest

from fixtures.openmessaging.judge import ABSENT, Context, judge, matches
from fixtures.openmessaging.model import OMValue, message_from_data, value_from_data


def test_numeric_ranges_are_enforced():
    OMValue("Short", -32768)
    with pytest.raises(ValueError):
        OMValue("Short", 32768)
    with pytest.raises(ValueError):
        OMValue("Long", 2 ** 63)


def test_float_notation_is_binary32_and_specials_are_bit_exact():
    assert value_from_data({"float": 0.1}).value == pytest.approx(0.1, rel=1e-7)
    nan = value_from_data({"double": "NaN"})
    assert math.isnan(nan.value) and nan.same_content(value_from_data({"double": "NaN"}))
    assert not value_from_data({"double": "-0.0"}).same_content(OMValue("Double", 0.0))


def test_numeric_content_survives_a_wider_type():
    assert OMValue("Short", 7).same_content(OMValue("Integer", 7))
    assert not OMValue("String", "7").same_content(OMValue("Integer", 7))


def test_message_notation():
    m = message_from_data({"headers": {"priority": 3}, "properties": {"k": {"keyvalue": {"a": {"integer": 1}}}},
                           "body": {"hex": "00ff"}})
    assert m.headers == {"priority": 3} and m.body == b"\x00\xff" and m.properties["k"].type == "KeyValue"


def test_send_call_window_allows_seconds_truncation():
    ctx = Context(called_ms=1_700_000_000_500, returned_ms=1_700_000_000_510, unit_ms=1000)
    assert matches({"within_send_call": {"tolerance_ms": 1}}, 1_700_000_000_000, ctx)[0]
    assert not matches({"within_send_call": {"tolerance_ms": 1}}, 1_699_999_999_000, ctx)[0]
    exact = Context(called_ms=1_700_000_000_500, returned_ms=1_700_000_000_510)
    assert not matches({"within_send_call": {"tolerance_ms": 1}}, 1_700_000_000_000, exact)[0]


def test_readings_any_of_and_absent():
    check = {"of": "header.priority", "any_of": [{"is": {"equals": 5}, "reading": "delivered-as-five"},
                                                 {"is": "absent", "reading": "left-unset"}]}
    ok, why, reading = judge(check, ABSENT, Context())
    assert ok and reading == "left-unset" and "reading left-unset" in why
    ok, why, reading = judge(check, 4, Context())
    assert not ok and reading is None and "(reading delivered-as-five)" in why
    assert judge({"of": "header.priority", "any_of": [{"equals": 5}, "absent"]}, 5, Context())[0]


def test_relative_time_notation():
    m = message_from_data({"headers": {"expireTime": "+60000", "traceId": "+1"}})
    import time
    assert abs(m.headers["expireTime"] - (time.time_ns() // 1_000_000 + 60000)) < 5000
    assert m.headers["traceId"] == "+1"


def test_epoch_millis_rejects_seconds_and_bools_are_not_numbers():
    assert matches("epoch-millis", 1_700_000_000_000, Context())[0]
    assert not matches("epoch-millis", 1_700_000_000, Context())[0]
    assert not matches({"equals": 1}, True, Context())[0]


def test_client_host_names_this_clients_host_by_name_or_address_with_or_without_port():
    from fixtures.openmessaging.judge import Context, matches
    ctx = Context(client_hosts=("10.88.0.1", "127.0.0.1", "vm"))
    for v in ("127.0.0.1", "/10.88.0.1:34752", "vm/10.88.0.1:1", "vm"):
        assert matches("client-host", v, ctx)[0], v
    for v in ("10.0.0.7", "", "other/10.0.0.7:5", 7):
        assert not matches("client-host", v, ctx)[0], v
    assert not matches("client-host", "127.0.0.1", Context())[0]    # nothing recorded: nothing named
