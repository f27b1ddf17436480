"""./mqconform certify, verify and codec-check: the commands of a certification bundle.

Each parser refuses bad arguments before anything runs (exit 2, naming the option); the work is done
by certify/run.py, certify/verify.py, certify/rerun.py and fixtures/process/codeccheck.py.
"""
from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from cli.common import PROG, REFER

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
                       help="the broker: NAME=amqp[s]://user[:pass]@host:port[/vhost][?option=value&...] (docs/brokers.md)")
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


RERUN_MODES = ("auto", "catalog", "endpoint")


def _verify_parser() -> argparse.ArgumentParser:
    from certify.verify import EXIT_CODES

    p = argparse.ArgumentParser(
        prog=f"{PROG} verify", formatter_class=argparse.RawDescriptionHelpFormatter,
        usage=f"{PROG} verify [--rerun [MODE]] [options] BUNDLE",
        epilog=EXIT_CODES.replace("exit codes:", REFER, 1),
        description="Check a certification bundle: recompute every verdict from its rows (no Spark), check "
                    "every SHA-256 of its manifest, and that this checkout is the suite version that made it.")
    p.add_argument("bundle", nargs="?", default=None, metavar="BUNDLE", help="the folder certify wrote")
    p.add_argument("--accept-local-changes", action="store_true",
                   help="verify a bundle whose certificate says it was made with local changes to the suite "
                        "(no published commit can check such a verdict; refused without this flag)")
    # No `choices`: argparse would take the BUNDLE of `--rerun BUNDLE` for the MODE and refuse it.
    # verify_main() decides which the word after --rerun is (rerun_mode()).
    p.add_argument("--rerun", nargs="?", const="auto", default=None, metavar="MODE",
                   help="then run the certificate's vectors again, from a checkout of its commit, and compare outcome "
                        "by outcome. MODE: auto (the default: the catalog's target of the same product, version "
                        "and facts when there is one, else the endpoint), catalog, or endpoint (password as certify "
                        "takes it). The word after --rerun is the MODE when it is one of these, else the BUNDLE: "
                        "`--rerun BUNDLE`, `--rerun endpoint BUNDLE` and `--rerun=endpoint BUNDLE` all work; a "
                        "bundle folder named like a mode is written with its path (./endpoint)")
    p.add_argument("--endpoint", default=None, metavar="URL",
                   help="with --rerun endpoint: the endpoint's URL, if not the certificate's (the name stays the certificate's); "
                        "its options, stated facts and --allow-users come from certificate.json: a URL whose own "
                        "options differ is refused")
    p.add_argument("--netrc-file", default=None, metavar="FILE", help="with --rerun endpoint: netrc-style file with the password")
    p.add_argument("--codec", default=None, metavar="NAME=COMMAND",
                   help="with --rerun, for a codec certified through its shim: the shim's command, given again (a "
                        "bundle's command is never run by itself); its handshake must name the certificate's version")
    return p


def rerun_mode(rerun: str | None, bundle: str | None) -> tuple[str | None, str]:
    """(rerun mode or None, bundle) of the parsed --rerun word and BUNDLE, or ValueError saying what is wrong.

    The rule: the word after --rerun is its MODE only when it is one of RERUN_MODES; any other word
    is the BUNDLE, and the mode is auto. So `--rerun BUNDLE` (README) and `--rerun endpoint BUNDLE`
    both read as written, and a mode is never taken for a folder nor a folder for a mode."""
    if rerun is not None and rerun not in RERUN_MODES:
        if bundle is not None:
            raise ValueError(f"--rerun {rerun!r}: not a rerun mode ({', '.join(RERUN_MODES)}), and BUNDLE "
                             f"is already {bundle!r}")
        rerun, bundle = "auto", rerun
    if bundle is None:
        hint = (f" (`--rerun {rerun}` is the mode; a bundle folder of that name is ./{rerun})"
                if rerun is not None and rerun != "auto" else "")
        raise ValueError(f"give the BUNDLE, the folder certify wrote{hint}")
    return rerun, bundle


def verify_main(argv: list[str]) -> int:
    p = _verify_parser()
    args = p.parse_args(argv)
    try:
        rerun, bundle = rerun_mode(args.rerun, args.bundle)
    except ValueError as exc:
        p.error(str(exc))
    if args.codec is not None and rerun is None:
        p.error("--codec gives a codec's shim command for --rerun; without --rerun nothing runs")
    from certify.verify import verify

    return verify(bundle, accept_local_changes=args.accept_local_changes, rerun=rerun,
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
