"""What a person reads on CERTIFICATE.md (pure: rows in, text out): one overall line with one verdict,
the failed clauses with their sentence and the rows that decided them, errors apart, one failure
count that junit.xml of the same rows gives too, and no reason cut inside a word."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from certify import certificate, counts, failing, regen
from reports.render.markdown import shorten

SPEC, REV = "rabbitmq-address@4.0", "4.0"
MUST_C = "rabbitmq-address@4.0/target-v1/exchange-routing-key"
SHOULD_C = "rabbitmq-address@4.0/addresses/clients-should-use-v2"
OTHER_C = "rabbitmq-address@4.0/target-v2/exchange-routing-key"


def row(n, outcome, level="MUST", clauses=(MUST_C,), clause_outcomes=None, message=None, error_kind=None):
    clauses = list(clauses)
    if clause_outcomes is None:
        clause_outcomes = {c: outcome for c in clauses} if outcome in ("pass", "fail") else {}
    return {"schema_version": 3, "run_id": "a" * 32, "run_started": "2026-11-26T10:00:00Z", "suite_version": "0.1.0",
            "vectors_digest": "sha256:d", "spec": SPEC, "spec_revision": REV, "clause_ids": clauses, "level": level,
            "clause_outcomes": clause_outcomes, "failed_step": {"index": 2, "action": "send", "role": "check",
                                                                  "clause_ids": clauses} if outcome == "fail" else None,
            "error_kind": error_kind, "notes": [], "set_by": {}, "test_id": f"suites/t.py::test[v{n}]",
            "vector_id": f"v{n}", "vector_status": "stable",
            "implementation": {"name": "mine", "kind": "broker", "version": "4.0.5",
                               "provenance": {"endpoint": "amqp://h", "server_product": "RabbitMQ",
                                              "server_version": "4.0.5", "stated_amqp_address_v1": "permitted"}},
            "adapter": "pika 1.4.4", "outcome": outcome, "expected_outcome": "pass",
            "message": message if message is not None else ("" if outcome == "pass" else f"why v{n}"),
            "started": "2026-11-26T10:00:01Z", "duration_s": 0.1}


ROWS = [
    row(1, "pass", clauses=(MUST_C, OTHER_C)),
    # fails one clause it cites, passes the other: only the failed one is a failed clause
    row(2, "fail", clauses=(MUST_C, OTHER_C), clause_outcomes={MUST_C: "fail", OTHER_C: "pass"},
        message="the message was routed to the default exchange, expected the named one"),
    row(3, "error", clauses=(OTHER_C,), message="the adapter lost the link", error_kind="adapter"),
    row(4, "fail", level="SHOULD", clauses=(SHOULD_C,)),
    row(5, "not_applicable", clauses=(OTHER_C,), message="needs x; the fact amqp10_auto_create is not known for mine"),
]


def _facts(rows=ROWS):
    return certificate.facts(rows, scope=[SPEC], suite_commit="abc", made="2026-11-26T11:00:00Z")


def test_failed_clauses_carry_their_sentence_and_the_row_that_decided_them():
    from reports.views import clauses

    got = failing.of(ROWS, clauses.load())[(SPEC, REV)]
    assert [c["clause_id"] for c in got["failed_clauses"]] == [MUST_C, SHOULD_C]   # strongest level first
    must = got["failed_clauses"][0]
    assert must["level"] == "MUST" and must["quote"] == " ".join(clauses.load()[MUST_C]["quote"].split())
    assert must["rows"] == [{"vector_id": "v2", "test_id": "suites/t.py::test[v2]", "step": "step 2: send",
                             "checks": "", "found": "the message was routed to the default exchange, expected the named one"}]
    # an error judged nothing: listed apart, never a failed clause
    assert OTHER_C not in [c["clause_id"] for c in got["failed_clauses"]]
    assert [(e["vector_id"], e["error_kind"], e["clause_ids"]) for e in got["errors"]] == [("v3", "adapter", [OTHER_C])]


def test_the_certificate_shows_each_failed_clause_with_its_sentence():
    from reports.views import clauses

    f = _facts()
    text = certificate.render(f)
    quote = " ".join(clauses.load()[MUST_C]["quote"].split())
    at = text.index(f"**MUST** `{MUST_C}`")
    assert quote[:40].replace("`", "\\`") in text[at:]
    assert "decided by `v2` (step 2: send): found: the message was routed to the default" in text
    assert "Not judged (1 error row(s)" in text
    assert f"- `v3` (adapter error; would judge {OTHER_C}): found: the adapter lost the link" in text
    assert f"**SHOULD** `{SHOULD_C}`" in text


def test_one_overall_line_one_verdict_and_why():
    f = _facts()
    line = certificate.render(f).splitlines()[2]
    assert line.startswith("**Overall: NOT CONFORMANT**: RabbitMQ 4.0.5 (`mine`) on rabbitmq-address@4.0 "
                           "(certified: --spec rabbitmq-address@4.0): 1 MUST / MUST NOT clause(s) failed: ")
    assert f"`{MUST_C}`" in line and SHOULD_C not in line
    verdict = line.split("**")[1]
    assert " or " not in verdict and certificate.overall(f) == "not-conformant"


@pytest.mark.parametrize("verdicts, word", [
    (["not-conformant", "incomplete", "conformant"], "NOT CONFORMANT"),
    (["incomplete", "conformant-except-should"], "INCOMPLETE"),
    (["conformant-except-should", "conformant", "not-applicable"], "CONFORMANT EXCEPT SHOULD"),
    (["conformant", None], "CONFORMANT"),
    (["not-applicable"], "NOT APPLICABLE"),
])
def test_the_overall_verdict_is_the_worst_of_the_specs_that_apply(verdicts, word):
    f = {"implementation": {"name": "mine", "version": "1", "server": {}}, "scope": ["every spec"],
         "specs": [{"spec": f"s{i}", "spec_revision": "", "verdict": v, "failed_clauses": [], "errors": [],
                    "coverage": {"not_judged": [{"clause_id": "s/c", "why": "no row judged it"}]
                                 if v == "incomplete" else []}} for i, v in enumerate(verdicts)]}
    line = certificate.overall_line(f)
    assert line.startswith(f"**Overall: {word}**: mine 1 (`mine`) on ")
    assert (certificate.overall(f) in certificate.MUST_HELD) == word.startswith("CONFORMANT")


def _junit(rows, error_in_setup=()):
    """junit.xml as pytest writes one for these rows (certify/counts.py): an error row is a <failure>
    when the test's body raised it, an <error> when a fixture's setup did."""
    suite = ET.Element("testsuite", name="pytest")
    for r in rows:
        case = ET.SubElement(suite, "testcase", classname="suites.t", name=r["test_id"].split("::")[1])
        want = counts.junit_elements(r["outcome"], r["level"])
        if None not in want:
            tag = "skipped" if "skipped" in want else "error" if r["vector_id"] in error_in_setup else "failure"
            ET.SubElement(case, tag)
    return suite


@pytest.mark.parametrize("error_in_setup", [(), ("v3",)])
def test_the_certificates_counts_are_junits(error_in_setup):
    f = _facts()
    suite = _junit(ROWS, error_in_setup)
    failures = len(suite.findall("testcase/failure"))
    errors = len(suite.findall("testcase/error"))
    c = f["counts"]
    assert (c["failed"], c["errors"], c["short_of_should"]) == (1, 1, 1)
    assert failures + errors == c["pytest_failed_or_errors"] == c["failed"] + c["errors"]
    assert len(suite.findall("testcase/skipped")) == 2   # the SHOULD fail (xfailed) and the not_applicable row
    # verify's check of junit.xml uses the same mapping
    for r in ROWS:
        assert regen.shown_as(r["outcome"], r["level"]) == set(counts.junit_elements(r["outcome"], r["level"]))
    text = certificate.render(f)
    assert "- **failed: 1**:" in text and "- **errors: 1**:" in text
    assert "is 2 = 1 failed + 1 errors" in text


def test_a_vectors_message_is_split_into_what_it_checks_and_what_was_found():
    r = row(7, "fail", message=f"v7: a v1 address is refused\n{MUST_C} (MUST): \"the sentence\"\n"
                               "step 1 (attach_sender: '/queue'): expected refused; got attached")
    assert failing.split_message(r) == ("a v1 address is refused",
                                        "step 1 (attach_sender: '/queue'): expected refused; got attached")
    assert failing.split_message(row(8, "fail", message="another shape")) == ("", "another shape")


def test_facts_the_vendor_stated_and_vectors_not_applicable_for_want_of_one():
    text = certificate.render(_facts())
    assert "- `amqp_address_v1=permitted`" in text
    assert "- `amqp10_auto_create`: 1 vector(s) not_applicable for want of it: `v5`" in text


def test_a_reason_is_never_cut_inside_a_word():
    long = "the broker refused the link because " + "the address was not understood " * 30
    f = _facts([*ROWS[:1], row(9, "fail", message=long)])
    [r] = f["specs"][0]["failed_clauses"][0]["rows"]
    assert r["found"].endswith("…") and len(r["found"]) <= failing.REASON_LIMIT
    assert long.startswith(r["found"][:-1]) and long[len(r["found"]) - 1] == " "
    assert shorten("hello wonderful world", 14) == "hello…" and shorten("short", 14) == "short"
    assert shorten("a\nb  c", 10) == "a b c"


def test_a_container_started_again_after_an_exit_is_on_the_certificate():
    again = "2; start 1 exited (status exited, exit code 1)"
    rows = [{**r, "implementation": {**r["implementation"], "provenance": {
        **r["implementation"]["provenance"], "start.attempts": again}}} for r in ROWS]
    f = _facts(rows)
    assert f["implementation"]["start_attempts"] == again
    assert f"| container starts | {again} |" in certificate.render(f)
    assert "start_attempts" not in _facts()["implementation"] and "container starts" not in certificate.render(_facts())
