"""./mqconform COMMAND [ARGS]: the one command-line entry, in the manner of wpt's ./wpt.

Each command is one line of COMMANDS: what it does, the exit codes its --help states, and the
function that runs it. Commands that have a home elsewhere (report, diff, gate, bench, coverage) are
handed their arguments untouched, so they read the same here and there; their --help is this
entry's header, the home's option help, and the exit codes. Heavy imports (Spark, the pytest
plugin) happen only inside the command that needs them.

Exit codes follow one convention across commands (CONVENTION, stated once in `./mqconform --help`;
each command's --help says what each code means for it and refers to it). Where a command's home
uses another code for one of these cases, this entry maps it (HOME_CODES), and tests/test_exit_codes.py
runs each command's failure modes to keep it so.
"""
from __future__ import annotations

import argparse
import os
import sys
from contextlib import redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from cli.bundles import certify_main, codec_check_main, verify_main  # noqa: E402 - ROOT first
from cli.common import CONVENTION, PROG, REFER  # noqa: E402 - tests import these from here


@dataclass(frozen=True)
class Command:
    name: str
    summary: str
    exit_codes: str
    run: object            # argv -> exit code
    home: str = ""         # where the options come from, for commands that have a home elsewhere
    home_help: object = None   # () -> that home's option help text


def _help_of(fn, argv) -> str:
    """The option help a home's own parser prints for --help (it exits; the exit is caught)."""
    buf = StringIO()
    with redirect_stdout(buf):
        try:
            fn(argv)
        except SystemExit:
            pass
    return buf.getvalue()


# ---- run: the main job ---------------------------------------------------------------------------

RUN_EXIT = f"""\
{REFER}
  0  the gate passed: no failure beyond the known deviations and known not-judged vectors in expectations/
     (or in the --expectations files given: the same files the rows were marked with)
  1  the gate found failures no active expectation covers (new regressions)
  2  usage or input error: an option pytest or the plugin refused (a --spec matching no spec, a bad
     --endpoint, a --target matching no target: refused before anything starts, ...), no vector
     selected, or rows or expectations the gate could not read
  3  the run could not be done: interrupted (Ctrl-C, SIGTERM or SIGHUP: brokers removed, what the
     suite made on an endpoint deleted), the environment could not be set up, pytest's internal
     error, or the report could not be built
"""
RUN_HELP = f"""\
usage: {PROG} run [OPTIONS]

The main job: every suite against the catalog's default brokers (or --target / --endpoint ones) and
the reference codecs, then the report (Spark) and the CI gate. Writes $MQCONFORM_OUT (default out/):
results.jsonl (the rows), junit.xml, report/ (index.html, summary.md, compliance.json, badges/) and
timing.md. Brokers are started in containers (Docker, or podman started here) and removed at the end.

OPTIONS are the suite's selection options (all of `.venv/bin/python -m pytest suites --help`, group
"mqconform"), for example:
  --spec GLOB            only specs matching GLOB (repeatable; a GLOB matching no spec is a usage error)
  --clause GLOB          only vectors of clauses matching GLOB
  --level LEVEL          only vectors of that level (MUST, SHOULD, ...)
  --target GLOB          catalog brokers to run (`{PROG} images --list`)
  --endpoint NAME=URL    a broker you run (docs/brokers.md); its password from MQCONFORM_PASSWORD_NAME
  --impl GLOB            only implementations whose name matches
  --expectations PATH    known deviations (file or folder, repeatable; default expectations/): the
                         rows are marked, the report annotated and the gate judged with these
  --no-faults            leave out the fault stage, which the main job runs by default: each broker
                         the run started is restarted, killed, paused and has connections cut, last,
                         after its other vectors (the report then says the run had no fault vectors)
  --one-client           AMQP 1.0 behaviour rows through python-qpid-proton alone: no second client
                         (go-amqp) runs a failing, erroring or client-dependent row again
  --shard I/N --sharded-run ID
                         run the I-th of N shares of the targets, codecs and client libraries on
                         this machine (the same split on every machine given the same options;
                         docs/shards.md); then `{PROG} report` and `{PROG} gate` with every shard's
                         results.jsonl merge them, and the gate refuses a run with a shard missing

environment:
  MQCONFORM_OUT          output folder (default out/)
  MQCONFORM_JOBS         pytest workers (default: cores + 1; 1 runs in one process)

Ctrl-C during the vectors stops them and the report is built from what ran; SIGTERM and SIGHUP end
the run as Ctrl-C does, without a report.

{RUN_EXIT}"""


def run_main(argv: list[str]) -> int:
    from cli import run_args

    # Refused before the script starts anything heavy (cli/run_args.py): a --target matching no target,
    # an --expectations file that cannot be used.
    argv = run_args.absolute_paths(argv)
    if (why := run_args.problem(argv)) is not None:
        print(f"{PROG} run: {why}", file=sys.stderr)
        return 2
    script = ROOT / "scripts" / "conformance.sh"
    os.execvp("bash", ["bash", str(script), *argv])
    return 2  # not reached


def run_help(_argv) -> str:
    return RUN_HELP


# ---- commands with a home elsewhere ------------------------------------------------------------------

def _reports(sub: str):
    def run(argv):
        from reports.__main__ import main
        return main([sub, *argv])
    return run


REPORT_EXIT = f"""\
{REFER}
  0  report written
  2  usage or input error, nothing written: bad arguments, a missing results path, a malformed
     expectations file (file:line and field), an invalid record (file:line; only a torn last line
     is skipped, and said), rows of one key with different outcomes (as the gate), no valid records, a local path the cluster's executors cannot see, or
     no store version for --as-of
  3  the report could not be built: Spark failed (the traceback says why), the cluster gave no
     executor in time, or with --wait-for: FILE did not appear within --wait-timeout
     (python -m reports build says 1 for the first two)
"""
DIFF_EXIT = f"""\
{REFER}
  0  the diff was printed (changes or none)
  2  usage or input error: bad arguments, no store at --store, a run no id, prefix or date of the
     store names (the known runs are listed), a date or prefix two runs share (the candidates are
     listed), or A and B the same run
  3  Spark failed (the traceback says why), or the cluster gave no executor in time
     (python -m reports diff says 1 for these)
"""
GATE_EXIT = f"""\
{REFER}
  0  every fail / error / xfail in the latest run of each implementation is covered by an active
     expectation, or is of a vector quarantined as flaky
  1  uncovered failures (a new regression, or a failure whose expectation expired); with --strict
     also: nothing uncovered, but an expectation has expired or is stale (python -m reports gate
     says 3 for that)
  2  usage or input error: bad arguments, a missing or unreadable results path, a malformed
     expectations file, an invalid record (file:line), two rows of one run, vector, implementation
     and protocol with different outcomes (each file:line, in any order), a run split across machines
     (run --shard) whose shards are not all given (each missing shard named), or no result records at all
"""


def _mapped(run, codes: dict[int, int]):
    """A home's exit codes told in the convention (CONVENTION): `codes` maps the home's to ours."""
    def mapped(argv):
        rc = run(argv)
        return codes.get(rc, rc)
    return mapped


def _options_only(text: str) -> str:
    """A home's --help without its own exit codes (this entry states them, in the convention)."""
    return text.split("\nexit codes:\n", 1)[0].rstrip() + "\n"


BENCH_EXIT = f"""\
{REFER}
  bench brokers:  0 every broker measured; 2 usage error (bad arguments, unknown --target); 3 a
                  broker or protocol could not be measured (its row says why)
  bench reports:  0 the builds ran (a build stopped at the memory cap or time limit is a row, not an
                  exit code); 2 usage error
"""
COVERAGE_EXIT = f"""\
{REFER}
  0  coverage printed
  2  usage error, or the vector tree is invalid (the message names file, line and field)
"""


def bench_main(argv: list[str]) -> int:
    which, rest = (argv[0], argv[1:]) if argv and argv[0] in ("brokers", "reports") else (None, argv)
    if which is None:
        print(f"{PROG} bench: say what to time: `{PROG} bench brokers [...]` (the suite against bare clients, "
              f"python -m fixtures.bench) or `{PROG} bench reports [...]` (report builds, python -m reports bench)",
              file=sys.stderr)
        return 2
    if which == "brokers":
        from fixtures.bench.__main__ import main
        rc = main(rest)
        return 3 if rc == 1 else rc   # could not measure: the convention's 3
    return _reports("bench")(rest)


def bench_help(_argv) -> str:
    from fixtures.bench.__main__ import main as brokers

    return (f"usage: {PROG} bench brokers [options]   or   {PROG} bench reports [options]\n\n"
            "== bench brokers (python -m fixtures.bench) ==\n" + _help_of(brokers, ["--help"])
            + "\n== bench reports (python -m reports bench) ==\n" + _help_of(_reports("bench"), ["--help"]))


def coverage_main(argv: list[str]) -> int:
    from reports.views.coverage import main
    return main(argv) or 0


# ---- images and cleanup: the container side -----------------------------------------------------------

IMAGES_EXIT = f"""\
{REFER}
  0  every image asked for is there (built, pulled or cached)
  1  an image could not be had (the others were still tried; each failure is said with its log's tail)
  2  usage error: a name the catalog does not know
  3  no container engine (Docker, or podman's Docker API) could be had
"""
CLEANUP_EXIT = f"""\
{REFER}
  0  every container of a dead run was removed (each is named), or there was none; with --endpoint:
     every leftover of the suite on that broker was deleted (each is named), or there was none
  1  with --endpoint: some could not be deleted (named, with why)
  2  usage error (a bad --endpoint or --netrc-file)
  3  no container engine could be had; with --endpoint: the broker's queues and exchanges could not
     be listed (no management API, login refused)
"""


def _images_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} images", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=IMAGES_EXIT,
        description="Build or pull the brokers' images (fixtures/provision/README.md), saying what each step "
                    "does with its elapsed time; an image whose inputs did not change is reused.")
    p.add_argument("names", nargs="*", metavar="TARGET", help="catalog targets (default: every one)")
    p.add_argument("--list", action="store_true", help="list the catalog's targets and variants, build nothing")
    return p


def images_main(argv: list[str]) -> int:
    args = _images_parser().parse_args(argv)
    from fixtures.provision import catalog, engine, images

    cat = catalog.load()
    if args.list:
        for t in cat.targets.values():
            print(f"{t.name:22} {t.product} {t.version}  protocols: {', '.join(t.protocols)}  "
                  f"variants: {', '.join(t.variants) or '-'}  default run: {'yes' if t.default_run else 'no'}")
        return 0
    unknown = [n for n in args.names if n not in cat.names()]
    if unknown:
        print(f"{PROG} images: unknown target(s) {', '.join(unknown)} (known: {', '.join(cat.names())})", file=sys.stderr)
        return 2
    try:
        eng = engine.ensure()
    except engine.EngineUnavailable as exc:
        print(f"{PROG} images: no container engine: {exc}", file=sys.stderr)
        return 3
    failed = 0
    for name in args.names or cat.names():
        try:
            img = images.ensure_image(cat.get(name), eng)
        except images.ImageError as exc:
            print(f"{name}: FAILED: {exc}", file=sys.stderr)
            failed += 1
            continue
        how = f"built in {img.built_s:.1f}s" if img.built_s is not None else "cached"
        print(f"{name}: {img.ref} ({img.source}, {how})")
    return 1 if failed else 0


def _cleanup_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} cleanup", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=CLEANUP_EXIT,
        description="Remove the broker containers of runs whose process is gone (a run killed with SIGKILL, a "
                    "crashed machine); containers of live runs, and of other hosts, are kept. With --endpoint: "
                    "delete instead what such runs left on a broker you run, the suite's names only (queues and "
                    "exchanges named mqc.*, with their bindings, and the amq.gen-* queues bound to them), found "
                    "through RabbitMQ's management API (fixtures/run/leftovers.py). Run it when no run uses that broker.")
    p.add_argument("--endpoint", action="append", default=[], metavar="NAME=URL",
                   help="the broker, as certify takes it; the password from MQCONFORM_PASSWORD_NAME or --netrc-file")
    p.add_argument("--netrc-file", default=None, metavar="FILE", help="netrc-style file with the endpoint's password")
    return p


def cleanup_endpoints(texts: list[str], netrc_path: str | None) -> int:
    from fixtures.adapters.endpoint import EndpointError, parse_option
    from fixtures.run import credentials, leftovers

    try:
        netrc_file = credentials.load_netrc(netrc_path)[0] if netrc_path else None
        endpoints = [(name, credentials.resolve(name, ep, os.environ, netrc_file, netrc_path))
                     for name, ep in map(parse_option, texts)]
    except (EndpointError, credentials.CredentialsError) as exc:
        print(f"{PROG} cleanup: {exc}", file=sys.stderr)
        return 2
    status = 0
    for name, ep in endpoints:
        try:
            found, left = leftovers.clean(ep, name)
        except leftovers.Unlisted as exc:
            print(f"{PROG} cleanup: {name} ({ep.redacted()}): cannot list its queues and exchanges: {exc}",
                  file=sys.stderr)
            status = max(status, 3)
            continue
        for what in found:
            print(f"{name}: {what}")
        if left:
            print(f"{PROG} cleanup: {left}", file=sys.stderr)
            status = max(status, 1)
        else:
            print(f"{PROG} cleanup: {name} ({ep.redacted()}): {len(found)} leftover(s) of the suite deleted")
    return status


def cleanup_main(argv: list[str]) -> int:
    args = _cleanup_parser().parse_args(argv)
    if args.endpoint:
        return cleanup_endpoints(args.endpoint, args.netrc_file)
    from fixtures.provision import cleanup_leftovers, engine

    try:
        eng = engine.ensure()
    except engine.EngineUnavailable as exc:
        print(f"{PROG} cleanup: no container engine: {exc}", file=sys.stderr)
        return 3
    removed = cleanup_leftovers(engine=eng)
    for name in removed:
        print(f"removed {name}")
    print(f"{PROG} cleanup: {len(removed)} container(s) of dead runs removed")
    return 0


def _audit(argv):
    from reports.gate.audit import main
    return main(argv)


AUDIT_EXIT = f"""\
{REFER}
  0  no row breaks an invariant of reports/gate/audit.py
  1  rows break one: each breach is named (its invariant, the rows as FILE:LINE, why)
  2  usage or input error: a results file missing or with an invalid record (named by file:line)
"""


COMMANDS = {c.name: c for c in (
    Command("run", "the main job: every suite against the default implementations, report and gate (out/)",
            "", run_main, "", run_help),
    Command("certify", "certify a broker you run, or an SDK's codec shim (--codec): a bundle with a SHA-256 manifest",
            "", certify_main),
    Command("codec-check", "run a CloudEvents codec shim through the process protocol's checks before certifying it",
            "", codec_check_main),
    Command("verify", "check a certification bundle: digests, verdicts recomputed from its rows, suite version",
            "", verify_main),
    Command("report", "build the HTML / Markdown / JSON report of result rows (Spark, Delta Lake store)",
            REPORT_EXIT, _mapped(_reports("build"), {1: 3}), "python -m reports build",
            lambda a: _options_only(_help_of(_reports("build"), a))),
    Command("diff", "what changed between two runs of a report's store, clause by clause (Spark)",
            DIFF_EXIT, _mapped(_reports("diff"), {1: 3}), "python -m reports diff",
            lambda a: _options_only(_help_of(_reports("diff"), a))),
    Command("gate", "CI gate: fail on failures no expectation covers (no JVM)",
            GATE_EXIT, _mapped(_reports("gate"), {3: 1}), "python -m reports gate",
            lambda a: _options_only(_help_of(_reports("gate"), a))),
    Command("audit", "rows of a run that contradict each other or rest on a reason their record does not give",
            AUDIT_EXIT, lambda a: _audit(a), "python -m reports.gate.audit", lambda a: _options_only(_help_of(_audit, a))),
    Command("bench", "time the suite against bare clients (brokers) or report builds against DuckDB (reports)",
            BENCH_EXIT, bench_main, "python -m fixtures.bench, python -m reports bench", bench_help),
    Command("coverage", "which testable clauses have vectors, per spec and level",
            COVERAGE_EXIT, coverage_main, "python -m reports coverage",
            lambda a: _help_of(coverage_main, a)),
    Command("images", "build or pull the brokers' container images, with progress", "", images_main),
    Command("cleanup", "remove broker containers left by dead runs", "", cleanup_main),
)}


def top_help() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = [f"usage: {PROG} COMMAND [ARGS]   ({PROG} COMMAND --help: its options and exit codes)", "",
             "mqconform, a conformance suite for messaging. Commands:", ""]
    lines += [f"  {c.name:{width}}  {c.summary}" for c in COMMANDS.values()]
    lines += ["", CONVENTION]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(top_help())
        return 0 if argv else 2
    cmd = COMMANDS.get(argv[0])
    if cmd is None:
        print(f"{PROG}: unknown command {argv[0]!r}\n\n{top_help()}", file=sys.stderr)
        return 2
    rest = argv[1:]
    if cmd.home_help is not None and ("-h" in rest or "--help" in rest):
        if cmd.home:
            print(f"{PROG} {cmd.name}: {cmd.summary}\n(the options of {cmd.home})\n")
        print(cmd.home_help(rest))
        if cmd.exit_codes:
            print(cmd.exit_codes)
        return 0
    try:
        return cmd.run(rest)
    except KeyboardInterrupt:
        print(f"{PROG} {cmd.name}: interrupted", file=sys.stderr)
        return 3
    except Exception:   # noqa: BLE001 - a defect: said in full, and told apart from a bad result (1)
        import traceback

        traceback.print_exc()
        print(f"{PROG} {cmd.name}: stopped by an internal error (above)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
