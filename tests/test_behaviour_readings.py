"""A behaviour vector is judged under one reading of each clause (fixtures/kinds/amqp10_links.py)."""
from types import SimpleNamespace

from fixtures.kinds.amqp10_links import _readings_matched, _Run
from fixtures.vectordata.registry import Clause, Reading, Registry

C = "s/x/names"
REGISTRY = Registry({}, {C: Clause(C, "s", "x", "MUST", "Names are encoded.",
                               readings=(Reading("refuse", "refused"), Reading("take", "taken as is")))}, ())
WANT_SEND = {"any_of": [{"is": {"outcome": "rejected"}, "reading": "refuse"},
                        {"is": {"outcome": "accepted"}, "reading": "take"}]}
WANT_GET = {"any_of": [{"is": "none", "reading": "refuse"}, {"is": {"body": "m1"}, "reading": "take"}]}


def outcome(state):
    return ("outcome", SimpleNamespace(state=state, condition=None))


def run():
    broker = SimpleNamespace(adapter=lambda protocol: None)
    vector = SimpleNamespace(spec="s", input={}, expect={"steps": []}, clauses=(C,))
    return _Run(vector, broker, REGISTRY)


def test_tagged_alternatives_name_the_readings_they_hold_under():
    assert _readings_matched("send", WANT_SEND, outcome("accepted")) == {"take"}
    assert _readings_matched("queue_get", WANT_GET, ("message", None)) == {"refuse"}
    assert _readings_matched("send", {"outcome": "accepted"}, outcome("accepted")) is None   # untagged: any reading


def test_checks_held_under_one_reading_pass_and_say_which():
    r = run()
    assert r._consistent(1, {}, "send", WANT_SEND, ["x/names"], outcome("accepted")) == (True, "")
    assert r._consistent(2, {}, "queue_get", WANT_GET, ["x/names"], ("message", b"m1")) == (True, "")
    assert r.findings.notes == [f"{C}: held under reading take"]


def test_checks_held_under_different_readings_fail():
    # accepted (take-as-is) but not delivered (refuse): no one reading accepts both
    r = run()
    assert r._consistent(1, {}, "send", WANT_SEND, ["x/names"], outcome("accepted"))[0]
    ok, why = r._consistent(2, {}, "queue_get", WANT_GET, ["x/names"], ("message", None))
    assert not ok and "no one reading accepts both" in why
