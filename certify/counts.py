"""One failure count, and how pytest's summary and junit.xml show the same rows.

The certificate counts rows by outcome (docs/results.md):
  failed        a `fail` row at MUST / MUST NOT: the implementation broke a clause it must keep;
  errors        an `error` row: the suite could not judge the vector (adapter, target, precondition);
                it makes a verdict incomplete, never not-conformant;
  short of SHOULD / MAY   a `fail` row at SHOULD, SHOULD NOT or MAY, counted apart.

pytest shows a certification's rows (no expectations file, no --strict-levels) by
fixtures/plugin/outcomes.py `_shape_pytest_report`, and junit.xml is pytest's own writer:
  failed at MUST / MUST NOT  -> failed           (junit.xml <failure>)
  error                      -> failed           (junit.xml <failure>) when the test's body raised it,
                                error            (junit.xml <error>) when a fixture's setup did;
  failed at SHOULD / MAY     -> xfailed          (junit.xml <skipped>)
  unsupported, not_applicable -> skipped         (junit.xml <skipped>)
  pass                       -> passed.
pytest's `error` means "a fixture's setup or teardown broke", and its junit writer says "failed on
setup" of every error: an error in a test's body cannot be shown as one without saying something
false. So pytest's failed + errors (junit.xml failures + errors) is always this module's
failed + errors, and the certificate says how the one splits into the other (`pytest_line`).
"""
from __future__ import annotations

from fixtures.verdict.levels import MUST_LEVELS

# What pytest shows of a row: its junit.xml element(s), None for a passed test case.
FAILED_OR_ERROR = frozenset({"failure", "error"})


def junit_elements(outcome: str, level: str | None) -> frozenset:
    """The junit.xml element a test case of this row may carry (see the module's table)."""
    if outcome == "error" or (outcome == "fail" and level in MUST_LEVELS):
        return FAILED_OR_ERROR
    if outcome in ("fail", "unsupported", "not_applicable", "xfail"):
        return frozenset({"skipped"})
    return frozenset({None})


def of(rows: list[dict]) -> dict:
    """{"failed", "errors", "short_of_should", "pytest_failed_or_errors", "rows"}: the counts the certificate
    states, each defined once in the module's table."""
    failed = sum(r["outcome"] == "fail" and r.get("level") in MUST_LEVELS for r in rows)
    errors = sum(r["outcome"] == "error" for r in rows)
    return {"rows": len(rows), "failed": failed, "errors": errors,
            "short_of_should": sum(r["outcome"] == "fail" and r.get("level") not in MUST_LEVELS for r in rows),
            "pytest_failed_or_errors": sum(junit_elements(r["outcome"], r.get("level")) == FAILED_OR_ERROR
                                           for r in rows)}


def lines(c: dict) -> list[str]:
    """CERTIFICATE.md's counts: one failure count, errors apart, and how pytest and junit.xml show them."""
    return [
        f"- **failed: {c['failed']}**: rows the implementation failed at MUST / MUST NOT",
        f"- **errors: {c['errors']}**: rows the suite could not judge; they make a verdict incomplete, never failed",
        f"- short of a SHOULD / SHOULD NOT / MAY: {c['short_of_should']} row(s); they fail no verdict",
        f"- pytest and `junit.xml` show the same rows: their failed + errors (junit.xml `failures` + `errors`) is "
        f"{c['pytest_failed_or_errors']} = {c['failed']} failed + {c['errors']} errors. pytest calls an error raised in a "
        "test's body failed (`<failure>`) and keeps error (`<error>`) for a fixture's setup breaking; a SHOULD / MAY "
        "failure shows as xfailed, not_applicable and unsupported as skipped (certify/counts.py)",
    ]
