"""Two clients (docs/reports.md): every latest row judged by two AMQP 1.0 clients, one line each, with both
clients' accounts side by side. Plain Python over the rows both engines hand over (reports/engine/aggregate.py
`witness_rows`, reports/baseline/baseline_duckdb.py): the latest rows that carry `witnesses` (docs/results.md).

The rules:
- a line is one row, as its `witnesses` recorded it: the rule is the one fixtures/links/witnesses.py
  `decide` applied when the row was made, never decided again here; `disagree` is that rule being
  `disagree` (the row is the clients', not the broker's);
- an account's observation is said from its record alone: its outcome; for a fail or an error, the step
  that decided it and the clauses it blamed (and the error's kind); for a limit, the step and what it
  met (`saw`); and the steps it could not see (`unseen`);
- lines: disagreements first, then the rules in RULE_ORDER, then by implementation, vector id, test id;
- the counts: lines per rule (every rule of fixtures/links/witnesses.py RULES named, 0 where none), and the
  clients named in the accounts, in the order they ran (first the first client).
"""
from __future__ import annotations

from fixtures.links.witnesses import RULES

# the order of the lines: where the two clients disagree, then where the second was no witness, then both saw it
RULE_ORDER = ("disagree", "second-absent", "second-limit", "both-saw")
# what each rule means, in a few words (docs/verdicts.md, "Two witnesses")
RULE_TEXT = {"disagree": "the clients disagree: the row is the clients', not the broker's",
             "second-absent": "the second client's run broke apart from the broker: the first client's verdict "
                              "stands alone",
             "second-limit": "the second client could not express the vector or see the deciding step: "
                             "the first client's verdict stands alone",
             "both-saw": "both clients saw the same: the verdict stands"}
INTRO = ("Every row of the latest runs that the second AMQP 1.0 client ran again (docs/verdicts.md, \"Two "
         "witnesses\"): the rule the row was judged by, as the row recorded it, and what each client saw, side "
         "by side. Disagreements first.")


def observed(account: dict) -> str:
    """What one client saw, from its account: "fail at step 3 (clause a, b)", "limit at step 6: …", "pass"."""
    out, step = account.get("outcome") or "?", account.get("step")
    if account.get("error_kind"):
        out += f" ({account['error_kind']})"
    if step is not None and account.get("outcome") != "pass":
        out += f" at step {step}"
    if account.get("clause_ids"):
        out += " blaming " + ", ".join(account["clause_ids"])
    if account.get("saw"):
        out += f": {account['saw']}"
    return out


def line_of(row: dict) -> dict:
    """One row judged by two clients as a line of the view."""
    w = row["witnesses"]
    accounts = [{**a, "observed": observed(a)} for a in w["accounts"]]
    return {"implementation": row["impl"], "kind": row.get("kind"), "role": row.get("role"),
            "spec": row.get("spec"), "spec_revision": row.get("spec_revision"), "vector_id": row.get("vector_id"),
            "test_id": row.get("test_id"), "outcome": row.get("outcome"), "clause_ids": list(row.get("clause_ids") or []),
            "rule": w["rule"], "disagree": w["rule"] == "disagree", "why_second": w["why_second"], "accounts": accounts}


def _rank(rule: str | None) -> int:
    return RULE_ORDER.index(rule) if rule in RULE_ORDER else len(RULE_ORDER)


def view(witness_rows: list[dict]) -> dict:
    """{counts: {rule: lines}, disagreements, clients, lines}; lines as line_of, in the order of the rules above."""
    lines = [line_of(r) for r in witness_rows if r.get("witnesses")]
    lines.sort(key=lambda ln: (not ln["disagree"], _rank(ln["rule"]), ln["implementation"], ln["vector_id"] or "",
                               ln["test_id"] or ""))
    counts = {rule: 0 for rule in RULE_ORDER + tuple(r for r in RULES if r not in RULE_ORDER)}
    for ln in lines:
        counts[ln["rule"]] = counts.get(ln["rule"], 0) + 1
    clients: list[str] = []
    for at in range(max((len(ln["accounts"]) for ln in lines), default=0)):
        for ln in lines:
            if at < len(ln["accounts"]):
                name = client_name(ln["accounts"][at]["client"])
                if name and name not in clients:
                    clients.append(name)
    return {"counts": counts, "disagreements": counts.get("disagree", 0), "clients": clients, "lines": lines}


def client_name(client: str | None) -> str:
    """The library of a client's name, without its version: `go-amqp` of `go-amqp 0.17.0 (…)`."""
    return (client or "").split(" ")[0]


def count_text(v: dict) -> str:
    """"77 row(s) judged by two clients (python-qpid-proton, go-amqp): 0 disagree, 48 second-limit, 29 both-saw"."""
    n = len(v["lines"])
    said = ", ".join(f"{c} {rule}" for rule, c in v["counts"].items() if c or rule == "disagree")
    who = f" ({', '.join(v['clients'])})" if v["clients"] else ""
    return f"{n} row(s) judged by two AMQP 1.0 clients{who}: {said}"


EMPTY = "No row of the latest runs was run again through a second AMQP 1.0 client."
