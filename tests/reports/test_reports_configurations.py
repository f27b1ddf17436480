"""A broker in two catalog configurations: each verdict names the other, and a MUST clause that is
not_applicable in one configuration (half of a conditional clause) says where it was judged and how
(reports/views/model.py `_other_configurations`; pure code)."""
from __future__ import annotations

from reports.render import render_md
from reports.views import model

SPEC, REV = "rabbitmq-address@4.0", "4.0"
CLAUSES = {"c/permitted-half": {"spec": SPEC, "level": "MUST"}, "c/denied-half": {"spec": SPEC, "level": "MUST"}}


def _verdicts(denied_half_outcome="pass"):
    impls = ("rabbitmq-4.3.6", "rabbitmq-4.3.6+address-v1-permitted")
    levels = [{"impl": i, "spec": SPEC, "spec_revision": REV, "level": "MUST", "outcome": "pass", "n": 1} for i in impls]
    cells = [
        {"impl": impls[0], "spec": SPEC, "spec_revision": REV, "clause_id": "c/permitted-half", "counts": {"not_applicable": 2}},
        {"impl": impls[0], "spec": SPEC, "spec_revision": REV, "clause_id": "c/denied-half", "counts": {denied_half_outcome: 1}},
        {"impl": impls[1], "spec": SPEC, "spec_revision": REV, "clause_id": "c/permitted-half", "counts": {"pass": 2}},
        {"impl": impls[1], "spec": SPEC, "spec_revision": REV, "clause_id": "c/denied-half", "counts": {"not_applicable": 1}},
    ]
    idents = {i: {"name": i, "kind": "broker", "provenance": {"product": "rabbitmq"}} for i in impls}
    return {v["implementation"]: v for v in model.spec_verdicts(levels, cells, CLAUSES, idents)}


def test_each_configuration_names_the_other_and_where_its_missing_half_was_judged():
    v = _verdicts()
    default, variant = v["rabbitmq-4.3.6"], v["rabbitmq-4.3.6+address-v1-permitted"]
    assert default["configurations"] == ["rabbitmq-4.3.6+address-v1-permitted"]
    assert default["coverage"]["other_configurations"] == [
        {"clause_id": "c/permitted-half", "implementation": "rabbitmq-4.3.6+address-v1-permitted", "outcome": "held"}]
    assert variant["coverage"]["other_configurations"] == [
        {"clause_id": "c/denied-half", "implementation": "rabbitmq-4.3.6", "outcome": "held"}]
    lines = render_md._other_configurations(list(v.values()))
    assert "- rabbitmq-4.3.6 on rabbitmq-address@4.0 4.0: 1 MUST clause(s) not applicable in this configuration, " \
           "judged in rabbitmq-4.3.6+address-v1-permitted: 1 held" in lines


def test_a_half_failed_elsewhere_is_said_failed():
    v = _verdicts(denied_half_outcome="fail")
    assert v["rabbitmq-4.3.6+address-v1-permitted"]["coverage"]["other_configurations"][0]["outcome"] == "failed"
