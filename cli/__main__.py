"""./mqconform COMMAND [ARGS]: the one command-line entry, in the manner of wpt's ./wpt.

Each command is one line of COMMANDS: what it does, the exit codes its --help states, and the
function that runs it. Commands that have a home elsewhere (report, gate, bench, coverage) are
handed their arguments untouched, so they read the same here and there; their --help is this
entry's header, the home's option help, and the exit codes. Heavy imports (Spark, the pytest
plugin) happen only inside the command that needs them.

Exit codes follow one convention across commands: 0 done and good, 1 done and the result is bad
(failures, not conformant, does not verify), 2 usage or input error (nothing was done), 3 the
command could not do its work (no container engine, no certificate).
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

RUN_EXIT = """\
exit codes (those of scripts/conformance.sh):
  0  the gate passed: no failure beyond the known deviations and known not-judged vectors in expectations/
  1  the gate found failures no active expectation covers (new regressions)
  2  usage or input error, or the environment could not be set up (scripts/bootstrap.sh failed), or
     the report could not be built from the rows; also pytest's own 2 when the run was interrupted
  3, 4  pytest's internal error or usage error (a bad --spec, --endpoint, ...), said above
"""


def run_main(argv: list[str]) -> int:
    script = ROOT / "scripts" / "conformance.sh"
    os.execvp("bash", ["bash", str(script), *argv])
    return 2  # not reached


def run_help(_argv) -> str:
    doc = [ln[2:] for ln in (ROOT / "scripts" / "conformance.sh").read_text().splitlines()[1:] if ln.startswith("#")]
    return (f"usage: {PROG} run [pytest options, e.g. --spec 'ce-*' --target GLOB --endpoint NAME=URL]\n\n"
            + "\n".join(doc) + "\n")


# ---- certify and verify ----------------------------------------------------------------------------

def _certify_parser() -> argparse.ArgumentParser:
    from certify.run import EXIT_CODES

    p = argparse.ArgumentParser(
        prog=f"{PROG} certify", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXIT_CODES,
        description=textwrap.dedent("""\
            Certify one broker you run: every spec that applies, with no expectations file, into one
            folder (results.jsonl, junit.xml, report/, CERTIFICATE.md, certificate.json, MANIFEST.sha256)
            that `./mqconform verify` checks. Keep the password off the command line: without :pass in
            the URL it comes from MQCONFORM_PASSWORD_NAME or --netrc-file, and it is never printed."""))
    p.add_argument("--endpoint", required=True, metavar="NAME=URL",
                   help="the broker: NAME=amqp[s]://user[:pass]@host:port[/vhost][?option=value&...] (README, Brokers)")
    p.add_argument("--spec", action="append", default=[], metavar="GLOB",
                   help="certify only specs matching GLOB (repeatable; default every spec); the certificate says so")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="the bundle's folder, which must not exist (default certificates/NAME-<UTC time>)")
    p.add_argument("--netrc-file", default=None, metavar="FILE", help="netrc-style file with the endpoint's password")
    p.add_argument("--deviations", default=None, metavar="FILE",
                   help="deviations you declare (the expectations format, docs/results.md): listed on the "
                        "certificate with the failing rows they account for; they change no verdict")
    p.add_argument("--expectations", default=None, help=argparse.SUPPRESS)
    return p


def certify_main(argv: list[str]) -> int:
    p = _certify_parser()
    args = p.parse_args(argv)
    if args.expectations is not None:
        p.error("a certification admits no expectations file: its verdicts are the rows as they are. Declare "
                "known deviations with --deviations FILE: the certificate lists them as declared")
    from certify.run import certify

    return certify(args.endpoint, args.spec, args.out, args.netrc_file, args.deviations)


def _verify_parser() -> argparse.ArgumentParser:
    from certify.verify import EXIT_CODES

    p = argparse.ArgumentParser(
        prog=f"{PROG} verify", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXIT_CODES,
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
    return p


def verify_main(argv: list[str]) -> int:
    args = _verify_parser().parse_args(argv)
    from certify.verify import verify

    return verify(args.bundle, accept_local_changes=args.accept_local_changes, rerun=args.rerun,
                  endpoint=args.endpoint, netrc_file=args.netrc_file)


# ---- commands with a home elsewhere ------------------------------------------------------------------

def _reports(sub: str):
    def run(argv):
        from reports.__main__ import main
        return main([sub, *argv])
    return run


BENCH_EXIT = """\
exit codes:
  bench brokers:  0 every broker measured; 1 a broker or protocol could not be measured (its row says
                  why); 2 usage error (bad arguments, unknown --target)
  bench reports:  0 the builds ran (a build stopped at the memory cap or time limit is a row, not an
                  exit code); 2 usage error
"""
COVERAGE_EXIT = """\
exit codes:
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
        return main(rest)
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

IMAGES_EXIT = """\
exit codes:
  0  every image asked for is there (built, pulled or cached)
  1  an image could not be had (the others were still tried; each failure is said with its log's tail)
  2  usage error: a name the catalog does not know
  3  no container engine (Docker, or podman's Docker API) could be had
"""
CLEANUP_EXIT = """\
exit codes:
  0  every container of a dead run was removed (each is named), or there was none
  2  usage error (cleanup takes no arguments)
  3  no container engine could be had
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


def cleanup_main(argv: list[str]) -> int:
    argparse.ArgumentParser(prog=f"{PROG} cleanup", formatter_class=argparse.RawDescriptionHelpFormatter,
                            epilog=CLEANUP_EXIT,
                            description="Remove the broker containers of runs whose process is gone (a run "
                                        "killed with SIGKILL, a crashed machine); containers of live runs, and "
                                        "of other hosts, are kept.").parse_args(argv)
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


COMMANDS = {c.name: c for c in (
    Command("run", "the main job: every suite against the default implementations, report and gate (out/)",
            RUN_EXIT, run_main, "scripts/conformance.sh", run_help),
    Command("certify", "certify one broker you run: a bundle with CERTIFICATE.md and a SHA-256 manifest",
            "", certify_main),
    Command("verify", "check a certification bundle: digests, verdicts recomputed from its rows, suite version",
            "", verify_main),
    Command("report", "build the HTML / Markdown / JSON report of result rows (Spark, Delta Lake store)",
            "", _reports("build"), "python -m reports build", lambda a: _help_of(_reports("build"), a)),
    Command("gate", "CI gate: fail on failures no expectation covers (no JVM)",
            "", _reports("gate"), "python -m reports gate", lambda a: _help_of(_reports("gate"), a)),
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
    lines += ["", "exit codes, the same convention in every command: 0 done and good; 1 done, and the result is",
              "bad (failures, not conformant, does not verify); 2 usage or input error, nothing done; 3 the",
              "command could not do its work (no container engine, no certificate).", ""]
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
        print(f"{PROG} {cmd.name}: {cmd.summary}\n(the options of {cmd.home})\n")
        print(cmd.home_help(rest))
        if cmd.exit_codes:   # report and gate: their home's help states them already
            print(cmd.exit_codes)
        return 0
    return cmd.run(rest)


if __name__ == "__main__":
    sys.exit(main())
