"""python -m reports {build,diff,gate,bench,coverage} ...

Heavy imports (pyspark, duckdb) happen inside each branch, so that `gate`
starts in well under a second and `--help` works without Spark.
"""
from __future__ import annotations

import argparse
import sys
import textwrap

GATE_EXIT_CODES = """\
exit codes:
  0  every fail / error / xfail in the latest run of each implementation is
     covered by an active expectation, or is of a vector quarantined as flaky
     (an entry with outcome: flaky, naming the vector, with the reason)
  1  uncovered failures: a new regression, or a failure whose expectation expired
  2  usage or input error: bad arguments, a missing or unreadable results path,
     a malformed expectations file, an invalid record (named by file:line; only
     a torn last line is skipped, and said), a record it cannot trust (dated in
     the future or before its run; a spec, clause or vector the registry does not
     know; run metadata its run's other rows disagree with; file:line), two rows
     of one run, vector, implementation and protocol with different outcomes
     (each named by file:line, in any order), or no result records at all
  3  with --strict only: nothing uncovered, but an expectation has expired or
     is stale (every result it matches passes now)
"""

BUILD_EXIT_CODES = """\
exit codes:
  0  report written
  1  Spark failed (the traceback says why), or the cluster gave no executor in time
  2  usage or input error: bad arguments, a missing results path, a malformed
     expectations file (named by file:line and field), an invalid record
     (named by file:line; only a torn last line is skipped, and said), a record
     it cannot trust (as the gate: reports/rows/trust.py, file:line), rows of one key
     with different outcomes (as the gate: reports/rows/conflicts.py), no valid
     records, a local path the cluster's executors cannot see, no store version
     for --as-of, or no store at all for --from-store. Nothing is written then: the store and the report stay as they were.
  3  --wait-for only: FILE did not appear within --wait-timeout, or the process that
     started the build ended first; nothing was built
"""

DIFF_EXIT_CODES = """\
exit codes:
  0  the diff was printed (changes or none)
  1  Spark failed (the traceback says why), or the cluster gave no executor in time
  2  usage or input error: bad arguments, no store at --store, a run no id, prefix or date of the
     store names (the known runs are listed), a date or prefix two runs share (the candidates are
     listed), or A and B the same run
"""


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(s.replace("_", "")) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}") from None
    if not sizes or any(s <= 0 for s in sizes):
        raise argparse.ArgumentTypeError("sizes must be positive")
    return sizes


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m reports", description="mqconform compliance reports and the CI gate.")
    sub = p.add_subparsers(dest="command", required=True, metavar="{build,diff,gate,bench,coverage,cluster}")

    b = sub.add_parser("build", help="aggregate results on Spark and write the report folder",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=BUILD_EXIT_CODES,
                       description=textwrap.dedent("""\
                           Read result records (JSON Lines or Parquet; files, folders or globs; local paths or
                           Hadoop URIs), keep them in a Delta Lake table partitioned by date under OUT/store, and
                           write OUT/index.html, OUT/summary.md, OUT/compliance.json and OUT/badges/*.svg."""))
    b.add_argument("--results", nargs="+", action="extend", default=[], metavar="PATH",
                   help="result files or folders (repeatable; required unless --as-of or --from-store)")
    b.add_argument("--out", required=True, metavar="DIR", help="output folder (local path or Hadoop URI)")
    b.add_argument("--master", default=None, metavar="URL", help="Spark master (default local[*])")
    b.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark setting (repeatable)")
    b.add_argument("--clauses", default=None, metavar="DIR",
                   help="clause registry folder for quotes (default: vectors/clauses of this checkout)")
    b.add_argument("--registry", default=None, metavar="DIR|none",
                   help="the vectors tree whose spec, clause and vector ids a row may name (default: MQCONFORM_REGISTRY, else "
                        "this checkout's vectors/); `none` checks no ids (synthetic records)")
    b.add_argument("--accumulate", action="store_true",
                   help="add the results to the store (a MERGE: the same run twice counts once) instead of "
                        "replacing its contents, so that the history grows run by run")
    b.add_argument("--store", default=None, metavar="DIR", help="the store's folder (default OUT/store)")
    b.add_argument("--expectations", nargs="+", action="extend", default=[], metavar="PATH",
                   help="expectations files or folders: the entry that accounts for a row (its reason and the "
                        "link to the product's bug report) and the quarantined flaky vectors are shown beside "
                        "them; verdicts are never changed")
    b.add_argument("--wait-for", default=None, metavar="FILE",
                   help="start Spark and warm it up now, and build once FILE exists (whoever writes the results "
                        "creates it when they are complete): the session's start leaves the caller's critical "
                        "path (scripts/conformance.sh starts it beside the vectors)")
    b.add_argument("--wait-timeout", type=float, default=3600.0, metavar="SECONDS",
                   help="with --wait-for: give up (exit 3) when FILE has not appeared after this long (default 3600)")
    b.add_argument("--as-of", default=None, metavar="WHEN",
                   help="rebuild the report from the store as it was at a date or time (2026-11-21, "
                        "2026-11-21T22:00:00Z) or at a version number; no --results")
    b.add_argument("--from-store", action="store_true",
                   help="the report of the store as it stands (its latest records version), read from the store: "
                        "the state tables runs and flaky are brought up to that version (made from all records "
                        "when absent), then the date partitions of each implementation's two latest runs are "
                        "read; no --results")

    f = sub.add_parser("diff", help="what changed between two runs of a build's store, clause by clause",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=DIFF_EXIT_CODES,
                       description=textwrap.dedent("""\
                           Compare two runs of the store (STORE/records of `reports build`): per implementation
                           both ran, spec and revision, each clause whose outcome changed, with the rows behind
                           the change on both sides (vector id, outcomes, the deciding step, the message).
                           Markdown on stdout, or JSON with --json."""))
    f.add_argument("a", metavar="A", help="the first run: a run id, a prefix of one (4 characters or more), or a "
                                          "date YYYY-MM-DD (the run that started that day, UTC)")
    f.add_argument("b", metavar="B", help="the second run, named the same way")
    f.add_argument("--store", required=True, metavar="DIR",
                   help="the store's folder: OUT/store of `reports build --out OUT`, or its --store")
    f.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    f.add_argument("--master", default=None, metavar="URL", help="Spark master (default local[*])")
    f.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark setting (repeatable)")

    g = sub.add_parser("gate", help="fail on failures not covered by an active expectation (no Spark)",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=GATE_EXIT_CODES,
                       description="Judge the latest run of each implementation against expectations files.")
    g.add_argument("--results", nargs="+", action="extend", required=True, metavar="PATH",
                   help="JSON Lines files, folders of them, or Parquet folders written by build (repeatable)")
    g.add_argument("--expectations", nargs="+", action="extend", default=[], metavar="FILE",
                   help="expectations YAML file or folder of them (repeatable)")
    g.add_argument("--strict", action="store_true", help="exit 3 on expired or stale expectations")
    g.add_argument("--one-shard", action="store_true",
                   help="the rows are one shard of a run split across machines (run --shard), judged alone, as a "
                        "shard's own job does; without it a split run must have every shard among --results")
    g.add_argument("--today", default=None, metavar="YYYY-MM-DD", help="judge expiry as of this date (default: today)")
    g.add_argument("--registry", default=None, metavar="DIR|none",
                   help="the vectors tree whose spec, clause and vector ids a row may name (default: MQCONFORM_REGISTRY, else "
                        "this checkout's vectors/); `none` checks no ids (synthetic records)")

    c = sub.add_parser("bench", help="time full builds on Spark against a DuckDB baseline, appends of one run, and "
                                     "reads of the report from a store of N records")
    c.add_argument("--sizes", type=_sizes, default=None, metavar="N,N,...",
                   help="record counts of the full builds (default 100000,1000000,10000000, unless --history alone "
                        "is given)")
    c.add_argument("--history", type=_sizes, default=None, metavar="N,N,...",
                   help="record counts of stores to read the report from (a bulk-loaded store per size; Spark's "
                        "`build --from-store` and DuckDB's read of the same store, cold and warm; `reports diff`)")
    c.add_argument("--master", default=None, metavar="URL", help="Spark master (default local[*])")
    c.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark setting (repeatable)")
    c.add_argument("--workdir", default=None, metavar="DIR", help="where to write the synthetic Parquet (default: a temp dir)")
    c.add_argument("--keep", action="store_true", help="keep the synthetic Parquet and the builds")
    c.add_argument("--append-to", type=_sizes, default=None, metavar="N,...",
                   help="history sizes to append one run to (default: the largest size up to 10^7)")
    c.add_argument("--memory-cap-gib", type=float, default=12.0, metavar="GIB",
                   help="stop a build whose processes hold more than this resident (default 12)")
    c.add_argument("--timeout-min", type=float, default=60.0, metavar="MIN", help="stop a build after this long")

    sub.add_parser("coverage", help="clause coverage (reports/views/coverage.py)", add_help=False)
    sub.add_parser("cluster", help="a command on Spark clusters of 1 and 2 workers in network namespaces", add_help=False)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # coverage owns its arguments: hand them over untouched.
    if argv[:1] == ["coverage"]:
        try:
            from .views import coverage  # written separately; imported only when asked for
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.views.coverage":
                raise
            print("reports coverage: reports/views/coverage.py is not there yet", file=sys.stderr)
            return 2
        return coverage.main(argv[1:]) or 0
    if argv[:1] == ["cluster"]:  # owns its arguments too (reports/bench/bench_cluster.py)
        from .bench import bench_cluster

        return bench_cluster.main(argv[1:])
    p = parser()
    args = p.parse_args(argv)
    if args.command == "gate":
        import datetime as dt

        from .gate import gate

        try:
            today = dt.date.fromisoformat(args.today) if args.today else None
        except ValueError:
            p.error(f"--today: not a date: {args.today!r}")
        return gate.run(args.results, args.expectations, today=today, strict=args.strict, registry=args.registry,
                        one_shard=args.one_shard)

    from .spark.session import parse_conf

    try:
        conf = parse_conf(args.conf)
    except ValueError as exc:
        p.error(str(exc))
    if args.command == "build":
        if sum(map(bool, (args.results, args.as_of, args.from_store))) != 1:
            p.error("build takes one of --results, --as-of (rebuild from the store as it was) or --from-store "
                    "(the report of the store as it stands)")
        if args.wait_for and (args.as_of or args.from_store):
            p.error("--wait-for waits for results: it does not go with --as-of or --from-store")
        if args.from_store and args.accumulate:
            p.error("--accumulate adds --results to the store: it does not go with --from-store")
        if args.wait_timeout <= 0:
            p.error("--wait-timeout must be positive")
        build_args = dict(results=args.results, out=args.out, clause_dir=args.clauses, accumulate=args.accumulate,
                          store=args.store, as_of=args.as_of, expectations=args.expectations,
                          registry=args.registry, from_store=args.from_store)
        if args.wait_for:
            from reports.engine import early_session as warm

            return warm.run(build_args, args.wait_for, args.wait_timeout, master=args.master, conf=conf)
        from .engine import build

        return build.run(master=args.master, conf=conf, **build_args)
    if args.command == "diff":
        from .engine import run_diff

        return run_diff.run(args.a, args.b, args.store, as_json=args.json, master=args.master, conf=conf)
    if args.command == "bench":
        from .bench import bench

        sizes = args.sizes if args.sizes is not None else ([] if args.history else [100_000, 1_000_000, 10_000_000])
        bench.run(sizes, history=args.history, master=args.master, conf=conf, workdir=args.workdir, keep=args.keep,
                  append_to=args.append_to, cap_gib=args.memory_cap_gib, timeout_s=args.timeout_min * 60)
        return 0
    p.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
