"""`./mqconform verify --rerun BUNDLE`: run the certificate's vectors again and compare, outcome by outcome.

A bundle that verifies is whole and self-consistent; it does not show that its rows came from the
broker it names. A rerun does, as far as a rerun can:
  1. the checkout must be the certificate's suite commit, with no local changes, and its vectors
     digest the certificate's (else exit 2: check out that commit): the same vectors, judged the same way;
  2. the broker: the catalog target of the same product and version (the certificate's, as the broker
     said it), with the same stated facts (certificate.json `stated_facts`: `amqp_address_v1`, ...),
     started here; or, when the catalog has none or the checker asks (`--rerun endpoint`), the endpoint
     itself, given as certify was given it: its query options and the certifier's consent to users
     (certificate.json `endpoint_options`, `allow_users`; never read from the masked URL), its
     password as certify takes it (MQCONFORM_PASSWORD_<NAME>, --netrc-file), the rerun's rows
     having to name the same product and version;
  3. the rerun's rows compared with the bundle's, per vector id x implementation (the certified name,
     or the target's, stands for the implementation under test): a reproducible vector whose outcome
     differs fails verify (exit 1), listed; a timing-dependent one (certify/timing.py, listed in
     certificate.json) is reported and fails nothing, unless a row of it (either side's) failed or was
     not judged at a step before its timing (its setup, an attach, a declare): then it is compared
     strictly, as a reproducible one.
What a rerun cannot show: that the vendor's production broker is the one certified (only that the
same product and version give these rows), nor anything about vectors that depend on timing.

A codec certified through its shim (`certify --codec`) is rerun through a shim command the checker
gives again (`--codec NAME='COMMAND'`): a bundle's command is never run by itself, it is shown. The
rerun's rows must name the same implementation version (its handshake's); without --codec the
rerun says it cannot be made (exit 2).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from . import bundle, timing

ROOT = Path(__file__).resolve().parent.parent
IUT = "<implementation under test>"
EXIT_SAME, EXIT_DIFFERS, EXIT_USAGE, EXIT_NOT_RUN = 0, 1, 2, 3
# error kinds of a rerun row that the rerun could not judge (docs/verdicts.md): not evidence either way
UNJUDGED_KINDS = ("target", "interrupted", "harness")
# the message of a row not run for a fact (fixtures/vectordata/facts.py, fixtures/kinds/amqp10_links.py): "needs KEY=VALUE; ..."
_NEEDS = re.compile(r"needs (\w+)=")
# a row not run for users the suite may not or could not make there (fixtures/kinds/made_users.py)
MADE_USERS = "needs a user with chosen permissions; "


class CannotRerun(Exception):
    """The rerun cannot be made as asked; `code` is the exit code (2 usage, 3 could not run)."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


def checkout_problem(cert: dict) -> str | None:
    """Why this checkout cannot rerun the certificate (None: it is the certificate's commit and vectors)."""
    from fixtures.vectordata.vectors import load_vectors

    want = str(cert["suite"]["commit"])
    if bundle.LOCAL_CHANGES in want or not want or want.startswith("unknown"):
        return f"the certificate names suite commit {want!r}: no published commit can run its vectors again"
    from fixtures.tree import tree_commit

    head, dirty = tree_commit(ROOT) or ("", False)
    if head != want:
        return (f"this checkout is commit {head or 'unknown'}, the certificate's is {want}: "
                f"`git checkout {want}` and verify from there")
    if dirty:
        return f"this checkout has local changes to tracked files: a rerun runs commit {want} as it is"
    digest = load_vectors(ROOT / "vectors").digest
    if digest != cert["suite"]["vectors_digest"]:
        return f"this checkout's vectors digest is {digest}, the certificate's {cert['suite']['vectors_digest']}"
    return None


def _all_facts() -> tuple[str, ...]:
    """Every fact an endpoint rerun holds as the certificate had it (the same endpoint): those its URL
    may state, and its configuration being the product's default."""
    from fixtures.vectordata.facts import FACT_VALUES
    return (*FACT_VALUES, "config_default")


def stated_facts(cert: dict) -> dict[str, str]:
    """The facts the vendor stated of the certified endpoint (?amqp_address_v1=denied, ...), as the
    certificate keeps them from the rows (certify/stated.py), never read from a URL shown masked."""
    kept = (cert.get("stated_facts") or {}).get("stated")
    if kept is not None:
        return dict(kept)
    from fixtures.vectordata.facts import FACT_VALUES  # a certificate made before the facts were kept
    endpoint = cert["implementation"].get("endpoint") or ""
    return {k: v for k, v in parse_qsl(urlsplit(endpoint).query) if k in FACT_VALUES}


def _options_of(query: str) -> list[tuple[str, str]]:
    """Query options as the endpoint parser reads them (fixtures/adapters/endpoint.py: `unquote`, so a
    `+` stays a plus), `verify` by its meaning."""
    from urllib.parse import unquote
    out = []
    for item in filter(None, query.split("&")):
        k, _, v = item.partition("=")
        v = unquote(v)
        out.append((k, str(v.lower() in ("1", "true", "yes")) if k == "verify" else v))
    return sorted(out)


def endpoint_url(cert: dict, given: str | None = None) -> str:
    """The URL the rerun reaches the endpoint by: the checker's (`--endpoint URL`) or the certificate's,
    without a password (given as certify takes it), with the query options the certificate records
    (`endpoint_options`: protocols, facts, addresses, ...). A checker's URL whose own options differ
    from the certificate's is refused: the rerun asks the same broker the same way."""
    impl = cert["implementation"]
    options = impl.get("endpoint_options") or ""
    base = (given or impl.get("endpoint") or "").replace(":***@", "@")
    if not base:
        raise CannotRerun("cannot rerun: the catalog has no such target and the certificate names no endpoint")
    url, _, own = base.partition("?")
    if given and own and _options_of(own) != _options_of(options):
        raise CannotRerun(f"--endpoint: its options ?{own} are not the certificate's (?{options or ''}); give the "
                          "URL without options: the rerun takes them from certificate.json")
    return f"{url}?{options}" if options else url


def catalog_target(cert: dict) -> str | None:
    """The catalog target (or target+variant) of the certificate's product and version whose facts are
    the ones the endpoint stated; None when the catalog has none."""
    from fixtures.provision import catalog

    server = cert["implementation"].get("server") or {}
    product, version = (server.get("product") or "").lower(), server.get("version") or cert["implementation"].get("version")
    facts = stated_facts(cert)
    for t in catalog.load().targets.values():
        if t.product.lower() != product or t.version != version:
            continue
        for name, own in [(t.name, t.facts)] + [(f"{t.name}+{v.name}", {**t.facts, **v.facts}) for v in t.variants.values()]:
            if all(own.get(k) == v for k, v in facts.items()):
                return name
    return None


def _run(cert: dict, folder: Path, work: Path, target: str | None, endpoint: str | None,
         netrc_file: str | None, out, codec: str | None = None) -> tuple[str, list[dict]]:
    """Run the certificate's scope again; (the implementation name the rerun's rows carry, its rows)."""
    from .run import CODEC_SUITES, NOT_CERTIFYING_BROKER

    name = cert["implementation"]["name"]
    none = work / "no-expectations.yaml"
    none.write_text("expectations: []\n", encoding="utf-8")
    results = work / "rerun.jsonl"
    suites = list(CODEC_SUITES) if codec else ["suites", *[a for s in NOT_CERTIFYING_BROKER for a in ("--ignore", s)]]
    cmd = [sys.executable, "-m", "pytest", *suites, "-p", "no:cacheprovider", "-q", "-rN", "--tb=no",
           "--expectations", str(none), "--results", str(results)]
    if codec:
        cmd += ["--codec", codec, "--impl", name]
        impl = name
    elif target:
        cmd += ["--target", target, "--impl", target]
        impl = target
    else:
        cmd += ["--endpoint", f"{name}={endpoint}", "--impl", name]
        if cert["implementation"].get("allow_users"):   # the certifier's consent, as certify had it
            cmd.append("--allow-users")
        if netrc_file:
            cmd += ["--netrc-file", str(Path(netrc_file).resolve())]
        impl = name
    scope = [] if cert.get("scope") == ["every spec"] else list(cert.get("scope") or [])
    cmd += [a for s in scope for a in ("--spec", s)]
    env = {k: v for k, v in os.environ.items() if k != "MQCONFORM_RUN_ID" and not k.startswith("PYTEST_XDIST_")}
    shown = ["--codec", codec] if codec else ["--target", target] if target else ["--endpoint", f"{name}=..."]
    print(f"rerun: pytest {' '.join(CODEC_SUITES) if codec else 'suites'} {' '.join(shown + [a for s in scope for a in ('--spec', s)])}", file=out, flush=True)
    timeout_s = float(os.environ.get("MQCONFORM_CERTIFY_TIMEOUT", "3600"))
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise CannotRerun(f"the rerun took longer than {timeout_s:.0f} s", EXIT_NOT_RUN) from None
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-2000:])
        raise CannotRerun(f"the rerun stopped (pytest status {proc.returncode})", EXIT_NOT_RUN)
    rows = [json.loads(ln) for ln in results.read_text(encoding="utf-8").splitlines() if ln.strip()] \
        if results.exists() else []
    return impl, rows


def _key(row: dict, name: str) -> tuple[str, str]:
    """(vector id, implementation) with the implementation under test's name replaced by IUT, so that
    `mine`, `mqconform-om/amqp091@mine` and the catalog's `rabbitmq-4.0.5` rows meet."""
    impl = row["implementation"]["name"]
    if impl == name:
        impl = IUT
    elif impl.endswith(f"@{name}"):
        impl = impl[: -len(name)] + IUT
    return row["vector_id"], impl


def compare(bundle_rows: list[dict], bundle_name: str, rerun_rows: list[dict], rerun_name: str,
            timed: dict, stated=frozenset(), strict: dict | None = None, same_broker: bool = False) -> dict:
    """Outcome by outcome: {"same": n, "differ": [...], "timing": [...]}, each difference
    (vector id, implementation, the bundle's outcomes, the rerun's). `timed`: vector id -> why it
    depends on timing; `strict`: vector id -> its part before the timing (certify/timing.py strict_part)."""
    strict = strict or {}
    def group(rows, name):
        out: dict[tuple, list[str]] = {}
        for r in rows:
            out.setdefault(_key(r, name), []).append(r["outcome"])
        return {k: sorted(v) for k, v in out.items()}

    # A rerun row the rerun itself could not judge (the broker went away, the run was cut short, the
    # harness broke) says nothing about the bundle: not compared, and said.
    lost = {_key(r, rerun_name) for r in rerun_rows
            if r["outcome"] == "error" and r.get("error_kind") in UNJUDGED_KINDS}
    # A vector the certified endpoint did not run for a fact its URL did not state (not known, or one an
    # endpoint cannot state: config_default) may run on the catalog's target, which states its facts:
    # not comparable, and said. A fact the URL stated is the target's too (catalog_target): compared.
    unstated = {_key(r, bundle_name) for r in bundle_rows
                if r["outcome"] == "not_applicable" and (m := _NEEDS.match(r.get("message") or ""))
                and m.group(1) not in stated}
    # A vector the bundle did not judge for the certifier's own reasons claims nothing a rerun could
    # contradict on another broker: one not applicable because the certifier did not allow the suite to
    # make users on the endpoint (--allow-users), or a setup the endpoint could not give (a precondition
    # error, e.g. no management API to find a server-named queue with). Not compared on a catalog target,
    # and said; a rerun against the endpoint itself, given as certify was given it (`same_broker`), must
    # give them again: a failure rewritten as a setup error is a difference there.
    if not same_broker:
        unstated |= {_key(r, bundle_name) for r in bundle_rows
                     if (r["outcome"] == "not_applicable" and (r.get("message") or "").startswith(MADE_USERS))
                     or (r["outcome"] == "error" and r.get("error_kind") == "precondition")}
    # A timing-dependent vector whose row (either side's) failed or was not judged at a step before its
    # timing (certify/timing.py strict_part) is compared strictly, as a reproducible one.
    early = {_key(r, name) for rows, name in ((bundle_rows, bundle_name), (rerun_rows, rerun_name))
             for r in rows if r["vector_id"] in timed and r["outcome"] != "pass"
             and timing.before_timing(r.get("failed_step"), strict.get(r["vector_id"], (False, 0)))}
    mine, again = group(bundle_rows, bundle_name), group(rerun_rows, rerun_name)
    res = {"same": 0, "differ": [], "timing": [], "unjudged": []}
    for key in sorted(set(mine) | set(again)):
        theirs = again.get(key, ["not run"])
        if key not in mine:   # a row the bundle lacks is as much a difference as one it changed
            mine[key] = ["no row"]
        if theirs == mine[key]:
            res["same"] += 1
        elif key in lost or key in unstated:
            res["unjudged"].append((*key, mine[key], theirs))
        else:
            res["timing" if key[0] in timed and key not in early else "differ"].append((*key, mine[key], theirs))
    return res


def _server_check(cert: dict, rows: list[dict], name: str) -> None:
    """An endpoint rerun must be of the product and version the certificate names."""
    server = cert["implementation"].get("server") or {}
    for r in rows:
        if r["implementation"]["name"] != name:
            continue
        prov = r["implementation"].get("provenance") or {}
        said = (prov.get("server_product"), prov.get("server_version"))
        if said != (server.get("product"), server.get("version")):
            raise CannotRerun(f"the endpoint now says it is {said[0]} {said[1]}; the certificate is of "
                              f"{server.get('product')} {server.get('version')}: no rerun of that product")
        return


def codec_problem(cert: dict, codec: str | None) -> str | None:
    """Why `codec` (NAME=COMMAND, or None) cannot rerun this certificate's codec, or cannot be given
    for a broker's; None when it can (or neither is a codec)."""
    impl = cert["implementation"]
    if "shim" not in impl:
        return None if codec is None else f"--codec: the certificate is of {impl['kind']} {impl['name']}, not a codec's"
    shown = f"--codec {impl['name']}='{impl['shim']}'"
    if codec is None:
        return (f"cannot rerun: {impl['name']} is a codec certified through its shim, and a bundle's command is never "
                f"run by itself: give it again, `./mqconform verify --rerun {shown} BUNDLE` (the certificate's command)")
    name = codec.partition("=")[0].strip()
    if name != impl["name"]:
        return f"--codec {codec!r}: the certificate is of {impl['name']!r}, not {name!r} ({shown})"
    return None


def rerun(folder: Path, how: str = "auto", endpoint: str | None = None, netrc_file: str | None = None,
          out=None, codec: str | None = None) -> int:
    out = out or sys.stdout
    cert = json.loads((folder / bundle.CERTIFICATE_JSON).read_text(encoding="utf-8"))
    rows = [json.loads(ln) for ln in (folder / bundle.RESULTS).read_text(encoding="utf-8").splitlines() if ln.strip()]
    if "shim" in cert["implementation"] or codec is not None:
        return _rerun_codec(folder, cert, rows, codec, out)
    try:
        if (why := checkout_problem(cert)) is not None:
            raise CannotRerun(f"cannot rerun: {why}")
        target = catalog_target(cert) if how in ("auto", "catalog") and not endpoint else None
        if target is None and how == "catalog":
            server = cert["implementation"].get("server") or {}
            raise CannotRerun(f"cannot rerun: the catalog has no {server.get('product')} {server.get('version')} "
                              "with the facts the endpoint stated (`--rerun endpoint` reruns against the endpoint)")
        if target is None:
            endpoint = endpoint_url(cert, endpoint)
        where = f"catalog target {target}" if target else f"endpoint {cert['implementation']['name']}"
        print(f"rerun: {len(rows)} row(s) of {cert['implementation']['name']} again, against {where}", file=out, flush=True)
        with tempfile.TemporaryDirectory(prefix="mqconform-rerun-") as tmp:
            name, again = _run(cert, folder, Path(tmp), target, endpoint, netrc_file, out)
        if not again:
            raise CannotRerun("the rerun wrote no row", EXIT_NOT_RUN)
        if all(r["outcome"] == "error" and r.get("error_kind") == "target" for r in again):
            raise CannotRerun(f"the rerun could not use {where}: {again[0]['message'].splitlines()[0]}", EXIT_NOT_RUN)
        if target is None:
            _server_check(cert, again, name)
    except CannotRerun as exc:
        print(f"verify --rerun: {exc}", file=sys.stderr)
        return exc.code
    return _report(folder, cert, rows, again, name, where,
                   set(stated_facts(cert)) if target else set(_all_facts()), out, same_broker=target is None)


def _rerun_codec(folder: Path, cert: dict, rows: list[dict], codec: str | None, out) -> int:
    """A codec's rerun: its vectors through the shim command given again, the same version asked of it."""
    impl = cert["implementation"]
    try:
        if (why := codec_problem(cert, codec)) is not None:
            raise CannotRerun(why)
        if (why := checkout_problem(cert)) is not None:
            raise CannotRerun(f"cannot rerun: {why}")
        where = f"codec {impl['name']} through the shim `{codec.partition('=')[2].strip()}`"
        print(f"rerun: {len(rows)} row(s) of {impl['name']} again, {where}", file=out, flush=True)
        with tempfile.TemporaryDirectory(prefix="mqconform-rerun-") as tmp:
            name, again = _run(cert, folder, Path(tmp), None, None, None, out, codec=codec)
        mine = [r for r in again if r["implementation"]["name"] == name]
        if not mine:
            raise CannotRerun("the rerun wrote no row of the codec", EXIT_NOT_RUN)
        if all(r["outcome"] == "error" and r.get("error_kind") == "precondition" for r in mine):
            raise CannotRerun(f"the rerun could not use the shim: {mine[0]['message'].splitlines()[0]}", EXIT_NOT_RUN)
        versions = sorted({str(r["implementation"].get("version")) for r in mine})
        if versions != [str(impl["version"])]:
            raise CannotRerun(f"the shim now says {name} is version {', '.join(versions)}; the certificate is of "
                              f"version {impl['version']}: no rerun of that implementation")
    except CannotRerun as exc:
        print(f"verify --rerun: {exc}", file=sys.stderr)
        return exc.code
    return _report(folder, cert, rows, mine, name, where, set(), out)


def _report(folder: Path, cert: dict, rows: list[dict], again: list[dict], name: str, where: str, stated, out,
            same_broker: bool = False) -> int:
    """The bundle's rows and the rerun's compared, printed, and the exit code."""
    split = timing.split({r["vector_id"] for r in rows})
    timed = split["timing_dependent"]
    res = compare(rows, cert["implementation"]["name"], again, name, timed, stated=stated, strict=split["strict"],
                  same_broker=same_broker)
    lost = {_key(r, name) for r in again if r["outcome"] == "error" and r.get("error_kind") in UNJUDGED_KINDS}
    print(f"rerun: {res['same']} vector x implementation outcome(s) the same, {len(res['differ'])} reproducible "
          f"one(s) differ, {len(res['timing'])} timing-dependent one(s) differ (reported, not failing), "
          f"{len(res['unjudged'])} not comparable (not judged in the rerun, or not run on the endpoint for want "
          "of a fact it did not state)", file=out)
    for label, items in (("DIFFERS", res["differ"]), ("timing ", res["timing"]), ("unjudged", res["unjudged"])):
        for vid, impl, mine, theirs in items:
            why = f"  [{'; '.join(timed[vid])}]" if vid in timed else ""
            print(f"  {label} {vid} ({impl}): the bundle says {'/'.join(mine)}, the rerun gives {'/'.join(theirs)}{why}",
                  file=out)
    if res["differ"]:
        print(f"verify --rerun: {folder} is NOT reproduced: {len(res['differ'])} reproducible outcome(s) differ", file=out)
        return EXIT_DIFFERS
    if any(item[:2] in lost for item in res["unjudged"]):
        print("verify --rerun: vector(s) could not be judged in the rerun (listed): the rerun is incomplete; "
              "run it again", file=out)
        return EXIT_NOT_RUN
    print(f"verify --rerun: {folder} reproduced against {where}", file=out)
    return EXIT_SAME
