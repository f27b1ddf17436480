"""`audit`: rows of a run that contradict each other or rest on a reason the record does not give.

Each invariant is one pure function over the rows (with the vectors and the clause registry the
rows name, and the facts each target states): it returns the breaches it finds, each naming the
rows (FILE:LINE, implementation, protocol, vector) and the rule broken. The rules kept:

- one-outcome-per-key: one key (reports/rows/conflicts.py: run, vector, implementation, protocol) has one
  outcome; two rows of one key that disagree leave the verdict to line order, which decides nothing.
- not-offered-not-failed: an optional feature an implementation's own rows declare not offered (a
  row `unsupported` on the MAY clause that makes it optional, or `not_applicable` because the
  feature of its `optional_feature` is not offered) is not failed by another row of that
  implementation over that protocol: no row whose vector binds only where that feature is offered
  fails or xfails a clause.
- offered-or-not: no feature both offered (a row passes the MAY clause that makes it optional)
  and declared not offered by the rows of one implementation over one protocol. Only features some
  vector binds on (its `optional_feature`) are said offered or not by rows.
- reason-given: an `error` row names an error kind and says what broke (the run's own observation,
  which a rerun against the endpoint compares); a `not_applicable` row's reason is one the record
  gives: the text does not describe the implementation (`applies_to`, for its kind, product and
  version), a fact the vector requires that the target states otherwise or does not state (its
  stated facts, else the catalog's), the vector's `optional_feature` not offered, or the
  implementation's own statement that it lacks what the vector needs (a codec's handshake; a
  target's protocols, where the vector speaks the one said and the row's provenance does not
  offer it). Another form, a fact not required, or a requirement the stated fact meets: refused.
- product-credit: a product's row (role `product`) never passes on a header value mqconform's
  mapping set (`set_by` `mapping`): the value is ours, not the product's.
- one-fact-per-broker (audit_facts.py): one broker fact gets one verdict over every protocol.
- recomputed: an OpenMessaging row whose record is beside the results (`<results>.openmessaging-
  observations.jsonl`) has the outcome, clause outcomes and profile cells (profile.py `of_row`) the
  judge (fixtures/openmessaging/checks.py) gives it again, with no broker (xfail / xpass as fail / pass);
  a message not carried (om-not-carried: a refused send, a lost message) too.

Run: `./mqconform audit RESULTS...` (exit 0: none broken; 1: breaches, named; 2: unreadable input).
The main job runs it before the gate, `certify` on its rows, `verify` on a bundle's.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from ..paths import ROOT
from ..rows import conflicts, validate
from .audit_facts import one_fact_per_broker
from .audit_model import FAILED, Breach, Context, Row

EXIT_OK, EXIT_BREACH, EXIT_USAGE = 0, 1, 2


def one_outcome_per_key(rows: list[Row], ctx: Context) -> list[Breach]:
    """The gate's and the build's rule (reports/rows/conflicts.py, its key), said as breaches."""
    by_key: dict[tuple, list[Row]] = defaultdict(list)
    for r in rows:
        by_key[conflicts.key(r.rec)].append(r)
    return [Breach("one-outcome-per-key", tuple(r.shown() for r in group),
                   f"one key ({conflicts.describe(k)}) with outcomes {', '.join(sorted({r.rec['outcome'] for r in group}))}")
            for k, group in by_key.items() if len({r.rec["outcome"] for r in group}) > 1]


def _by_implementation(rows: list[Row]) -> dict[tuple, list[Row]]:
    groups: dict[tuple, list[Row]] = defaultdict(list)
    for r in rows:
        groups[(r.rec["run_id"], r.impl, r.rec.get("protocol"))].append(r)
    return groups


def _not_offered_by(r: Row, ctx: Context) -> str | None:
    """The optional feature (the id of the clause making it optional) this row declares not offered."""
    v = ctx.vectors.get(r.rec["vector_id"])
    if v is None:
        return None
    if r.rec["outcome"] == "not_applicable" and v.optional_feature \
            and r.rec.get("message", "").startswith(f"binds only where the optional feature of {v.optional_feature}"):
        return v.optional_feature
    if r.rec["outcome"] == "unsupported":
        may = [c for c in v.clauses if _level(ctx, c) == "MAY" and c in ctx.features]
        return may[0] if len(may) == 1 else None
    return None


def _offered_by(r: Row, ctx: Context) -> str | None:
    """The optional feature this row shows offered: it passes the one MAY clause its vector cites."""
    v = ctx.vectors.get(r.rec["vector_id"])
    if v is None or r.rec["outcome"] not in ("pass", "xpass"):
        return None
    may = [c for c in v.clauses if _level(ctx, c) == "MAY" and c in ctx.features]
    return may[0] if len(may) == 1 and (r.rec.get("clause_outcomes") or {}).get(may[0], "pass") == "pass" else None


def _level(ctx: Context, clause: str) -> str | None:
    c = ctx.registry.clauses.get(clause)
    return c.level if c is not None else None


def _first_per_feature(group: list[Row], says, ctx: Context) -> dict[str, Row]:
    """Feature -> the first row of `group` of which `says` (_offered_by or _not_offered_by) names it."""
    out: dict[str, Row] = {}
    for r in group:
        feature = says(r, ctx)
        if feature is not None:
            out.setdefault(feature, r)
    return out


def not_offered_not_failed(rows: list[Row], ctx: Context) -> list[Breach]:
    out = []
    for group in _by_implementation(rows).values():
        declared = _first_per_feature(group, _not_offered_by, ctx)
        for r in group:
            v = ctx.vectors.get(r.rec["vector_id"])
            feature = getattr(v, "optional_feature", None)
            failed = [c for c, o in (r.rec.get("clause_outcomes") or {}).items() if o in FAILED]
            if feature in declared and (failed or r.rec["outcome"] in FAILED):
                out.append(Breach("not-offered-not-failed", (declared[feature].shown(), r.shown()),
                                  f"{feature} is declared not offered by the first row, and the second, which binds "
                                  f"only where it is offered, fails {', '.join(failed) or r.rec['outcome']}"))
    return out


def offered_or_not(rows: list[Row], ctx: Context) -> list[Breach]:
    out = []
    for group in _by_implementation(rows).values():
        offered = _first_per_feature(group, _offered_by, ctx)
        for r in group:
            feature = _not_offered_by(r, ctx)
            if feature in offered:
                out.append(Breach("offered-or-not", (offered[feature].shown(), r.shown()),
                                  f"{feature}: the first row shows it offered, the second declares it not offered"))
    return out


MADE_USERS = "needs a user with chosen permissions; "   # a vector's users the suite may not or cannot make
# Forms of a reason that is the implementation's own statement of what it does not offer; the
# statement is its own (a codec's handshake list, the target's protocols), quoted in the message.
# A target's own protocols (its provenance `protocols`, an endpoint's given or probed) lacking the vector's.
NOT_OFFERED = re.compile(r"\S+ does not offer (.+?), which this vector speaks ")
OWN_STATEMENTS = ("the codec does not offer ", " does not offer this content mode", " refused ", " does not offer ")


def _facts(r: Row, ctx: Context) -> dict:
    """The facts the row's target states: an endpoint's `stated_<fact>`, else the catalog's."""
    prov = r.rec["implementation"].get("provenance") or {}
    endpoint = bool(prov.get("endpoint"))
    target = prov.get("broker") or r.impl
    # fixtures/kinds/amqp10_links.py target_facts: the product, whether the configuration is the
    # default one (a catalog target, not a variant or an endpoint), then the stated facts.
    facts = {"product": _product(r)[0], "config_default": not endpoint and "+" not in target}
    if endpoint:
        facts.update({k[len("stated_"):]: v for k, v in prov.items() if k.startswith("stated_")})
    else:
        facts.update(ctx.catalog_facts.get(target, {}))
    return facts


def _product(r: Row) -> tuple[str | None, str | None, str | None]:
    """(product, version, kind) a row's implementation is described as: a provider by its broker."""
    impl = r.rec["implementation"]
    prov = impl.get("provenance") or {}
    if impl.get("kind") == "provider":
        return prov.get("broker_product"), prov.get("broker_version"), "broker"
    return prov.get("product") or prov.get("server_product"), impl.get("version"), impl.get("kind")


def _described(r: Row, v, ctx: Context) -> str | None:
    """Why the text does not describe this row's implementation (None: it does)."""
    from fixtures.verdict.applicability import why_not

    product, version, kind = _product(r)
    applies = ctx.registry.clauses[v.clauses[0]].applies_to
    return why_not(applies, product, version, kind) if applies else None


def reason_given(rows: list[Row], ctx: Context) -> list[Breach]:
    from fixtures.verdict.outcomes import ERROR_KINDS

    out = []
    for r in rows:
        if r.rec["outcome"] == "error":
            # what broke is the run's observation, not recomputable here: a rerun compares it (certify/rerun.py);
            # the record must still name one of the kinds and say what broke
            kind, said = r.rec.get("error_kind"), (r.rec.get("message") or "").strip()
            if kind not in ERROR_KINDS or not said:
                out.append(Breach("reason-given", (r.shown(),), f"an error of kind {kind!r} ({'a message' if said else 'no message'}): "
                                  f"a row not judged names one of {', '.join(ERROR_KINDS)} and says what broke"))
            continue
        if r.rec["outcome"] != "not_applicable":
            continue
        v = ctx.vectors.get(r.rec["vector_id"])
        if v is None:
            continue                           # the trust check refuses a vector the registry does not know
        message = r.rec.get("message") or ""
        why = _reason_refused(r, v, message, ctx)
        if why is not None:
            out.append(Breach("reason-given", (r.shown(),), why))
    return out


def _reason_refused(r: Row, v, message: str, ctx: Context) -> str | None:
    if message.startswith(MADE_USERS):          # fixtures/kinds/made_users.py refusal_to_make
        if not v.input.get("users"):
            return f"the reason says it needs users made with chosen permissions, and {v.id} makes none"
        endpoint = bool((r.rec["implementation"].get("provenance") or {}).get("endpoint"))
        if " is an endpoint " in message and not endpoint:
            return f"the reason says {r.impl} is an endpoint, and its row names no endpoint"
        return None
    if message.startswith("needs "):
        key, _, rest = message[len("needs "):].partition("=")
        required = v.input.get("requires") if isinstance(v.input.get("requires"), dict) else {}
        if key not in required:
            return f"the reason names the fact {key}, which {v.id} does not require ({v.file.name}:{v.line})"
        have = _facts(r, ctx).get(key)
        if have is not None and str(have).lower() == str(required[key]).lower():
            return f"the reason says {key} is not {required[key]!r}, and the target states {key}={have!r}"
        return None
    if message.startswith("binds only where the optional feature of "):
        if v.optional_feature and message.startswith(f"binds only where the optional feature of {v.optional_feature}"):
            return None
        return f"the reason names an optional feature {v.id} does not declare (its optional_feature: " \
               f"{v.optional_feature})"
    if message.startswith("the text describes "):
        return None if _described(r, v, ctx) else \
            f"the reason says the text does not describe {r.impl}, and its clauses' applies_to does"
    if (m := NOT_OFFERED.match(message)) is not None:   # fixtures/plugin/targets.py `broker`
        offered = (r.rec["implementation"].get("provenance") or {}).get("protocols")
        lacking = {p.strip() for p in m.group(1).split(",")}
        speaks = v.input.get("protocol")
        if speaks is not None and speaks not in lacking:
            return f"the reason says the target lacks {m.group(1)}, and {v.id} speaks {speaks}"
        if offered is not None and lacking & set(offered.split(",")):
            return f"the reason says the target lacks {m.group(1)}, and its row's provenance says it offers {offered}"
        return None
    if any(form in message for form in OWN_STATEMENTS):
        return None
    return f"a reason of no form the record gives: {message[:160]!r}"


def product_credit(rows: list[Row], ctx: Context) -> list[Breach]:
    out = []
    for r in rows:
        impl = r.rec["implementation"]
        if impl.get("role") != "product" or r.rec["outcome"] not in ("pass", "xpass"):
            continue
        ours = sorted(h for h, who in (r.rec.get("set_by") or {}).items() if "mapping" in who.split("/"))
        if ours:
            out.append(Breach("product-credit", (r.shown(),),
                              f"a product's pass on {', '.join(ours)}, set by mqconform's mapping"))
    return out


def _field_of(record: dict):
    """The suite's mapping for the record's protocol: a provider's (fixtures/provision/providers.yaml
    over the base mapping) or the base mapping; `field_of(header)` as the binding's header_field."""
    from fixtures.openmessaging.mapping import default_mapping
    from fixtures.openmessaging.protocols import PROVIDER_PREFIX

    protocol = record["protocol"]
    if protocol.startswith(PROVIDER_PREFIX):
        from fixtures.openmessaging.process_binding import provider_mapping
        from fixtures.process.providers import by_key
        mapping = provider_mapping(by_key(protocol))
    else:
        mapping = default_mapping()
    return lambda name: mapping.header(name, protocol)


SAME = {"xfail": "fail", "xpass": "pass"}      # what the expectations made of a row is not the judge's


def rejudged(rec: dict, record: dict, ctx: Context):
    """The verdict (fixtures/verdict/verdicts.py) of an OpenMessaging row judged again from its record
    (fixtures/openmessaging/checks.py), with no broker."""
    from fixtures.openmessaging.checks import NOT_CARRIED_KIND, judge_message, judge_not_carried, judge_scenario
    from fixtures.openmessaging.observation import SCENARIO_KIND
    from fixtures.verdict.verdicts import decide

    vector = ctx.vectors[rec["vector_id"]]
    judge = {SCENARIO_KIND: judge_scenario, NOT_CARRIED_KIND: judge_not_carried}.get(record.get("kind"), judge_message)
    try:
        found, exc = judge(vector, record, _field_of(record), ctx.registry).findings, None
    except Exception as err:  # noqa: BLE001 - what the judge raises decides the row, as in the run
        found, exc = None, err
    return decide(vector, ctx.registry, exc, found)


RECORD_KINDS = ("om-message", "om-scenario", "om-not-carried")     # fixtures/openmessaging/observation.py, checks.py


def recomputed(rows: list[Row], ctx: Context) -> list[Breach]:
    out = []
    for r in rows:
        record = ctx.observations.get((r.rec["run_id"], r.rec.get("test_id")))
        if record is None or record.get("kind") not in RECORD_KINDS or not record.get("complete") \
                or r.rec["vector_id"] not in ctx.vectors:
            continue
        verdict = rejudged(r.rec, record, ctx)
        witnessed = r.rec.get("witnesses") or {}
        if witnessed.get("rule") == "disagree":   # the two-witness rule's row: the record is the first client's
            if verdict.outcome != witnessed["accounts"][0]["outcome"]:
                out.append(Breach("recomputed", (r.shown(),), f"judged again from its recorded observation: "
                                  f"{verdict.outcome}, the first client's account says {witnessed['accounts'][0]['outcome']}"))
            continue
        have = SAME.get(r.rec["outcome"], r.rec["outcome"])
        clauses = {c: SAME.get(o, o) for c, o in (r.rec.get("clause_outcomes") or {}).items()}
        if verdict.outcome != have or verdict.clause_outcomes != clauses:
            out.append(Breach("recomputed", (r.shown(),),
                              f"judged again from its recorded observation: {verdict.outcome} "
                              f"{verdict.clause_outcomes}, the row says {have} {clauses}"))
        elif verdict.profile != (said := r.rec.get("profile") or {}):
            cells = sorted(k for k in set(verdict.profile) | set(said) if verdict.profile.get(k) != said.get(k))
            out.append(Breach("recomputed", (r.shown(),),
                              f"its profile cells {', '.join(cells)} are not what its recorded observation gives"))
    return out


INVARIANTS = (one_outcome_per_key, not_offered_not_failed, offered_or_not, reason_given, product_credit, recomputed,
              one_fact_per_broker)
__all__ = ["Breach", "Context", "Row", "INVARIANTS", "audit", "run", "main", "rejudged", "recomputed"]


def audit(rows: list[Row], ctx: Context) -> list[Breach]:
    return [b for inv in INVARIANTS for b in inv(rows, ctx)]


# ---- input and command -------------------------------------------------------------------------

def read_rows(paths) -> tuple[list[Row], validate.Problems]:
    rows: list[Row] = []
    problems = validate.Problems()
    for path in paths:
        p = Path(path)
        try:
            lines = p.read_text(encoding="utf-8").splitlines(keepends=True)
        except OSError as exc:
            problems.add(str(p), None, f"cannot read: {exc.strerror or exc}")
            continue
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            rec, why = validate.line_problem(line)
            if why is not None:
                if n == len(lines) and not line.endswith("\n"):
                    continue                   # a torn last line: what a killed writer leaves
                problems.add(str(p), n, why)
            else:
                rows.append(Row(rec, f"{p}:{n}"))
    return rows, problems


OBSERVATIONS = ".openmessaging-observations.jsonl"    # beside a results file (suites/openmessaging/conftest.py)


def read_observations(results: Path) -> dict:
    """(run_id, test_id) -> record, from the sidecar beside a results file ({} when it has none)."""
    side = results.with_name(results.name + OBSERVATIONS)
    out: dict = {}
    if side.is_file():
        for n, line in enumerate(side.read_text(encoding="utf-8").splitlines(), 1):
            try:
                d = json.loads(line)
                out[(d["run_id"], d["test_id"])] = d["observation"]
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{side}:{n}: not an observation line ({exc})") from None
    return out


def breaches_of(records: list[dict], where: str, ctx: Context | None = None, observations: dict | None = None) -> list[str]:
    """The breaches among already-read records (a bundle's rows, in file order), each as text."""
    rows = [Row(rec, f"{where}:{n}") for n, rec in enumerate(records, 1)]
    ctx = ctx or context()
    ctx.observations = dict(observations or {})
    return [b.shown().rstrip() for b in audit(rows, ctx)]


def context(vectors_dir: Path | None = None) -> Context:
    from fixtures.provision import load_catalog
    from fixtures.run.targets import catalog_targets
    from fixtures.vectordata.vectors import load_vectors

    vs = load_vectors(vectors_dir or ROOT / "vectors")
    facts = {t.name: dict(t.facts) for t in catalog_targets(load_catalog())}
    return Context({v.id: v for v in vs.vectors}, vs.registry, facts)


def run(paths, out=sys.stdout, err=sys.stderr, ctx: Context | None = None) -> int:
    rows, problems = read_rows(paths)
    if problems.errors:
        problems.say("audit", err)
        return EXIT_USAGE
    ctx = ctx or context()
    try:
        for p in paths:
            ctx.observations.update(read_observations(Path(p)))
    except ValueError as exc:
        print(f"audit: {exc}", file=err)
        return EXIT_USAGE
    breaches = audit(rows, ctx)
    for b in breaches:
        out.write(b.shown())
    by = defaultdict(int)
    for b in breaches:
        by[b.invariant] += 1
    counts = ", ".join(f"{n} {k}" for k, n in sorted(by.items()))
    out.write(f"audit: {len(rows)} rows, {len(INVARIANTS)} invariants: "
              + (f"{len(breaches)} breach(es) ({counts})\n" if breaches else "no breach\n"))
    return EXIT_BREACH if breaches else EXIT_OK


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="./mqconform audit", description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", help="results files (JSON Lines, results.jsonl)")
    args = ap.parse_args(argv)
    return run(args.results)


if __name__ == "__main__":
    sys.exit(main())
