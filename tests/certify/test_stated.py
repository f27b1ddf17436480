"""The certificate shows the facts the vendor stated, from the rows (certify/stated.py)."""
from __future__ import annotations

from certify import stated


def _row(outcome="pass", message="", vector="v.passes", **prov):
    return {"outcome": outcome, "message": message, "vector_id": vector,
            "implementation": {"name": "mine", "provenance": {"endpoint": "amqp://u@h:5672", **prov}}}


def test_stated_facts_come_from_the_rows_and_missing_ones_are_counted():
    rows = [_row(stated_amqp_address_v1="denied"),
            _row("not_applicable", "needs amqp10_auto_create='true'; the fact amqp10_auto_create is not known for mine: ...",
                 "v.auto-create-b"),
            _row("not_applicable", "needs amqp10_auto_create='true'; the fact amqp10_auto_create is not known for mine: ...",
                 "v.auto-create-a")]
    facts = stated.of(rows)
    assert facts == {"stated": {"amqp_address_v1": "denied"}, "not_stated": {"amqp10_auto_create": ["v.auto-create-a", "v.auto-create-b"]}}
    text = "\n".join(stated.section({"stated_facts": facts}))
    assert "## Facts the vendor stated" in text and "- `amqp_address_v1=denied`" in text
    assert ("- `amqp10_auto_create`: 2 vector(s) not_applicable for want of it: `v.auto-create-a`, "
            "`v.auto-create-b`") in text


def test_nothing_stated_says_so():
    text = "\n".join(stated.section({"stated_facts": stated.of([_row()])}))
    assert "None stated." in text and "- `amqp_address_v1`: no vector needed it" in text
