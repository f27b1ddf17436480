"""verify's check of the bundle's derived files: each made again from the rows and compared.

  report/compliance.json  the report of the rows, aggregated again without Spark by the report's
                          other engine (reports/baseline/baseline_duckdb.py, which `reports bench` and its
                          test keep equal to Spark's) and built by reports/views/model.py; compared as data,
                          with one value taken from the file: `generated`, when the report was made;
  report/summary.md, report/index.html, report/badges/*.svg
                          rendered again from that report by the build's own writer
                          (reports/render/outputs.py write_outputs) and compared byte for byte; no other file
                          may be in report/;
  junit.xml               per test case, the row it carries equals the row in results.jsonl, and what
                          pytest shows (failure / error, skipped, passed) is what the plugin shows for
                          that outcome and level (fixtures/plugin/outcomes.py); the suite's counts are
                          its cases'. Times, host name and captured output are pytest's, not the rows':
                          not compared.
"""
from __future__ import annotations

import json
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from . import bundle, counts

REPORT_FILES = ("compliance.json", "summary.md", "index.html")


def report_of(rows: list[dict], generated: str) -> dict:
    """The report `reports build` makes of these rows (one run, no expectations), dated `generated`."""
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    from reports.baseline import baseline_duckdb
    from reports.rows.schema import arrow_schema
    from reports.views import clauses, model

    schema = arrow_schema()

    def fit(r: dict) -> dict:
        r = {k: r.get(k) for k in schema.names}
        impl = dict(r["implementation"] or {})
        impl["provenance"] = {str(k): str(v) for k, v in (impl.get("provenance") or {}).items()}
        r["implementation"] = impl
        return r

    with tempfile.TemporaryDirectory(prefix="mqconform-verify-") as tmp:
        pq.write_table(pa.Table.from_pylist([fit(r) for r in rows], schema=schema), Path(tmp) / "rows.parquet")
        con = duckdb.connect()
        try:
            agg = baseline_duckdb.compute(con, str(Path(tmp) / "rows.parquet"))
        finally:
            con.close()
    return model.build_report(agg, clauses.load(), generated=generated)


def _diff(want, have, path="") -> list[str]:
    if isinstance(want, dict) and isinstance(have, dict):
        return [d for k in sorted(set(want) | set(have), key=str)
                for d in _diff(want.get(k), have.get(k), f"{path}.{k}" if path else str(k))]
    if isinstance(want, list) and isinstance(have, list) and len(want) == len(have):
        return [d for i, (w, h) in enumerate(zip(want, have, strict=True)) for d in _diff(w, h, f"{path}[{i}]")]
    if want != have:
        return [f"{path}: the rows give {json.dumps(want, ensure_ascii=False)[:160]}, "
                f"the file says {json.dumps(have, ensure_ascii=False)[:160]}"]
    return []


def check_report(folder: Path, rows: list[dict]) -> list[str]:
    from reports.render.outputs import write_outputs

    where = folder / bundle.REPORT
    try:
        stated = json.loads((where / "compliance.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{bundle.REPORT}/compliance.json: cannot be read: {exc}"]
    if not isinstance(stated, dict):
        return [f"{bundle.REPORT}/compliance.json: not a JSON object"]
    again = report_of(rows, str(stated.get("generated")))
    problems = [f"{bundle.REPORT}/compliance.json: {d}" for d in _diff(again, stated)][:20]
    with tempfile.TemporaryDirectory(prefix="mqconform-verify-") as tmp:
        # rendered from the file's own data, proven equal to the rows' above (dict order as written)
        write_outputs(stated if not problems else again, Path(tmp))
        made = {p.relative_to(tmp).as_posix() for p in Path(tmp).rglob("*") if p.is_file()} - {"compliance.json"}
        have = {p.relative_to(where).as_posix() for p in where.rglob("*") if p.is_file() or p.is_symlink()}
        for rel in sorted(made | (have - {"compliance.json"})):
            mine, theirs = Path(tmp) / rel, where / rel
            if rel not in have:
                problems.append(f"{bundle.REPORT}/{rel}: missing; the rows give one")
            elif rel not in made:
                problems.append(f"{bundle.REPORT}/{rel}: the rows give no such file")
            elif theirs.is_symlink() or mine.read_bytes() != theirs.read_bytes():
                problems.append(f"{bundle.REPORT}/{rel}: {_first_difference(mine, theirs)}")
    return problems


def _first_difference(mine: Path, theirs: Path) -> str:
    if theirs.is_symlink():
        return "a symbolic link, not the file the rows give"
    a = mine.read_text(encoding="utf-8", errors="replace").splitlines()
    b = theirs.read_text(encoding="utf-8", errors="replace").splitlines()
    for n, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            return f"line {n}: the rows give {x[:120]!r}, the file says {y[:120]!r}"
    return f"{len(b)} lines, the rows give {len(a)}"


def shown_as(outcome: str, level: str | None) -> set:
    """What pytest shows for a row: the junit element(s) its case may carry, None for passed
    (certify/counts.py, the one mapping)."""
    return set(counts.junit_elements(outcome, level))


def check_junit(folder: Path, rows: list[dict]) -> list[str]:
    try:
        tree = ET.parse(folder / bundle.JUNIT)
    except (OSError, ET.ParseError) as exc:
        return [f"{bundle.JUNIT}: cannot be read: {exc}"]
    problems = []
    by_test = {(r["test_id"], r["implementation"]["name"]): r for r in rows}
    seen = set()
    for case in tree.iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        recs = [p.get("value") for p in case.iter("property") if p.get("name") == "mqconform"]
        kinds = {c.tag for c in case if c.tag in ("failure", "error", "skipped")} or {None}
        for value in recs:
            try:
                rec = json.loads(value or "")
                key = (rec["test_id"], rec["implementation"]["name"])
            except (ValueError, KeyError, TypeError):
                problems.append(f"{bundle.JUNIT}: test case {name}: its mqconform property is not a row")
                continue
            row = by_test.get(key)
            if row is None:
                problems.append(f"{bundle.JUNIT}: {key[0]}: no such row in {bundle.RESULTS}")
                continue
            seen.add(key)
            differ = sorted(k for k in rec if rec[k] != row.get(k))
            if differ:
                problems.append(f"{bundle.JUNIT}: {key[0]}: {', '.join(differ)} differ from the row "
                                f"(e.g. {differ[0]}: {json.dumps(rec[differ[0]])[:80]} against "
                                f"{json.dumps(row.get(differ[0]))[:80]})")
            want = shown_as(row["outcome"], row.get("level"))
            if not kinds <= want or len(kinds) != 1:
                problems.append(f"{bundle.JUNIT}: {key[0]}: shown as {'/'.join(sorted(str(k) for k in kinds))}, "
                                f"a row {row['outcome']} at {row.get('level')} shows as "
                                f"{' or '.join(sorted(str(k) for k in want))}")
    if len(seen) != len(rows):
        missing = sorted(k[0] for k in set(by_test) - seen)
        problems.append(f"{bundle.JUNIT}: {len(seen)} test case(s) carry a row, the rows are {len(rows)}"
                        + (f" (none for {', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''})" if missing else ""))
    for suite in tree.iter("testsuite"):
        cases = list(suite.iter("testcase"))
        counts = {"tests": len(cases),
                  "failures": sum(1 for c in cases if c.find("failure") is not None),
                  "errors": sum(1 for c in cases if c.find("error") is not None),
                  "skipped": sum(1 for c in cases if c.find("skipped") is not None)}
        for attr, n in counts.items():
            if suite.get(attr) is not None and suite.get(attr) != str(n):
                problems.append(f"{bundle.JUNIT}: testsuite {suite.get('name')}: {attr}={suite.get(attr)}, "
                                f"its test cases give {n}")
    return problems
