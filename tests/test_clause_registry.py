"""The clause registry against the spec texts: verbatim quotes, and no normative sentence left out."""
import json

import pytest

from fixtures.vectordata import spectext
from fixtures.vectordata.registry import RegistryError, enumerated_readings, load_registry
from fixtures.vectordata.spectext import SPEC_FILES

from .paths import VECTORS

REGISTRY = load_registry(VECTORS / "clauses")


def test_all_six_specs_are_registered():
    assert set(REGISTRY.specs) == set(SPEC_FILES)


@pytest.mark.parametrize("spec_id", sorted(SPEC_FILES))
def test_quotes_are_verbatim(spec_id):
    spec = REGISTRY.specs[spec_id]
    missing = [c.id for c in spec.clauses if not spectext.quote_in_spec(spec_id, c.quote)]
    missing += [n["quote"][:60] for n in spec.non_normative if not spectext.quote_in_spec(spec_id, n["quote"])]
    assert not missing, f"quotes not found verbatim in {SPEC_FILES[spec_id]}: {missing}"


@pytest.mark.parametrize("spec_id", sorted(SPEC_FILES))
def test_every_keyword_sentence_is_a_clause_or_listed_non_normative(spec_id):
    spec = REGISTRY.specs[spec_id]
    quotes = [spectext.normalize(c.quote) for c in spec.clauses] + [spectext.normalize(n["quote"]) for n in spec.non_normative]
    uncovered = [s for s in spectext.keyword_sentences(spec_id) if not any(q in s or s in q for q in quotes)]
    assert not uncovered, f"{spec_id}: sentences with an RFC 2119 keyword that are neither a clause nor non_normative: {uncovered}"


@pytest.mark.parametrize("spec_id", sorted(SPEC_FILES))
def test_applicability_sentences_are_verbatim(spec_id):
    spec = REGISTRY.specs[spec_id]
    sentences = {a.because for a in spec.applies_to} | {a.because for c in spec.clauses for a in c.applies_to}
    missing = [b for b in sentences if not spectext.quote_in_spec(spec_id, b)]
    assert not missing, f"applies_to sentences not found verbatim in {SPEC_FILES[spec_id]}: {missing}"
    seen = {a.see for a in spec.applies_to if a.see} | {a.see for c in spec.clauses for a in c.applies_to if a.see}
    missing = [q for other, q in seen if not spectext.quote_in_spec(other, q)]
    assert not missing, f"applies_to `see` sentences not found verbatim in the specs they name: {missing}"


def test_untestable_clauses_say_why():
    assert all(c.reason for c in REGISTRY.clauses.values() if not c.testable)


def test_ids_are_not_positional():
    # ids are slugs: a trailing number alone ("-1", "-2") would shift when a clause is inserted
    positional = [cid for cid in REGISTRY.clauses if cid.rsplit("/", 1)[1].rsplit("-", 1)[-1].isdigit()]
    assert not positional


CLAUSE_FILE = """\
spec: lint
revision: "1"
title: t
source: s.md
clauses:
  - id: lint/a/ambiguous
    section: a
    level: MUST
    quote: "The queue must exist."
    ambiguity: >-
      AMBIGUITY
"""


@pytest.mark.parametrize("prose", [
    "Readings: (a) the attach is refused; (b) a client precondition only.",
    "Readings of REQUIRED: present, or holding an entry.",
    "The word may mean (a) periodically or (b) evenly.",
    "Observable as: x. Reading (b): the API may not let it be set.",
    "Both lead to the empty key, so vectors accept either reading.",
    "One reading: the attach is refused. (a) the link (b) the session.",   # an enumeration all the same
])
def test_prose_enumerating_readings_without_a_readings_list_is_refused(tmp_path, prose):
    (tmp_path / "lint.yaml").write_text(CLAUSE_FILE.replace("AMBIGUITY", prose))
    with pytest.raises(RegistryError) as e:
        load_registry(tmp_path)
    msg = str(e.value)
    assert "lint.yaml:" in msg and "'lint/a/ambiguous'" in msg and "ambiguity" in msg
    assert "has no `readings`" in msg and "One reading: ..." in msg


@pytest.mark.parametrize("prose", [
    "One reading: the attach is refused. The MAY has two sides, not two readings of the text.",
    "No `readings`: a MUST reading is a question of level.",
    "In 4.0 see design-goals/subject-not-routing-key for its readings there.",
])
def test_prose_with_one_reading_loads(tmp_path, prose):
    (tmp_path / "lint.yaml").write_text(CLAUSE_FILE.replace("AMBIGUITY", prose))
    assert "lint/a/ambiguous" in load_registry(tmp_path).clauses


def test_prose_enumerating_readings_loads_with_a_readings_list(tmp_path):
    text = CLAUSE_FILE.replace("AMBIGUITY", "Readings: (a) refused; (b) a precondition.") + (
        "    readings:\n      - {name: refused, text: the attach is refused}\n"
        "      - {name: precondition, text: a client precondition only}\n")
    (tmp_path / "lint.yaml").write_text(text)
    assert len(load_registry(tmp_path).clauses["lint/a/ambiguous"].readings) == 2


def test_no_registered_clause_enumerates_readings_it_does_not_list():
    assert not [c.id for c in REGISTRY.clauses.values() if not c.readings and enumerated_readings(c.ambiguity)]


def test_governs_takes_only_finding_kinds(tmp_path):
    # codec vectors blame a clause for the kinds of finding it governs (fixtures/verdict/blame.py FINDING_KINDS)
    from fixtures.verdict.blame import FINDING_KINDS
    ok = CLAUSE_FILE.replace("    ambiguity: >-\n      AMBIGUITY\n", "    governs: [prefix, value]\n")
    (tmp_path / "lint.yaml").write_text(ok)
    assert load_registry(tmp_path).clauses["lint/a/ambiguous"].governs == ("prefix", "value")
    (tmp_path / "lint.yaml").write_text(ok.replace("[prefix, value]", "[prefixes]"))
    with pytest.raises(RegistryError, match="lint.yaml"):
        load_registry(tmp_path)
    schema = json.loads((VECTORS.parent / "fixtures" / "vectordata" / "schema" / "clauses.schema.json").read_text())
    (governs,) = [v["governs"] for v in _walk(schema) if isinstance(v, dict) and isinstance(v.get("governs"), dict)]
    assert set(governs["items"]["enum"]) == set(FINDING_KINDS)


def _walk(node):
    yield node
    if isinstance(node, dict):
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)
