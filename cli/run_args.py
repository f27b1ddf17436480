"""`./mqconform run`'s arguments, read before anything heavy starts.

The rule: what can be refused from the arguments alone is refused here, as a usage error (exit 2)
naming the option and the value, before scripts/conformance.sh starts the image build, Spark or
pytest (each of which costs seconds to minutes before pytest itself would refuse the same value):
a --target glob that matches no catalog target, an --expectations file that cannot be read or is
malformed (FILE:LINE and field, fixtures/verdict/expectations.py), a --shard that is not I/N or has
no --sharded-run. Everything else stays pytest's
to check. pytest takes no abbreviated option (allow_abbrev=False), so `--target X` and
`--target=X` are the only spellings to read.

Paths the run reads (--expectations, --netrc-file, --vectors-dir) are made absolute here: the
script runs from the project's root, and ./mqconform takes paths from where it is run.
"""
from __future__ import annotations

import os
from fnmatch import fnmatchcase

PATH_OPTIONS = ("--expectations", "--netrc-file", "--vectors-dir")


def values(argv: list[str], option: str) -> list[str]:
    """Every value of a pytest option in argv (`--opt V` or `--opt=V`), up to a `--`."""
    out = []
    it = iter(argv)
    for a in it:
        if a == "--":
            break
        if a == option:
            v = next(it, None)
            if v is not None:
                out.append(v)
        elif a.startswith(option + "="):
            out.append(a[len(option) + 1:])
    return out


def absolute_paths(argv: list[str], cwd: str | None = None) -> list[str]:
    """argv with the values of PATH_OPTIONS made absolute against cwd (a URL-like value is kept)."""
    cwd = cwd or os.getcwd()

    def absolute(v: str) -> str:
        return v if "://" in v or not v else os.path.normpath(os.path.join(cwd, os.path.expanduser(v)))

    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            out += argv[i:]
            break
        if a in PATH_OPTIONS and i + 1 < len(argv):
            out += [a, absolute(argv[i + 1])]
            i += 2
            continue
        opt, eq, v = a.partition("=")
        out.append(f"{opt}={absolute(v)}" if eq and opt in PATH_OPTIONS else a)
        i += 1
    return out


def problem(argv: list[str]) -> str | None:
    """Why run's arguments cannot make a run (a usage error), or None. Reads the catalog and the
    expectations files only: well under a second."""
    targets = values(argv, "--target")
    if targets:
        from fixtures.provision.catalog import CatalogError, load
        from fixtures.run.targets import catalog_targets

        try:
            known = [t.name for t in catalog_targets(load())]
        except CatalogError as exc:
            return str(exc)
        unknown = [g for g in targets if not any(fnmatchcase(n, g) for n in known)]
        if unknown:   # the words of fixtures/run/targets.py select(), which pytest would say later
            return (f"--target {', '.join(repr(g) for g in unknown)} matches no target "
                    f"(known: {', '.join(known)}; `./mqconform images --list`)")
    shard, sharded = values(argv, "--shard"), values(argv, "--sharded-run")
    if shard or sharded:
        from fixtures.run.shards import parse
        # the words the plugin would say (fixtures/plugin/run.py), before the images and Spark start; the
        # environment's id counts only with --shard
        run = (sharded[-1] if sharded else None) or (os.environ.get("MQCONFORM_SHARDED_RUN") if shard else None)
        try:
            parse(shard[-1] if shard else None, run)
        except ValueError as exc:
            return str(exc)
        if shard and os.environ.get("MQCONFORM_RUN_ID"):
            return "--shard: MQCONFORM_RUN_ID names one run, and each shard is a run of its own: leave it unset"
    expectations = values(argv, "--expectations")
    if expectations:
        from fixtures.verdict.expectations import ExpectationsError, load_all

        missing = [p for p in expectations if not os.path.exists(p)]
        if missing:
            return f"--expectations {', '.join(missing)}: no such file or folder"
        try:
            load_all(expectations)
        except ExpectationsError as exc:
            return f"--expectations: {exc}"
    return None
