"""What the expectations files know about a report's rows, shown beside them (never changing them).

`annotate(report, expectations)` adds to the report (compliance.json, docs/reports.md):
- to each vector of a matrix cell that an active entry accounts for, `expectation`:
  {outcome, reason, link, where}. The entry is found as the gate finds it (fixtures/verdict/expectations.py):
  a fail / xfail through its vector id or this cell's clause when the row fails that clause; an
  error only through an entry saying the vector is known not to be judged (outcome: error, of its
  kind); an xpass through the deviation entry that expected it to fail (now stale);
- to each flaky vector the gate quarantines (outcome: flaky), `quarantine`: {reason, link, where}.
Verdicts, counts and worst outcomes are never touched: an entry explains a row, it does not excuse it.
"""
from __future__ import annotations

import datetime as dt
import sys

from ..paths import ROOT

try:
    from fixtures.verdict import expectations as exp_mod
except ImportError:  # run from outside the project root: the loader lives beside reports/
    sys.path.insert(0, str(ROOT))
    from fixtures.verdict import expectations as exp_mod


def _shown(e) -> dict:
    return {"outcome": e.outcome, "reason": e.reason, "link": e.link, "where": e.where}


def entry_for(expectations, impl: str, clause_id: str, vector: dict, today: dt.date):
    """The active entry that accounts for this vector's row in the cell of `clause_id`, or None."""
    outcome = vector["outcome"]
    scope = {"protocol": vector.get("protocol"), "version": vector.get("version")}   # scoped entries
    if outcome == "error":
        return exp_mod.find(expectations, impl, vector["vector_id"], [clause_id], today,
                            outcome="error", error_kind=vector.get("error_kind"), **scope)
    if outcome in ("fail", "xfail", "xpass"):
        failed_here = (vector.get("clause_outcome") or outcome) in ("fail", "xfail")
        return exp_mod.find(expectations, impl, vector["vector_id"], [clause_id] if failed_here else [], today,
                            **scope)
    return None


def annotate(report: dict, expectations, today: dt.date | None = None) -> dict:
    today = today or dt.date.today()
    if not expectations:
        return report
    for row in report["matrix"]:
        for impl, cell in row["cells"].items():
            for v in cell["vectors"]:
                e = entry_for(expectations, impl, row["clause_id"], v, today)
                if e is not None:
                    v["expectation"] = _shown(e)
    for f in report["flaky"]:
        q = exp_mod.quarantine(expectations, f["implementation"], f["vector_id"], today)
        if q is not None:
            f["quarantine"] = {k: v for k, v in _shown(q).items() if k != "outcome"}
    return report


def load(paths) -> list:
    """The entries of expectations files or folders (ExpectationsError names file, line and field)."""
    return exp_mod.load_all(paths) if paths else []
