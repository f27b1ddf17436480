"""The clause registry against the spec texts: verbatim quotes, and no normative sentence left out."""
import pytest

from fixtures import spectext
from fixtures.registry import load_registry
from fixtures.spectext import SPEC_FILES

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
