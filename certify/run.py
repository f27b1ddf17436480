"""`./mqconform certify --endpoint NAME=URL [--spec GLOB]...`: certify one broker, write one bundle.

Steps, each said with its elapsed time (fixtures/provision/progress.py):
  1. check the arguments: the endpoint URL (refused with the password masked), the declared
     deviations file (fixtures/verdict/expectations.py: file, line and field), the output folder (new);
  2. run every suite that yields rows (not the drawn property tests, not the cross-protocol
     measurement) against the endpoint only (`--impl NAME`), with an empty expectations file:
     pytest in a process of its own, its output shown as it comes; vectors make users on the
     broker only with `--allow-users` (else those vectors are not_applicable, saying so);
  3. build the report of the rows (reports build, Spark), its store kept outside the bundle;
  4. write certificate.json, CERTIFICATE.md, the declared deviations and MANIFEST.sha256.
Everything is written into a sibling folder `OUT.partial-PID` and renamed to OUT at the end: a
certification that fails or is interrupted (Ctrl-C, SIGTERM, SIGHUP alike: certify/stopping.py)
leaves no bundle, removes the partial one and its temporary store, and the run it stopped
deletes what it made on the endpoint. One certification at a time writes a given OUT: a second
one started while the first runs is refused at once (usage error), naming the first's process.
The password comes from the URL, MQCONFORM_PASSWORD_<NAME> or --netrc-file (fixtures/run/credentials.py)
and is never printed: the endpoint is shown as the plugin masks it.

`./mqconform certify --codec NAME='COMMAND ...'` certifies a CloudEvents SDK through its shim
(docs/codec-protocol.md) into the same bundle: step 1 also starts the shim and makes the handshake
alone (bound HANDSHAKE_S); a shim that does not answer it as the protocol asks, or names itself
otherwise than NAME, is refused before any vector runs, quoting what it sent (exit 3); step 2 runs
the CloudEvents codec suites only (CODEC_SUITES) with `--codec NAME=COMMAND --impl NAME`. A shim
that fails during the run (an exit, a hang, garbage) fails the row of that request, naming it, and
is started again for the next vector (fixtures/codecs/process_codec.py).
"""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import bundle, certificate, outlock, stopping

ROOT = Path(__file__).resolve().parent.parent
# Suites left out of a certification: they yield no rows (drawn events through brokers fail as pytest
# failures until saved as vectors; CloudEvents through brokers and the cross-protocol survival are
# measurements, docs/brokers.md, "CloudEvents through brokers").
NOT_CERTIFYING = ("suites/properties", "suites/cloudevents/test_cross_protocol.py",
                  "suites/cloudevents/test_transit.py")
# A broker is not certified on OpenMessaging: that text's verdicts belong to providers (an
# OpenMessaging implementation over a broker, docs/verdicts.md); a run's report shows the broker's
# OpenMessaging profile instead.
PROVIDER_SPECS = ("openmessaging",)
NOT_CERTIFYING_BROKER = (*NOT_CERTIFYING, "suites/openmessaging")
# What certifies a codec: the CloudEvents codec suites (encode and decode vectors of each binding).
CODEC_SUITES = ("suites/cloudevents/test_ce_amqp_codec.py", "suites/cloudevents/test_ce_rabbitmq_codec.py",
                "suites/cloudevents/test_ce_rocketmq_codec.py")
CODEC_SPECS = ("ce-amqp", "ce-rabbitmq", "ce-rocketmq")
HANDSHAKE_S = 10.0   # the codec shim's handshake before any vector runs
EXIT_OK, EXIT_NOT_CONFORMANT, EXIT_USAGE, EXIT_NO_CERTIFICATE = 0, 1, 2, 3
EXIT_CODES = """\
exit codes:
  0  bundle written, overall conformant or conformant-except-should: some spec applies, and every
     MUST / MUST NOT clause of every spec that applies was judged and held
  1  bundle written, overall not-conformant, incomplete or not-applicable (the certificate's first
     line says which and why)
  2  usage or input error, nothing written: bad arguments, an endpoint URL that cannot be used as
     written (shown with the password masked), a --codec that is not NAME=COMMAND or whose command is
     no executable, a declared deviations file that is malformed (file, line, field) or names another
     implementation, an output folder that exists, no vector selected
  3  no certificate, nothing left behind: the run was interrupted or broke, the endpoint could not
     be used at all (every row a target error: closed, silent, not AMQP, login refused), the codec's
     shim did not answer its handshake as the protocol asks (what it sent is quoted), or the report
     could not be built
"""


def _say(text: str) -> None:
    print(f"certify: {text}", file=sys.stderr, flush=True)


def suite_commit() -> str:
    """The tree's full commit, and whether files it tracks were changed ("unknown" outside git and
    without an installed tree's BUILD.json: fixtures/tree.py tree_commit)."""
    from fixtures.tree import tree_commit

    known = tree_commit(ROOT)
    if known is None:
        return "unknown (not a git checkout)"
    return f"{known[0]} {bundle.LOCAL_CHANGES}" if known[1] else known[0]


def default_out(name: str) -> Path:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    return Path("certificates") / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', name)}-{stamp}"


def spec_problem(globs: list[str], not_here: tuple[str, ...] = (), kind: str | None = None) -> str | None:
    """Why the --spec GLOBs cannot be certified (an empty one, one matching no spec of the registry,
    one matching only specs in `not_here`, which this kind of implementation is not certified on, or
    only specs whose text describes other kinds than `kind`), or None: said before anything runs (the
    run's plugin refuses a GLOB matching no spec too, fixtures/plugin/collect.py)."""
    from fnmatch import fnmatchcase

    from fixtures.vectordata.registry import RegistryError, load_registry

    if not globs:
        return None
    try:
        registry = load_registry(ROOT / "vectors" / "clauses")
        known = sorted(registry.specs)
    except RegistryError:
        return None   # the run says what is wrong with the registry
    for glob in globs:
        if not glob.strip():
            return (f"--spec {glob!r}: an empty pattern matches no spec; leave --spec out to certify every spec "
                    f"(known: {', '.join(known)})")
        if not any(fnmatchcase(s, glob) for s in known):
            return f"--spec {glob!r} matches no spec (known: {', '.join(known)})"
        if all(s in not_here for s in known if fnmatchcase(s, glob)):
            return (f"--spec {glob!r}: a broker is not certified on {', '.join(not_here)}: its verdicts belong to "
                    f"OpenMessaging providers; `./mqconform run --endpoint ...` shows the broker's OpenMessaging profile")
        if kind is not None and (why := _not_describing(registry, [s for s in known if fnmatchcase(s, glob)], kind)):
            return f"--spec {glob!r}: {why}"
    return None


def _not_describing(registry, specs: list[str], kind: str) -> str | None:
    """Why none of `specs` can certify an implementation of `kind`: each text's `applies_to` describes
    other kinds only (the CloudEvents bindings describe codecs), quoted; None when one of them may."""
    whys = []
    for name in specs:
        applies = registry.specs[name].applies_to
        if not applies or any(a.kind in (None, kind) for a in applies):
            return None
        whys.append(f"{name} describes {', '.join(sorted({a.kind for a in applies}))} (\"{applies[0].because.strip()}\")")
    return (f"not a {kind}'s text: " + "; ".join(whys) + f". Nothing to certify a {kind} on; `./mqconform run "
            "--endpoint ...` measures CloudEvents through a broker, `certify --codec` certifies an SDK")


def _read_rows(path: Path) -> tuple[list[dict], list[str]]:
    from reports.rows import validate

    rows, problems = [], validate.Problems()
    if path.exists():
        with path.open(encoding="utf-8") as fh:
            validate.scan_lines(str(path), fh, problems, rows.append)
    return rows, [f"{w}:{n}: {why}" for w, n, why in problems.errors] + [f"{w}:{n}: torn last line" for w, n in problems.torn]


def _declared(name: str, deviations: str | None):
    """The declared deviations' entries, or an exit code (said) when the file cannot be used."""
    from fixtures.verdict import expectations as exp_mod

    entries = []
    if deviations:
        try:
            entries = exp_mod.load(deviations)
        except exp_mod.ExpectationsError as exc:
            _say(f"--deviations: {exc}")
            return EXIT_USAGE
        from fnmatch import fnmatchcase
        for e in entries:
            if not fnmatchcase(name, e.implementation):
                _say(f"--deviations: {e.where}: names implementation {e.implementation!r}, not {name!r}: "
                     "a certification lists the deviations its own implementation declares")
                return EXIT_USAGE
    return entries


def certify(endpoint: str, specs: list[str], out: str | None = None, netrc_file: str | None = None,
            deviations: str | None = None, timeout_s: float | None = None, allow_users: bool = False) -> int:
    from fixtures.adapters.endpoint import EndpointError, parse_option
    from fixtures.provision import progress

    # 1. arguments
    try:
        name, ep = parse_option(endpoint)
    except EndpointError as exc:
        _say(str(exc))
        return EXIT_USAGE
    entries = _declared(name, deviations)
    if isinstance(entries, int):
        return entries
    problem = spec_problem(specs, PROVIDER_SPECS, kind="broker")
    if problem:
        _say(problem)
        return EXIT_USAGE
    if netrc_file and not Path(netrc_file).is_file():
        _say(f"--netrc-file {netrc_file}: no such file")
        return EXIT_USAGE
    selection = ["suites", *[a for s in NOT_CERTIFYING_BROKER for a in ("--ignore", s)], "--endpoint", endpoint]
    if netrc_file:
        selection += ["--netrc-file", str(Path(netrc_file).resolve())]
    if allow_users:   # the certifier's consent: vectors may make (and remove) users on the broker
        selection.append("--allow-users")
    return _in_bundle(name, out, lambda target, partial, store, commit: _certify(
        name, f"{name} ({ep.redacted()})", selection, specs, target, partial, store, entries, deviations, commit,
        timeout_s or float(os.environ.get("MQCONFORM_CERTIFY_TIMEOUT", "3600")), progress))


def certify_codec(codec: str, specs: list[str], out: str | None = None, deviations: str | None = None,
                  timeout_s: float | None = None) -> int:
    """Certify a CloudEvents codec through its shim: `codec` is NAME=COMMAND (as `--codec` takes it)."""
    import shutil as sh
    from fnmatch import fnmatchcase

    from fixtures.codecs.registry import CodecRegistryError, parse_codec_option
    from fixtures.process import codeccheck
    from fixtures.process.session import log_path
    from fixtures.provision import progress

    # 1. arguments, then the handshake alone: nothing runs against a shim that cannot talk
    try:
        spec = parse_codec_option(codec)
    except CodecRegistryError as exc:
        _say(str(exc))
        return EXIT_USAGE
    name, argv = spec.name, spec.argv()
    entries = _declared(name, deviations)
    if isinstance(entries, int):
        return entries
    problem = spec_problem(specs)
    if problem is None:
        problem = next((f"--spec {g!r} matches no CloudEvents binding: a codec is certified on "
                        f"{', '.join(CODEC_SPECS)}" for g in specs if not any(fnmatchcase(s, g) for s in CODEC_SPECS)), None)
    if problem:
        _say(problem)
        return EXIT_USAGE
    if out and Path(out).exists():
        _say(f"--out {out}: exists; a bundle is written into a new folder")
        return EXIT_USAGE
    if sh.which(argv[0]) is None:
        _say(f"--codec {name}: the command {argv[0]!r} is no executable (not on PATH, not an executable file)")
        return EXIT_USAGE
    with progress.step(f"the handshake of {name}'s shim ({spec.shown_command()})", done="ended"):
        hs, said = codeccheck.try_handshake(argv, log_path(f"{name}-certify-handshake"), HANDSHAKE_S, cwd=str(ROOT))
    if hs is None:
        _say(f"{name}: its shim ({spec.shown_command()}) did not answer the handshake as docs/codec-protocol.md "
             f"asks: {said}. No vector was run: no certificate (`./mqconform codec-check {spec.shown_command()}` "
             "checks the shim)")
        return EXIT_NO_CERTIFICATE
    if hs.name != name:
        _say(f"{name}: its shim names the implementation {hs.name!r} in its handshake ({said}); certify it under "
             f"that name: --codec {hs.name}='{spec.shown_command()}'. No vector was run: no certificate")
        return EXIT_NO_CERTIFICATE
    _say(f"{name}: {said}")
    selection = [*CODEC_SUITES, "--codec", codec]
    specs = list(specs) or list(CODEC_SPECS)   # the certificate's scope: the bindings' specs, not "every spec"
    return _in_bundle(name, out, lambda target, partial, store, commit: _certify(
        name, f"{name} {hs.impl_version} through its shim ({spec.shown_command()})", selection, specs, target,
        partial, store, entries, deviations, commit,
        timeout_s or float(os.environ.get("MQCONFORM_CERTIFY_TIMEOUT", "3600")), progress))


def _in_bundle(name: str, out: str | None, run) -> int:
    """The bundle's frame: a new OUT claimed, a partial folder and a temporary store made, `run` called
    (target, partial, store, commit) and both removed however it ends."""
    # absolute: the run and the report it starts work in the suite's own folder, not the caller's
    target = (Path(out) if out else default_out(name)).absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    with stopping.handled(), outlock.claim(target) as other:
        if other is not None:
            _say(f"--out {target}: another certify ({other}) is writing it now; wait for it to end, or give "
                 "another --out")
            return EXIT_USAGE
        if target.exists():
            _say(f"--out {target}: exists; a bundle is written into a new folder")
            return EXIT_USAGE
        partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
        store = None
        try:
            partial.mkdir()
            store = Path(tempfile.mkdtemp(prefix="mqconform-certify-store-"))
            # The commit is read before the run, as the rows' suite version is: the two name one checkout.
            commit = suite_commit()
            return run(target, partial, store, commit)
        except KeyboardInterrupt as exc:
            stopping.quiet()
            how = exc.args[0] if isinstance(exc, stopping.Stopped) else "Ctrl-C"
            _say(f"interrupted ({how}): no certificate; the partial bundle and the temporary store are removed")
            return EXIT_NO_CERTIFICATE
        finally:
            stopping.quiet()
            shutil.rmtree(partial, ignore_errors=True)
            if store is not None:
                shutil.rmtree(store, ignore_errors=True)


def _certify(name, shown, selection, specs, target, partial, store, entries, deviations, commit, timeout_s,
             progress) -> int:
    """Steps 2 to 4: `selection` the suites and the implementation's options (--endpoint, --codec)."""
    none = store / "no-expectations.yaml"
    none.write_text("expectations: []\n", encoding="utf-8")
    results, junit = partial / bundle.RESULTS, partial / bundle.JUNIT
    cmd = [sys.executable, "-m", "pytest", *selection, "-p", "no:cacheprovider", "-q", "-rN", "--tb=line",
           "--impl", name, "--expectations", str(none), "--results", str(results), "--junitxml", str(junit)]
    cmd += [a for s in specs for a in ("--spec", s)]
    # the run is a run of its own: no run id of a caller, no xdist worker identity of a caller's pytest
    env = {k: v for k, v in os.environ.items() if k != "MQCONFORM_RUN_ID" and not k.startswith("PYTEST_XDIST_")}
    # Each step's temporary files (pytest's, Spark's) go into the temporary store, removed with it
    # however the certification ends.
    (store / "tmp").mkdir()
    env["TMPDIR"] = str(store / "tmp")
    scope = ", ".join(specs) or "every spec"
    # pytest shows its own progress (a mark per vector, each target named as it starts): no ticker of
    # ours in the middle of its lines, only the step's start and end.
    with progress.step(f"running {scope} against {shown}", done="ran", period=24 * 3600):
        try:
            status = stopping.run_child(cmd, cwd=ROOT, env=env, timeout_s=timeout_s, stdin=subprocess.DEVNULL).returncode
        except subprocess.TimeoutExpired:
            _say(f"the run took longer than {timeout_s:.0f}s (MQCONFORM_CERTIFY_TIMEOUT): no certificate")
            return EXIT_NO_CERTIFICATE
    if status == 4:
        _say("pytest refused the arguments (above): nothing certified")
        return EXIT_USAGE
    if status == 5:
        _say(f"no vector selected by --spec {' '.join(specs)}: nothing certified")
        return EXIT_USAGE
    if status not in (0, 1):
        _say(f"the run stopped (pytest status {status}): no certificate")
        return EXIT_NO_CERTIFICATE
    rows, invalid = _read_rows(results)
    rows = [r for r in rows if r["implementation"]["name"] == name]
    if invalid or not rows:
        _say("the run wrote " + ("; ".join(invalid[:3]) if invalid else "no row") + ": no certificate")
        return EXIT_NO_CERTIFICATE
    # an endpoint that could not be used (target errors), a codec whose shim could not start (precondition)
    if all(r["outcome"] == "error" and r.get("error_kind") in ("target", "precondition") for r in rows):
        _say(f"{name} could not be used: {rows[0]['message'].splitlines()[0]}: no certificate")
        return EXIT_NO_CERTIFICATE
    problems = certificate.check_rows(rows)
    if problems:
        _say("the rows cannot make a certificate: " + "; ".join(problems))
        return EXIT_NO_CERTIFICATE

    with progress.step("building the report (Spark)", done="built"):
        try:
            build = stopping.run_child([sys.executable, "-m", "reports", "build", "--results", str(results),
                                        "--out", str(partial / bundle.REPORT), "--store", str(store / "store")],
                                       cwd=ROOT, env=env, timeout_s=timeout_s, stdin=subprocess.DEVNULL,
                                       capture_output=True)
        except subprocess.TimeoutExpired:
            _say(f"the report took longer than {timeout_s:.0f}s (MQCONFORM_CERTIFY_TIMEOUT): no certificate")
            return EXIT_NO_CERTIFICATE
    if build.returncode != 0:
        sys.stderr.write(build.stdout[-2000:] + build.stderr[-4000:])
        _say("the report could not be built: no certificate")
        return EXIT_NO_CERTIFICATE

    made = dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    f = certificate.facts(rows, scope=list(specs), suite_commit=commit, made=made, deviation_entries=entries)
    shown = {(v["spec"], v["spec_revision"] or ""): v["verdict"]
             for v in json.loads((partial / bundle.REPORT / "compliance.json").read_text(encoding="utf-8"))["verdicts"]}
    # a spec without a verdict (a broker's OpenMessaging rows) is not among the report's verdicts either
    mine = {(s["spec"], s["spec_revision"]): s["verdict"] for s in f["specs"] if s["verdict"] is not None}
    if shown != mine:   # one rule for both (reports/views/model.py verdict): a difference is a defect of the suite
        _say(f"the report's verdicts {shown} differ from the certificate's {mine}: no certificate")
        return EXIT_NO_CERTIFICATE
    if deviations:
        shutil.copyfile(deviations, partial / bundle.DEVIATIONS)
    (partial / bundle.CERTIFICATE_JSON).write_text(json.dumps(f, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (partial / bundle.CERTIFICATE_MD).write_text(certificate.render(f), encoding="utf-8")
    stopping.quiet()   # the bundle is complete: a signal now no longer undoes it
    manifest = bundle.write_manifest(partial)
    partial.rename(target)

    for s in f["specs"]:
        _say(f"  {s['spec']} {s['spec_revision']}: {s['verdict'] or s['covers']}")
    _say(f"{name}: {certificate.overall(f)}; bundle {target} (MANIFEST.sha256 {manifest})")
    _say(f"check it with: {os.environ.get('MQCONFORM_PROG', './mqconform')} verify {target}")   # as cli/common.py PROG
    return EXIT_OK if certificate.holds(f) else EXIT_NOT_CONFORMANT
