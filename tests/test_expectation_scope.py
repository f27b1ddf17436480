"""Expectations scoped by protocol and version range (fixtures/verdict/expectations.py, fixtures/verdict/versionrange.py):
an entry covers a row only when both match; a malformed scope is an error naming FILE:LINE; the gate
warns about an entry broader than the rows it covers. Pure code."""
import datetime as dt

import pytest

from fixtures.verdict import expectations as E
from fixtures.verdict.versionrange import VersionRange, VersionRangeError, release
from reports.gate import gate

TODAY = dt.date(2026, 11, 26)


@pytest.mark.parametrize("rng, inside, outside", [
    (">=4.0,<4.3", ["4.0", "4.0.0", "4.2.99", "4.0.5-1"], ["3.10.8", "4.3", "4.3.6", "unknown", "", None]),
    ("==2.2.0", ["2.2", "2.2.0", "2.2.0rc1"], ["2.2.1", "2.20.0"]),
    ("==4.0.*", ["4.0", "4.0.10"], ["4.1.0", "40.0"]),
    ("!=5.3.*, >5", ["5.5.0", "6"], ["5.3.3", "5", "4.9"]),
    ("<=4.0.10", ["4.0.9", "4.0.10", "4"], ["4.0.11", "4.1"]),
])
def test_version_ranges_compare_dotted_numbers(rng, inside, outside):
    r = VersionRange.parse(rng)
    assert all(r.contains(v) for v in inside), [v for v in inside if not r.contains(v)]
    assert not any(r.contains(v) for v in outside), [v for v in outside if r.contains(v)]


@pytest.mark.parametrize("bad", ["", "4.0", "=>4.0", ">=4.x", ">=4.0,", ">4.*", "~=4.0"])
def test_a_malformed_range_is_refused(bad):
    with pytest.raises(VersionRangeError):
        VersionRange.parse(bad)


def test_release_reads_the_leading_numbers():
    assert release("v4.3.6-1") == (4, 3, 6) and release("0.0.0-20230728") == (0, 0, 0) and release("x1") is None


def _write(tmp_path, body):
    f = tmp_path / "e.yaml"
    f.write_text("expectations:\n" + body)
    return f


def test_an_entry_covers_a_row_only_in_its_protocol_and_versions(tmp_path):
    [e] = E.load(_write(tmp_path, '  - {implementation: "broker-*", vector: v.count, protocol: amqp091, '
                                  'versions: ">=9.0,<10", reason: r}\n'))
    def find(proto, ver):
        return E.find([e], "broker-9.2.1", "v.count", [], TODAY, protocol=proto, version=ver)
    assert find("amqp091", "9.2.1") is e
    assert find("amqp10", "9.2.1") is None          # the other protocol's row is judged on its own
    assert find(None, "9.2.1") is None              # a row that records no protocol (codec, schema 2)
    assert find("amqp091", "10.0.0") is None and find("amqp091", "unknown") is None


def test_a_list_of_protocols_and_no_scope(tmp_path):
    both, anyrow = E.load(_write(tmp_path, '  - {implementation: b, vector: v, protocol: [amqp091, amqp10], reason: r}\n'
                                           '  - {implementation: b, vector: w, reason: r}\n'))
    assert both.protocols == ("amqp091", "amqp10") and both.matches("b", "v", [], "amqp10", None)
    assert not both.matches("b", "v", [], "rocketmq-grpc", None)
    assert anyrow.matches("b", "w", [], None, None) and anyrow.matches("b", "w", [], "amqp10", "1")


@pytest.mark.parametrize("field, message", [
    ('protocol: amqp', "field protocol: amqp is not a registered protocol"),
    ('protocol: []', "field protocol: a protocol id or a list"),
    ('versions: ">=4.0,<<4.3"', "field versions: '<<4.3' is not an operator"),
    ('versions: 4.0', "field versions"),
])
def test_a_malformed_scope_names_file_and_line(tmp_path, field, message):
    f = _write(tmp_path, '  - {implementation: a, vector: v, reason: r}\n'
                         f'  - {{implementation: b, vector: v, {field}, reason: r}}\n')
    with pytest.raises(E.ExpectationsError) as exc:
        E.load(f)
    assert f"{f}:3: expectations[1]" in str(exc.value) and message in str(exc.value)


def _row(impl, vector, outcome, protocol, version):
    return {"impl": impl, "vector_id": vector, "clause_ids": ["c/1"], "clause_outcomes": None,
            "outcome": outcome, "error_kind": None, "protocol": protocol, "version": version,
            "message": "", "test_id": f"t[{vector}::{impl}]"}


def test_the_gate_warns_about_an_entry_that_names_no_protocol_but_covers_one(tmp_path):
    f = _write(tmp_path, '  - {implementation: qpid-9.2.1, vector: v.count, reason: "0-9-1 only"}\n'
                         '  - {implementation: qpid-9.2.1, vector: v.host, reason: "no field anywhere"}\n')
    loose, everywhere = E.load(f)
    rows = [_row("qpid-9.2.1", "v.count", "fail", "amqp091", "9.2.1"),
            _row("qpid-9.2.1", "v.count", "pass", "amqp10", "9.2.1"),
            _row("qpid-9.2.1", "v.host", "fail", "amqp091", "9.2.1"),
            _row("qpid-9.2.1", "v.host", "fail", "amqp10", "9.2.1")]
    res = gate.evaluate(rows, [loose, everywhere], TODAY)
    assert res.broader == [f"{f}:2: expectations[0] (implementation 'qpid-9.2.1', vector 'v.count'): names no "
                           "protocol but covers only amqp091 rows of qpid-9.2.1; its rows over amqp10 (pass) match "
                           "it too: add `protocol: amqp091` (or name them, if it is about them as well)"]
    scoped = E.load(_write(tmp_path, '  - {implementation: qpid-9.2.1, vector: v.count, protocol: amqp091, reason: r}\n'))
    res = gate.evaluate(rows[:2], scoped, TODAY)
    assert res.broader == [] and len(res.covered) == 1 and res.uncovered == [] and res.stale == []


def test_the_gate_warns_about_an_entry_that_names_no_version_range_but_covers_one(tmp_path):
    f = _write(tmp_path, '  - {implementation: "rabbitmq-*", vector: v.stamp, reason: "before 3.12"}\n')
    rows = [_row("rabbitmq-3.10.8", "v.stamp", "fail", "amqp091", "3.10.8"),
            _row("rabbitmq-4.0.5", "v.stamp", "pass", "amqp091", "4.0.5"),
            _row("garagemq", "v.stamp", "pass", "amqp091", "0.0.0")]   # another product: not counted
    res = gate.evaluate(rows, E.load(f), TODAY)
    assert len(res.broader) == 1 and res.broader[0].startswith(f"{f}:2: expectations[0]")
    assert "names no version range but covers only version 3.10.8 rows of rabbitmq-*; its rows of version " \
           "4.0.5 (pass) match it too" in res.broader[0]
    f2 = _write(tmp_path, '  - {implementation: "rabbitmq-*", vector: v.stamp, versions: "<3.12", reason: r}\n')
    assert gate.evaluate(rows, E.load(f2), TODAY).broader == []
    # Every version it matches is covered: not broader.
    rows[1]["outcome"] = "fail"
    assert gate.evaluate(rows, E.load(f), TODAY).broader == []


def test_the_report_shows_a_scoped_entry_beside_its_own_protocols_row_only(tmp_path):
    from reports.views import known_deviations as known
    [e] = E.load(_write(tmp_path, '  - {implementation: b, vector: v, protocol: amqp091, reason: r}\n'))
    def vec(proto, outcome):
        return {"vector_id": "v", "outcome": outcome, "clause_outcome": outcome,
                                      "protocol": proto, "version": "1"}
    assert known.entry_for([e], "b", "c/1", vec("amqp091", "xfail"), TODAY) is e
    assert known.entry_for([e], "b", "c/1", vec("amqp10", "fail"), TODAY) is None
