"""Outcomes: their order, classes and the verdict values. Plain Python (the levels: fixtures/verdict/levels.py)."""
from __future__ import annotations

from fixtures.verdict import row

# Worst first. A matrix cell shows the worst outcome of the vectors behind it:
#   fail           a definite violation;
#   error          could not be judged, so it may hide a fail;
#   xfail          a violation all the same, only a known one;
#   xpass          passes, but the expectations file is stale: someone must act;
#   unsupported    an optional feature is missing;
#   not_applicable the clause does not bind this implementation;
#   pass.
# This puts xfail above xpass (the brief suggested the reverse): a cell holding
# one known deviation and one stale expectation must still show the deviation.
OUTCOME_ORDER = ("fail", "error", "xfail", "xpass", "unsupported", "not_applicable", "pass")
OUTCOMES = frozenset(row.OUTCOMES)     # the row's outcomes (fixtures/verdict/row.py); OUTCOME_ORDER orders them all
# Severity as an integer, higher is worse, so that engines can take max().
SEVERITY = {o: len(OUTCOME_ORDER) - 1 - i for i, o in enumerate(OUTCOME_ORDER)}
BY_SEVERITY = {v: k for k, v in SEVERITY.items()}
# A clause's own state over the outcomes its rows gave it (the run diff's label), worst first: a pass
# beside unsupported or not_applicable rows holds the clause (as the coverage rule, reports/views/coverage_rule.py,
# reads it), so a pass ranks above both here, unlike a matrix cell's worst outcome above; the failing
# outcomes keep the matrix's order (an error beside an xfail shows the error).
CLAUSE_ORDER = ("fail", "error", "xfail", "xpass", "pass", "unsupported", "not_applicable")
CLAUSE_RANK = {o: len(CLAUSE_ORDER) - 1 - i for i, o in enumerate(CLAUSE_ORDER)}
BY_CLAUSE_RANK = {v: k for k, v in CLAUSE_RANK.items()}
# A clause whose rows gave it only these (or that has no row) was not judged in that run.
UNJUDGED_CLAUSE = frozenset({"not_applicable"})

# The run diff sorts changes with PASSING / FAILING; flakiness compares CLASS_OF.
# Both treat fail and xfail (and pass and xpass) alike: an edit of the
# expectations file turns one into the other without the implementation changing.
PASSING = frozenset({"pass", "xpass"})
FAILING = frozenset({"fail", "xfail", "error"})
CLASS_OF = {"pass": "pass", "xpass": "pass", "fail": "fail", "xfail": "fail",
            "error": "error", "unsupported": "unsupported", "not_applicable": "not_applicable"}
# Outcomes left out of a pass rate's denominator: nothing to pass there.
NOT_JUDGED = frozenset({"unsupported", "not_applicable"})

# The verdict values (docs/verdicts.md "Verdicts"; reports/views/model.py `verdict` decides them). Every MUST
# held and a SHOULD / SHOULD NOT failed is CONFORMANT_EXCEPT_SHOULD: a SHOULD the implementation does not
# meet, never a deviation a vendor declares (those change no verdict).
CONFORMANT, CONFORMANT_EXCEPT_SHOULD = "conformant", "conformant-except-should"
INCOMPLETE, NOT_APPLICABLE, NOT_CONFORMANT = "incomplete", "not-applicable", "not-conformant"
VERDICTS = (CONFORMANT, CONFORMANT_EXCEPT_SHOULD, INCOMPLETE, NOT_APPLICABLE, NOT_CONFORMANT)
# A verdict in a grid's cell (index.html's verdict grids, the broker comparison): a word or two.
VERDICT_SHORT = {CONFORMANT: "conformant", CONFORMANT_EXCEPT_SHOULD: "except SHOULD", INCOMPLETE: "incomplete",
                 NOT_APPLICABLE: "n/a", NOT_CONFORMANT: "NOT conformant"}
# Every MUST / MUST NOT held and judged: what a certificate and `certify`'s exit 0 call conformant.
MUST_HELD = frozenset({CONFORMANT, CONFORMANT_EXCEPT_SHOULD})
