"""The same aggregation as reports/engine/aggregate.py, single-process in DuckDB.

Only for `reports bench`: it gives Spark a yardstick, and because both feed
reports/views/model.py, the bench also checks that both engines agree. Two entries:
`build` (result files in, as a full `reports build`) and `build_from_store` (the
report of a Delta store `reports build` wrote, read through its logs, warm or cold:
`from_store`). The SQL is shared: `records_view` (the records read), `cold_runs` and
`cold_flaky` (from every record), `latest_aggregates` (the latest runs).
"""
from __future__ import annotations

from fixtures.verdict import row

from ..rows.outcomes import BY_SEVERITY, CLASS_OF, OUTCOME_ORDER, OUTCOMES, SEVERITY
from ..rows.record import tally_of, witnesses_of
from ..views.coverage_rule import BROKEN
from ..views.model import Aggregates, latest_two


def _case(column: str, mapping: dict) -> str:
    def lit(v):
        return f"'{v}'" if isinstance(v, str) else str(v)
    return "CASE " + " ".join(f"WHEN {column} = {lit(k)} THEN {lit(v)}" for k, v in mapping.items()) + " END"


_COUNTS = ", ".join(f"sum(CASE WHEN outcome = '{o}' THEN 1 ELSE 0 END) AS n_{o}" for o in OUTCOME_ORDER)


def _counts(row: dict) -> dict:
    return {o: int(row[f"n_{o}"]) for o in OUTCOME_ORDER if row[f"n_{o}"]}


def _dicts(cur) -> list[dict]:
    names = [c[0] for c in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def duck_type(t) -> str:
    """The DuckDB type of a record type (fixtures/verdict/row.py)."""
    if isinstance(t, str):
        return {"string": "VARCHAR", "int": "INTEGER", "double": "DOUBLE"}[t]
    if t[0] == "array":
        return f"{duck_type(t[1])}[]"
    if t[0] == "map":
        return f"MAP({duck_type(t[1])}, {duck_type(t[2])})"
    return "STRUCT(" + ", ".join(f"{n} {duck_type(ft)}" for n, ft in t[1]) + ")"


def _source(files: str | list[str]) -> str:
    """read_parquet's first argument: a glob, or a list of files (a Delta table's current ones)."""
    def q(f):
        return "'" + f.replace("'", "''") + "'"
    return q(files) if isinstance(files, str) else "[" + ", ".join(q(f) for f in files) + "]"


def _schema5(con, source: str) -> tuple[str, str, str, str]:
    """(role, profile, tally, witnesses) as SQL over read_parquet's columns, read as schema 5
    (fixtures/verdict/row.py): a file written before schema 3 has no implementation.role (product, except
    mqconform's reference codecs and mappings: fixtures/verdict/records.py `role_of`) and no profile (an empty
    map); before schema 4, no tally (null); before schema 5, no witnesses (null)."""
    types = {r[0]: r[1] for r in con.execute(
        f"DESCRIBE SELECT * FROM read_parquet({source}, union_by_name = true)").fetchall()}
    refs = ", ".join(f"'{n}'" for n in sorted(row.reference_names()))
    guessed = (f"CASE WHEN implementation.name IN ({refs}) OR starts_with(implementation.name, "
               f"'{row.REFERENCE_PROVIDER_PREFIX}') THEN 'reference' ELSE 'product' END")
    roles = ", ".join(f"'{r}'" for r in row.ROLES)
    role = (f"CASE WHEN implementation.role IN ({roles}) THEN implementation.role ELSE {guessed} END"
            if "role VARCHAR" in types.get("implementation", "") else guessed)
    profile = "profile" if "profile" in types else f"NULL::{duck_type(row.PROFILE)}"
    tally = "tally" if "tally" in types else f"NULL::{duck_type(row.TALLY)}"
    witnesses = "witnesses" if "witnesses" in types else f"NULL::{duck_type(row.WITNESSES)}"
    return role, profile, tally, witnesses


def compute(con, parquet_glob: str) -> Aggregates:
    """All aggregates of the records in `parquet_glob`: the cold read (runs and flakiness from every record)."""
    return _cold(con, parquet_glob)


def _cold(con, files: str | list[str]) -> Aggregates:
    records_view(con, files)
    agg = Aggregates(runs=cold_runs(con))
    if agg.runs:
        latest_aggregates(con, agg)
        agg.flaky = cold_flaky(con)
    return agg


def records_view(con, files: str | list[str]) -> None:
    """View `d`: the valid records of `files` in the columns the aggregates use (reports/engine/aggregate.py project)."""
    source = _source(files)
    outcomes = ", ".join(f"'{o}'" for o in sorted(OUTCOMES))
    role, profile, tally, witnesses = _schema5(con, source)
    con.execute(f"""
        CREATE OR REPLACE TEMP VIEW d AS
        SELECT implementation.name AS impl, implementation.kind AS kind, implementation.version AS version,
               {role} AS role, implementation.provenance AS provenance, {profile} AS profile, {tally} AS tally,
               {witnesses} AS witnesses,
               run_id, run_started, epoch_us(ts) AS run_us, vectors_digest, suite_version, spec, spec_revision,
               coalesce(clause_ids, []::VARCHAR[]) AS clause_ids, level, vector_id, test_id, outcome,
               expected_outcome, message, clause_outcomes, failed_step, error_kind, notes, set_by, protocol,
               {_case('outcome', SEVERITY)} AS sev
        FROM (SELECT *, try_cast(run_started AS TIMESTAMPTZ) AS ts
              FROM read_parquet({source}, union_by_name = true))
        WHERE ts IS NOT NULL AND run_id IS NOT NULL AND implementation.name IS NOT NULL
          AND vector_id IS NOT NULL AND spec IS NOT NULL AND outcome IN ({outcomes})""")


def _run_row(r: dict) -> dict:
    return {"impl": r["impl"], "run_id": r["run_id"], "run_started": r["run_started"], "run_us": r["run_us"],
            "kind": r["kind"], "version": r["version"], "vectors_digest": r["vectors_digest"],
            "suite_version": r["suite_version"], "counts": _counts(r)}


def cold_runs(con) -> list[dict]:
    """Run counts of every record of `d` (reports/engine/aggregate.py run_counts)."""
    return [_run_row(r) for r in _dicts(con.execute(f"""
            SELECT impl, run_id, min(run_us) AS run_us, min(run_started) AS run_started, min(kind) AS kind,
                   min(version) AS version, min(vectors_digest) AS vectors_digest,
                   min(suite_version) AS suite_version, {_COUNTS}
            FROM d GROUP BY impl, run_id"""))]


def latest_aggregates(con, agg: Aggregates) -> None:
    """The aggregates of the latest two runs of each implementation (agg.runs), from the records of
    view `d`, which must hold those runs' records (all records, or the date partitions of those runs)."""
    runs = agg.runs
    newest = latest_two(runs)
    keys = [(impl, rs[0]["run_id"], 1) for impl, rs in newest.items()]
    keys += [(impl, rs[1]["run_id"], 0) for impl, rs in newest.items() if len(rs) > 1]
    con.execute("CREATE OR REPLACE TEMP TABLE keys (impl VARCHAR, run_id VARCHAR, which INTEGER)")
    con.executemany("INSERT INTO keys VALUES (?, ?, ?)", keys)
    con.execute("""CREATE OR REPLACE TEMP TABLE latest AS
                   SELECT d.* FROM d JOIN keys USING (impl, run_id) WHERE which = 1""")
    # A clause's own outcome in each record (reports/engine/aggregate.py clause_rows): the record's
    # clause_outcomes, or for a schema version 1 record the record's outcome for every clause.
    clause_sev = _case("c.value", SEVERITY)
    clause_counts = ", ".join(f"sum(CASE WHEN c.value = '{o}' THEN 1 ELSE 0 END) AS n_{o}" for o in OUTCOME_ORDER)
    agg.cells = [
        {"spec": r["spec"], "spec_revision": r["spec_revision"], "clause_id": r["clause_id"], "impl": r["impl"],
         "worst": BY_SEVERITY[r["worst"]], "counts": _counts(r),
         "levels": sorted(x for x in r["levels"] if x is not None),
         "vectors": [{**v, "notes": list(v["notes"] or [])} for v in r["vectors"]]}
        for r in _dicts(con.execute(f"""
            SELECT spec, spec_revision, c.key AS clause_id, impl, max({clause_sev}) AS worst,
                   list(DISTINCT level) AS levels,
                   list({{'vector_id': vector_id, 'test_id': test_id, 'level': level, 'outcome': outcome,
                          'clause_outcome': c.value, 'expected_outcome': expected_outcome, 'message': message,
                          'failed_step': failed_step, 'error_kind': error_kind, 'notes': notes,
                          'protocol': protocol, 'version': version}}) AS vectors,
                   {clause_counts}
            FROM (SELECT *, unnest(CASE WHEN clause_outcomes IS NOT NULL THEN map_entries(clause_outcomes)
                                        ELSE list_transform(clause_ids, lambda x: {{'key': x, 'value': outcome}}) END) AS c
                  FROM latest)
            GROUP BY spec, spec_revision, c.key, impl"""))
    ]
    # reports/engine/aggregate.py clause_failures: per clause some latest row fails, each implementation of it
    broken = ", ".join(f"'{o}'" for o in sorted(BROKEN))
    agg.clause_failures = [
        {"spec": r["spec"], "spec_revision": r["spec_revision"], "clause_id": r["clause_id"], "impl": r["impl"],
         "role": r["role"], "kind": r["kind"], "counts": _counts(r),
         "levels": sorted(x for x in r["levels"] if x is not None), "vectors": list(r["vectors"] or [])}
        for r in _dicts(con.execute(f"""
            SELECT * EXCLUDE (n_broken) FROM (
                SELECT spec, spec_revision, c.key AS clause_id, impl, any_value(role) AS role, any_value(kind) AS kind,
                       list(DISTINCT level) AS levels,
                       list({{'vector_id': vector_id, 'test_id': test_id, 'outcome': outcome, 'clause_outcome': c.value,
                              'expected_outcome': expected_outcome, 'message': message, 'failed_step': failed_step,
                              'error_kind': error_kind}}) FILTER (WHERE c.value IN ({broken})) AS vectors,
                       sum(CASE WHEN c.value IN ({broken}) THEN 1 ELSE 0 END) AS n_broken, {clause_counts}
                FROM (SELECT *, unnest(CASE WHEN clause_outcomes IS NOT NULL THEN map_entries(clause_outcomes)
                                            ELSE list_transform(clause_ids, lambda x: {{'key': x, 'value': outcome}}) END) AS c
                      FROM latest)
                GROUP BY spec, spec_revision, c.key, impl)
            QUALIFY max(n_broken) OVER (PARTITION BY spec, spec_revision, clause_id) > 0"""))
    ]
    agg.header_sources = [
        {"impl": r["impl"], "header": r["header"], "sources": sorted(r["sources"])}
        for r in _dicts(con.execute("""
            SELECT impl, e.key AS header, list(DISTINCT e.value) AS sources
            FROM (SELECT impl, unnest(map_entries(set_by)) AS e FROM latest WHERE set_by IS NOT NULL)
            GROUP BY impl, e.key"""))
    ]
    agg.identities = [
        {"impl": r["impl"], "implementation": {"name": r["impl"], "kind": r["kind"], "version": r["version"],
                                               "role": r["role"], "provenance": dict(r["provenance"] or {})}}
        for r in _dicts(con.execute("""
            SELECT impl, any_value(kind) AS kind, any_value(version) AS version, any_value(role) AS role,
                   any_value(provenance) AS provenance FROM latest GROUP BY impl"""))
    ]
    # reports/engine/aggregate.py profile_rows: per (broker, protocol, requirement, status, role), the rows and the first's evidence
    agg.profile_rows = [
        {"broker": r["broker"], "protocol": r["protocol"], "requirement": r["requirement"], "status": r["status"],
         "n": int(r["n"]), **r["first"]}
        for r in _dicts(con.execute("""
            SELECT broker, protocol, requirement, status, count(*) AS n,
                   min({'impl': impl, 'vector_id': vector_id, 'role': role, 'evidence': evidence}) AS first
            FROM (SELECT impl, role, vector_id, provenance['broker'] AS broker, provenance['protocol'] AS protocol,
                         e.key AS requirement, e.value.status AS status, e.value.evidence AS evidence
                  FROM (SELECT *, unnest(map_entries(profile)) AS e FROM latest
                        WHERE kind = 'provider' AND profile IS NOT NULL))
            GROUP BY broker, protocol, requirement, status, role"""))
    ]
    # reports/engine/aggregate.py fault_rows: the latest rows that carry a tally (fault vectors)
    agg.fault_rows = [
        {**r, "tally": tally_of(r)}
        for r in _dicts(con.execute("""
            SELECT impl, kind, role, provenance['broker'] AS broker, protocol, vector_id, test_id, outcome,
                   expected_outcome, message, tally
            FROM latest WHERE tally IS NOT NULL"""))
    ]
    # reports/engine/aggregate.py witness_rows: the latest rows the second AMQP 1.0 client ran again
    agg.witness_rows = [
        {**r, "clause_ids": list(r["clause_ids"] or []), "witnesses": witnesses_of(r)}
        for r in _dicts(con.execute("""
            SELECT impl, kind, role, spec, spec_revision, vector_id, test_id, outcome, clause_ids, witnesses
            FROM latest WHERE witnesses IS NOT NULL"""))
    ]
    agg.level_counts = [
        {**r, "n": int(r["n"])} for r in _dicts(con.execute("""
            SELECT impl, spec, spec_revision, level, outcome, count(*) AS n FROM latest
            GROUP BY impl, spec, spec_revision, level, outcome"""))
    ]
    with_prev = sorted(impl for impl, rs in newest.items() if len(rs) > 1)
    if with_prev:
        agg.diff = [
            {"impl": r["impl"], "vector_id": r["vector_id"],
             "before": BY_SEVERITY.get(r["before"]), "after": BY_SEVERITY.get(r["after"])}
            for r in _dicts(con.execute("""
                SELECT impl, vector_id, max(CASE WHEN which = 0 THEN sev END) AS before,
                       max(CASE WHEN which = 1 THEN sev END) AS after
                FROM d JOIN keys USING (impl, run_id)
                WHERE impl IN (SELECT impl FROM keys WHERE which = 0)
                GROUP BY impl, vector_id HAVING before IS DISTINCT FROM after"""))
        ]


def cold_flaky(con) -> list[dict]:
    """The flaky vectors of every record of `d` (reports/engine/aggregate.py per_run_vectors and fold_flaky)."""
    cls = _case("sev", {s: CLASS_OF[o] for o, s in SEVERITY.items()})
    return [
        {"impl": r["impl"], "vector_id": r["vector_id"], "pairs": int(r["pairs"]), "changes": int(r["changes"])}
        for r in _dicts(con.execute(f"""
            WITH per_run AS (
                SELECT impl, vector_id, run_id, max(sev) AS sev, min(run_us) AS run_us,
                       min(version) AS version, min(vectors_digest) AS digest
                FROM d GROUP BY impl, vector_id, run_id),
            w AS (
                SELECT {cls} AS cls, version, digest, impl, vector_id,
                       lag({cls}) OVER win AS pcls, lag(version) OVER win AS pver, lag(digest) OVER win AS pdig
                FROM per_run WINDOW win AS (PARTITION BY impl, vector_id ORDER BY run_us, run_id)),
            s AS (
                SELECT impl, vector_id,
                       (pcls IS NOT NULL AND version IS NOT DISTINCT FROM pver
                        AND digest IS NOT DISTINCT FROM pdig) AS same, cls <> pcls AS diff
                FROM w)
            SELECT impl, vector_id, sum(CASE WHEN same THEN 1 ELSE 0 END) AS pairs,
                   sum(CASE WHEN same AND diff THEN 1 ELSE 0 END) AS changes
            FROM s GROUP BY impl, vector_id HAVING changes > 0"""))
    ]


class StoreError(Exception):
    """No store, or (warm) no state tables at the records' current version: the message says which."""


def from_store(con, store: str, warm: bool) -> tuple[Aggregates, int]:
    """The aggregates of a Delta store as it stands (reports/engine/store.py), read through its logs
    (reports/baseline/delta_files.py); returns them and the records version.

    warm: run counts and flakiness from the state tables `runs` and `flaky`, which must reflect the
    records' current version, and the records of the date partitions of the latest two runs of
    each implementation only (what `reports build --from-store` reads).
    cold: everything from every record (the state tables are not read)."""
    from ..engine.store import FLAKY, PARTITION, RECORDS, RUNS, path
    from . import delta_files

    records = delta_files.snapshot(path(store, RECORDS))
    if records is None:
        raise StoreError(f"no store at {store} (no Delta table {path(store, RECORDS)})")
    if not records.files:
        return Aggregates(runs=[]), records.version
    if not warm:
        return _cold(con, records.paths), records.version
    state = {}
    for table in (RUNS, FLAKY):
        snap = delta_files.snapshot(path(store, table))
        at = delta_files.records_version(snap) if snap is not None else None
        if at != records.version:
            raise StoreError(f"the state table {path(store, table)} reflects records version {at}, the records are at "
                             f"{records.version}: a warm read needs the state `reports build --from-store` leaves")
        state[table] = snap
    runs = [_run_row(r) | {"date": str(r["date"])} for r in _dicts(con.execute(
        f"SELECT * FROM read_parquet({_source(state[RUNS].paths)})"))] if state[RUNS].files else []
    agg = Aggregates(runs=[{k: v for k, v in r.items() if k != "date"} for r in runs])
    if agg.runs:
        newest = latest_two(runs)
        dates = {r["date"] for rs in newest.values() for r in rs}
        records_view(con, records.where(PARTITION, dates))
        latest_aggregates(con, agg)
    agg.flaky = [
        {"impl": r["impl"], "vector_id": r["vector_id"], "pairs": int(r["pairs"]), "changes": int(r["changes"])}
        for r in _dicts(con.execute(f"""SELECT impl, vector_id, pairs, changes
                                         FROM read_parquet({_source(state[FLAKY].paths)}) WHERE changes > 0"""))
    ] if state[FLAKY].files else []
    return agg, records.version


def _connect(memory_limit: str | None, spill: str):
    import duckdb

    con = duckdb.connect()
    if memory_limit:
        con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute(f"SET temp_directory = '{spill}'")
    return con


def build_from_store(store: str, out: str, warm: bool, memory_limit: str | None = None) -> dict:
    """The report of a Delta store as it stands (from_store), written to OUT as `reports build` does."""
    from pathlib import Path

    from ..render.outputs import write_outputs
    from ..views import model, profile

    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    con = _connect(memory_limit, str(out_dir / ".duckdb-tmp"))
    try:
        agg, _ = from_store(con, store, warm)
    finally:
        con.close()
    report = model.build_report(agg, {}, requirements=profile.load_requirements())
    write_outputs(report, out_dir)
    return report


def build(results_glob: str, out: str, memory_limit: str | None = None) -> dict:
    """A full build in one process, as `reports build` does it: de-duplicate the records by their
    key into a Parquet store partitioned by date, aggregate from the store, write the report folder."""
    import shutil
    from pathlib import Path

    import duckdb

    from ..render.outputs import write_outputs
    from ..views import model

    out_dir = Path(out)
    shutil.rmtree(out_dir / "store", ignore_errors=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    try:
        if memory_limit:
            con.execute(f"SET memory_limit = '{memory_limit}'")
        con.execute(f"SET temp_directory = '{out_dir / '.duckdb-tmp'}'")
        outcomes = ", ".join(f"'{o}'" for o in sorted(OUTCOMES))
        con.execute(f"""
            COPY (SELECT DISTINCT ON (run_id, implementation.name, vector_id, test_id) *,
                         CAST(try_cast(run_started AS TIMESTAMPTZ) AS DATE) AS date
                  FROM read_parquet('{results_glob}', union_by_name = true)
                  WHERE try_cast(run_started AS TIMESTAMPTZ) IS NOT NULL AND run_id IS NOT NULL
                    AND implementation.name IS NOT NULL AND vector_id IS NOT NULL AND spec IS NOT NULL
                    AND outcome IN ({outcomes}))
            TO '{out_dir / "store"}' (FORMAT parquet, PARTITION_BY (date))""")
        agg = compute(con, str(out_dir / "store" / "*" / "*.parquet"))
    finally:
        con.close()
    from ..views import profile

    report = model.build_report(agg, {}, requirements=profile.load_requirements())
    write_outputs(report, out_dir)
    return report


USAGE = """usage: python -m reports.baseline.baseline_duckdb RESULTS_GLOB OUT [MEMORY_LIMIT]
         (the bench's full build: results in, a Parquet store and the report out)
       python -m reports.baseline.baseline_duckdb --from-store {warm|cold} STORE OUT [MEMORY_LIMIT]
         (the report of a Delta store of `reports build` as it stands, read through its logs)"""


def main(argv: list[str]) -> int:
    import sys
    import time

    t = time.monotonic()
    if argv[:1] == ["--from-store"]:
        if len(argv) not in (4, 5) or argv[1] not in ("warm", "cold"):
            print(USAGE, file=sys.stderr)
            return 2
        try:
            rep = build_from_store(argv[2], argv[3], argv[1] == "warm", argv[4] if len(argv) > 4 else None)
        except StoreError as exc:
            print(f"duckdb from store: {exc}", file=sys.stderr)
            return 2
        print(f"duckdb from store ({argv[1]}): {rep['totals']['records']} records, "
              f"{rep['totals']['runs']} runs in {time.monotonic() - t:.1f}s")
        return 0
    if len(argv) not in (2, 3) or argv[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        return 2
    rep = build(argv[0], argv[1], argv[2] if len(argv) > 2 else None)
    print(f"duckdb build: {rep['totals']['records']} records in {time.monotonic() - t:.1f}s")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
