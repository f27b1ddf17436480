"""`./mqconform verify BUNDLE`: recompute a certificate from its rows and check every digest.

Checks, in order, each said on its own line (a failure names the file, the row or the spec):
  1. the manifest: every file's SHA-256 as listed, nothing missing, nothing unlisted, and nothing
     but regular files (no link, no empty folder: certify/bundle.py);
  2. the rows (results.jsonl): every line a valid record the gate would trust (reports/rows/validate.py,
     reports/rows/trust.py: no torn line, none dated in the future, no id the registry does not know),
     one implementation, one run, one suite version and vectors digest, none judged against an
     expectations file;
  3. the certificate: certificate.json recomputed from the rows (certify/certificate.py: the
     verdicts with reports/views/model.py's rule, the counts per level, the declared deviations
     matched again against the rows) equals the bundle's; CERTIFICATE.md is its rendering, byte for byte;
  4. every derived file is what the rows give (certify/regen.py): compliance.json aggregated again,
     summary.md, index.html and the badges rendered again, byte for byte; junit.xml case by case
     (the row each carries, what pytest shows for its outcome, the suite's counts);
  5. the suite: the certificate's commit is the one the rows' suite version names, and the rows'
     suite version and vectors digest are this checkout's (verdict rules and
     vectors change with the suite: check a bundle with the suite that made it). A certificate made
     with local changes to the suite's tracked files names no commit that could judge it again: it
     does not verify unless the checker accepts that (--accept-local-changes), and then it is said.
No Spark, no network: plain Python (and DuckDB) over the bundle's files.

What that proves, and what it does not: a bundle that verifies is whole (every file as listed) and
self-consistent (every verdict, count and derived file is what its rows give with this suite). It
does not prove the rows came from the broker the certificate names: anyone with the suite can write
rows and make them a consistent bundle. Only `--rerun` (certify/rerun.py) does: the vectors run
again against that product and version, outcome compared with outcome.
"""
from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

from . import bundle, certificate

ROOT = Path(__file__).resolve().parent.parent
EXIT_VERIFIED, EXIT_NOT_VERIFIED, EXIT_USAGE = 0, 1, 2
EXIT_CODES = """\
exit codes:
  0  verified: every digest matches, and the certificate is what the rows say, with this suite
  1  does not verify: a file changed, missing or unlisted; an invalid or altered row; a verdict,
     count or declared deviation the rows do not give; the report or JUnit XML disagreeing with
     the rows; another suite version or vector set than this checkout's; or a certificate made
     with local changes to the suite, without --accept-local-changes (each problem is said)
     With --rerun: a reproducible vector's outcome differs in the rerun (each is listed; a
     timing-dependent one is listed and fails nothing)
  2  usage error: BUNDLE is not a folder holding MANIFEST.sha256; with --rerun, this checkout is not
     the certificate's commit and vectors (check that commit out), or there is nothing to rerun against
  3  with --rerun: the rerun could not be made or finished (the broker did not start or could
     not be used, the run broke, vectors the rerun could not judge: target / interrupted / harness errors)
"""


def _rows(folder: Path) -> tuple[list[dict], list[str]]:
    from reports.rows import validate

    rows, problems = [], validate.Problems()
    path = folder / bundle.RESULTS
    if not path.is_file():
        return [], [f"{bundle.RESULTS}: missing"]
    from reports.rows import trust

    # rows the gate would not trust (dated in the future or before their run, unknown ids, a split run)
    # make no certificate either
    with path.open(encoding="utf-8") as fh:
        validate.scan_lines(bundle.RESULTS, fh, problems, rows.append,
                            trust=trust.Trust(trust.load_registry(ROOT / "vectors")))
    out = [f"{w}:{n}: {why}" for w, n, why in problems.errors]
    out += [f"{w}:{n}: the last line is not a complete record" for w, n in problems.torn]
    return rows, out


def _deviation_entries(folder: Path):
    from fixtures.verdict import expectations as exp_mod

    path = folder / bundle.DEVIATIONS
    return exp_mod.load(path) if path.is_file() else []


def _diff(name: str, want, have, path: str = "") -> list[str]:
    """Where two JSON values differ, as `name: PATH: the rows give X, the bundle says Y` lines."""
    if isinstance(want, dict) and isinstance(have, dict):
        out = []
        for k in sorted(set(want) | set(have), key=str):
            out += _diff(name, want.get(k), have.get(k), f"{path}.{k}" if path else str(k))
        return out
    if isinstance(want, list) and isinstance(have, list) and len(want) == len(have):
        out = []
        for i, (w, h) in enumerate(zip(want, have, strict=True)):
            label = w.get("spec") + " " + w.get("spec_revision", "") if isinstance(w, dict) and "spec" in w else str(i)
            out += _diff(name, w, h, f"{path}[{label}]")
        return out
    if want != have:
        return [f"{name}: {path}: the rows give {json.dumps(want, ensure_ascii=False)[:200]}, "
                f"the bundle says {json.dumps(have, ensure_ascii=False)[:200]}"]
    return []


def _certificate(folder: Path, rows: list[dict]) -> list[str]:
    try:
        stated = json.loads((folder / bundle.CERTIFICATE_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{bundle.CERTIFICATE_JSON}: cannot be read: {exc}"]
    if stated.get("schema") != certificate.SCHEMA:
        return [f"{bundle.CERTIFICATE_JSON}: schema {stated.get('schema')!r}, this suite reads {certificate.SCHEMA!r}"]
    try:
        entries = _deviation_entries(folder)
        # What the rows cannot say is taken from the certificate: when it was made, the commit, the scope.
        scope = [] if stated.get("scope") == ["every spec"] else stated.get("scope", [])
        again = certificate.facts(rows, scope=scope, suite_commit=stated["suite"]["commit"], made=stated["made"],
                                  deviation_entries=entries)
    except (KeyError, TypeError, ValueError) as exc:
        return [f"{bundle.CERTIFICATE_JSON}: cannot be recomputed: {type(exc).__name__}: {exc}"]
    problems = _diff(bundle.CERTIFICATE_JSON, again, stated)
    try:
        text = (folder / bundle.CERTIFICATE_MD).read_text(encoding="utf-8")
    except OSError as exc:
        return problems + [f"{bundle.CERTIFICATE_MD}: cannot be read: {exc}"]
    want = certificate.render(again).splitlines()
    for n, (w, h) in enumerate(zip(want, text.splitlines(), strict=False), 1):
        if w != h:
            problems.append(f"{bundle.CERTIFICATE_MD}:{n}: the rows give {w[:160]!r}, the file says {h[:160]!r}")
            break
    else:
        if len(want) != len(text.splitlines()):
            problems.append(f"{bundle.CERTIFICATE_MD}: {len(text.splitlines())} lines, the rows give {len(want)}")
    return problems


def _suite(folder: Path, rows: list[dict], accept_local_changes: bool = False) -> list[str]:
    from fixtures.vectordata.vectors import load_vectors
    from fixtures.verdict.records import suite_version

    problems = []
    # The certificate's commit is the one the rows' suite version names (0.1.0+g<short commit>).
    try:
        commit = str(json.loads((folder / bundle.CERTIFICATE_JSON).read_text(encoding="utf-8"))["suite"]["commit"])
    except (OSError, ValueError, KeyError, TypeError):
        commit = ""   # said by the certificate's own check
    short = (rows[0].get("suite_version") or "").partition("+g")[2]
    if short and not commit.startswith(short):
        problems.append(f"{bundle.CERTIFICATE_JSON}: suite commit {commit}, the rows were made by commit {short}")
    if bundle.LOCAL_CHANGES in commit and not accept_local_changes:
        problems.append(f"{bundle.CERTIFICATE_JSON}: made by suite commit {commit}: no published suite can judge "
                        "these rows again (certify from a clean checkout, or verify with --accept-local-changes)")
    here = suite_version(ROOT)
    theirs = rows[0].get("suite_version")
    if theirs != here:
        problems.append(f"suite version: the bundle was made by mqconform {theirs}, this checkout is {here}: "
                        "verify with the suite that made it (its commit is on the certificate)")
    digest = load_vectors(ROOT / "vectors").digest
    if rows[0].get("vectors_digest") != digest:
        problems.append(f"vectors digest: the rows were judged with vectors {rows[0].get('vectors_digest')}, "
                        f"this checkout's are {digest}")
    return problems


def verify(path: str, out=None, accept_local_changes: bool = False, rerun: str | None = None,
           endpoint: str | None = None, netrc_file: str | None = None, codec: str | None = None) -> int:
    """Check the bundle; with `rerun` (auto | catalog | endpoint), then run its vectors again
    (certify/rerun.py): only a bundle that verifies is rerun."""
    out = out or sys.stdout
    folder = Path(path)
    if not (folder / bundle.MANIFEST).is_file():
        print(f"verify: {path}: not a certification bundle (no {bundle.MANIFEST} in a folder there)", file=sys.stderr)
        return EXIT_USAGE
    all_problems: list[str] = []

    def check(what: str, problems: list[str]) -> None:
        print(f"{'ok  ' if not problems else 'FAIL'} {what}", file=out)
        for p in problems:
            print(f"     {p}", file=out)
        all_problems.extend(problems)

    check("every file's SHA-256 matches MANIFEST.sha256", bundle.check_manifest(folder))
    rows, invalid = _rows(folder)
    check(f"{bundle.RESULTS}: {len(rows)} valid row(s) of one certification", invalid or certificate.check_rows(rows))
    if rows and not certificate.check_rows(rows):
        try:
            check("certificate.json and CERTIFICATE.md are what the rows give", _certificate(folder, rows))
        except ValueError as exc:   # a malformed deviations.yaml names file and line
            check("certificate.json and CERTIFICATE.md are what the rows give", [str(exc)])
        from . import regen

        check("report/ (compliance.json, summary.md, index.html, badges) is what the rows give",
              regen.check_report(folder, rows))
        check("junit.xml is what the rows give, case by case", regen.check_junit(folder, rows))
        check("suite version and vectors digest are this checkout's", _suite(folder, rows, accept_local_changes))
        from reports.gate.audit import breaches_of, read_observations

        try:    # an OpenMessaging row is judged again from the record the bundle keeps beside its rows
            observed, bad = read_observations(folder / bundle.RESULTS), []
        except ValueError as exc:
            observed, bad = {}, [str(exc)]
        check("no row contradicts another, every not_applicable reason is one the record gives, and every "
              "recorded observation gives its row's outcome again (audit)", bad or breaches_of(rows, bundle.RESULTS,
                                                                                              observations=observed))
    if all_problems:
        print(f"verify: {path} does NOT verify: {len(all_problems)} problem(s)", file=out)
        return EXIT_NOT_VERIFIED
    f = json.loads((folder / bundle.CERTIFICATE_JSON).read_text(encoding="utf-8"))
    verdicts = ", ".join(f"{s['spec']} {s['spec_revision']}: {s['verdict']}" for s in f["specs"])
    if bundle.LOCAL_CHANGES in str(f["suite"]["commit"]):
        print(f"note: accepted as asked: the certificate was made by suite commit {f['suite']['commit']}", file=out)
    print(f"verify: {path} verified ({dt.datetime.now(dt.UTC):%Y-%m-%d}): {f['implementation']['name']} "
          f"{certificate.overall(f)}; {verdicts}; MANIFEST.sha256 {bundle.sha256(folder / bundle.MANIFEST)}", file=out)
    if rerun is None:
        print("verify: whole and self-consistent; that its rows came from that broker only `--rerun` shows", file=out)
        return EXIT_VERIFIED
    from . import rerun as rerun_mod

    return rerun_mod.rerun(folder, rerun, endpoint=endpoint, netrc_file=netrc_file, out=out, codec=codec)
