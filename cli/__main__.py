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
import textwrap
from contextlib import redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONVENTION = """\
exit codes, one convention for every command:
  0  done, and the result is good
  1  done, and the result is bad (failures, not conformant, does not verify, leftovers that stay)
  2  usage or input error: nothing was done (bad arguments, a --spec matching no spec, invalid rows)
  3  the command could not do its work: interrupted (Ctrl-C, SIGTERM, SIGHUP), no container engine,
     no certificate, Spark or the environment failed
"""
REFER = f"exit codes (the convention of `{'./mqconform'} --help`):"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
PROG = "./mqconform"


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
  1  the gate found failures no active expectation covers (new regressions)
  2  usage or input error: an option pytest or the plugin refused (a --spec matching no spec, a bad
     --endpoint, ...), no vector selected, or rows or expectations the gate could not read
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
  --endpoint NAME=URL    a broker you run (README, Brokers); its password from MQCONFORM_PASSWORD_NAME
  --impl GLOB            only implementations whose name matches
  --faults               also the fault vectors: each broker the run started is restarted, killed,
                         paused and has connections cut, last (otherwise they are left out)

environment:
  MQCONFORM_OUT          output folder (default out/)
  MQCONFORM_JOBS         pytest workers (default: cores + 1; 1 runs in one process)

Ctrl-C during the vectors stops them and the report is built from what ran; SIGTERM and SIGHUP end
the run as Ctrl-C does, without a report.

{RUN_EXIT}"""


def run_main(argv: list[str]) -> int:
    script = ROOT / "scripts" / "conformance.sh"
    os.execvp("bash", ["bash", str(script), *argv])
    return 2  # not reached


def run_help(_argv) -> str:
    return RUN_HELP


# ---- certify and verify ----------------------------------------------------------------------------

def _certify_parser() -> argparse.ArgumentParser:
    from certify.run import EXIT_CODES

    p = argparse.ArgumentParser(
        prog=f"{PROG} certify", formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EXIT_CODES.replace("exit codes:", REFER, 1),
        description=textwrap.dedent("""\
            Certify one broker you run: every spec that applies, with no expectations file, into one
            folder (results.jsonl, junit.xml, report/, CERTIFICATE.md, certificate.json, MANIFEST.sha256)
            that `./mqconform verify` checks. Keep the password off the command line: without :pass in
            the URL it comes from MQCONFORM_PASSWORD_NAME or --netrc-file, and it is never printed.
            Or certify a CloudEvents SDK through its shim (--codec; docs/codec-protocol.md): the codec
            vectors of every binding it offers, into the same bundle; `./mqconform codec-check` first."""))
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--endpoint", metavar="NAME=URL",
                       help="the broker: NAME=amqp[s]://user[:pass]@host:port[/vhost][?option=value&...] (README, Brokers)")
    which.add_argument("--codec", metavar="NAME=COMMAND",
                       help="a CloudEvents codec: NAME (the implementation's name, as its shim's handshake says it) "
                            "and the shim's command, split as a shell would (quote it: --codec NAME='COMMAND ARG...')")
    p.add_argument("--spec", action="append", default=[], metavar="GLOB",
                   help="certify only specs matching GLOB (repeatable; default every spec); the certificate says so")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="the bundle's folder, which must not exist (default certificates/NAME-<UTC time>)")
    p.add_argument("--netrc-file", default=None, metavar="FILE", help="netrc-style file with the endpoint's password")
    p.add_argument("--deviations", default=None, metavar="FILE",
                   help="deviations you declare (the expectations format, docs/results.md): listed on the "
                        "certificate with the failing rows they account for; they change no verdict")
    p.add_argument("--allow-users", action="store_true",
                   help="let vectors make users with chosen permissions on the broker (the refusal halves of "
                        "permission clauses; RabbitMQ: its management API, which the endpoint's login must be "
                        "allowed to use with the administrator tag); each is removed after its vector, and one "
                        "that could not be is named at the end. Without it those vectors are not_applicable")
    p.add_argument("--expectations", default=None, help=argparse.SUPPRESS)
    return p


def certify_main(argv: list[str]) -> int:
    p = _certify_parser()
    args = p.parse_args(argv)
    if args.expectations is not None:
        p.error("a certification admits no expectations file: its verdicts are the rows as they are. Declare "
                "known deviations with --deviations FILE: the certificate lists them as declared")
    if args.codec is not None:
        if args.netrc_file or args.allow_users:
            p.error("--netrc-file and --allow-users are an endpoint's: a codec has no broker")
        from certify.run import certify_codec

        return certify_codec(args.codec, args.spec, args.out, args.deviations)
    from certify.run import certify

    return certify(args.endpoint, args.spec, args.out, args.netrc_file, args.deviations,
                   allow_users=args.allow_users)


def _verify_parser() -> argparse.ArgumentParser:
    from certify.verify import EXIT_CODES

    p = argparse.ArgumentParser(
        prog=f"{PROG} verify", formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EXIT_CODES.replace("exit codes:", REFER, 1),
        description="Check a certification bundle: recompute every verdict from its rows (no Spark), check "
                    "every SHA-256 of its manifest, and that this checkout is the suite version that made it.")
    p.add_argument("bundle", metavar="BUNDLE", help="the folder certify wrote")
    p.add_argument("--accept-local-changes", action="store_true",
                   help="verify a bundle whose certificate says it was made with local changes to the suite "
                        "(no published commit can check such a verdict; refused without this flag)")
    p.add_argument("--rerun", nargs="?", const="auto", choices=("auto", "catalog", "endpoint"), default=None,
                   help="then run the certificate's vectors again, from a checkout of its commit, and compare outcome "
                        "by outcome: against the catalog's target of the same product, version and facts (auto, "
                        "catalog), else against the endpoint (endpoint; password as certify takes it)")
    p.add_argument("--endpoint", default=None, metavar="URL",
                   help="with --rerun endpoint: the endpoint's URL, if not the certificate's (the name stays the certificate's)")
    p.add_argument("--netrc-file", default=None, metavar="FILE", help="with --rerun endpoint: netrc-style file with the password")
    p.add_argument("--codec", default=None, metavar="NAME=COMMAND",
                   help="with --rerun, for a codec certified through its shim: the shim's command, given again (a "
                        "bundle's command is never run by itself); its handshake must name the certificate's version")
    return p


def verify_main(argv: list[str]) -> int:
    p = _verify_parser()
    args = p.parse_args(argv)
    if args.codec is not None and args.rerun is None:
        p.error("--codec gives a codec's shim command for --rerun; without --rerun nothing runs")
    from certify.verify import verify

    return verify(args.bundle, accept_local_changes=args.accept_local_changes, rerun=args.rerun,
                  endpoint=args.endpoint, netrc_file=args.netrc_file, codec=args.codec)


# ---- codec-check: a codec shim against the process protocol ------------------------------------------

CODEC_CHECK_EXIT = f"""\
{REFER}
  0  the shim passed every check
  1  the shim failed a check (each line says what it sent)
  2  usage error: no COMMAND, a COMMAND that is no executable, or bad options
"""


def _codec_check_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} codec-check", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=CODEC_CHECK_EXIT,
        usage=f"{PROG} codec-check [--timeout S] COMMAND [ARG...]",
        description="Run a CloudEvents codec shim (role cloudevents-codec, docs/codec-protocol.md) through the "
                    "process protocol's own rules before a certification: handshake, framing (two requests in "
                    "flight), a refusal, an unknown op, a crash told apart, nothing but results on stdout, exit "
                    "when stdin ends. One line per check, pass or FAIL, quoting what the shim sent. The shim's "
                    "stderr goes to .mqconform/process-logs/. Then: `./mqconform certify --codec NAME='COMMAND'`.")
    p.add_argument("--timeout", type=float, default=10.0, metavar="S",
                   help="bound of each answer, the handshake's included (default 10)")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="COMMAND", help="the shim and its arguments")
    return p


def codec_check_main(argv: list[str]) -> int:
    p = _codec_check_parser()
    args = p.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("give the shim's COMMAND (e.g. `python3 shims/cloudevents-python/shim.py`)")
    if args.timeout <= 0:
        p.error("--timeout must be positive")
    import shutil
    if shutil.which(command[0]) is None:
        p.error(f"COMMAND {command[0]!r}: no such executable (not on PATH, not an executable file)")
    from fixtures.process import codeccheck
    from fixtures.process.session import log_path

    log = log_path(f"codec-check-{Path(command[0]).name}")
    checks = codeccheck.run_checks(command, log, hello_s=args.timeout, answer_s=args.timeout)
    print(codeccheck.render(checks))
    failed = [c.name for c in checks if not c.ok]
    print(f"codec-check: {len(checks) - len(failed)} of {len(checks)} checks passed"
          + (f"; failed: {', '.join(failed)}" if failed else "") + f" (the shim's stderr: {log})")
    return 1 if failed else 0


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
     is skipped, and said), no valid records, a local path the cluster's executors cannot see, or
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
     expectations file, an invalid record (file:line), or no result records at all
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
    from reports.coverage import main
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
    from reports.audit import main
    return main(argv)


AUDIT_EXIT = f"""\
{REFER}
  0  no row breaks an invariant of reports/audit.py
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
            AUDIT_EXIT, lambda a: _audit(a), "python -m reports.audit", lambda a: _options_only(_help_of(_audit, a))),
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
