#!/usr/bin/env python3
"""Measure the provisioning layer: engine, base images, broker images (first and cached),
and each broker's start-to-ready time. Prints one JSON object.

    python scripts/measure-provisioning.py            # uses what is cached
    python scripts/measure-provisioning.py --cold     # removes mqconform images first
    python scripts/measure-provisioning.py --starts 3 --targets rabbitmq-4.0.5 garagemq
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fixtures.provision import catalog, containers, engine, images  # noqa: E402
from fixtures.verdict.records import new_run_id  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cold", action="store_true", help="remove mqconform images (bases included) first")
    ap.add_argument("--starts", type=int, default=2)
    ap.add_argument("--targets", nargs="*")
    args = ap.parse_args()
    out: dict = {}
    t0 = time.monotonic()
    eng = engine.ensure()
    out["engine"] = {"kind": eng.kind, "version": eng.version, "ensure_s": round(time.monotonic() - t0, 2)}
    cat = catalog.load()
    names = args.targets or cat.names()
    if args.cold:
        p = subprocess.run([*eng.cli, "images", "--format", "{{.Repository}}:{{.Tag}}"], env=eng.cli_env(),
                           capture_output=True, text=True, check=True)
        refs = [r for r in p.stdout.split() if "mqconform/" in r]
        if refs:
            subprocess.run([*eng.cli, "rmi", "-f", *refs], env=eng.cli_env(), capture_output=True, check=False)
    out["base"] = {}
    for suite in sorted({cat.get(n).base for n in names}):
        t = time.monotonic()
        images.base_image(eng, suite)
        first = time.monotonic() - t
        t = time.monotonic()
        images.base_image(eng, suite)
        out["base"][suite] = {"first_s": round(first, 2), "cached_s": round(time.monotonic() - t, 2)}
    out["targets"] = {}
    for n in names:
        tgt = cat.get(n)
        t = time.monotonic()
        img = images.ensure_image(tgt, eng)
        first = time.monotonic() - t
        t = time.monotonic()
        images.ensure_image(tgt, eng)
        cached = time.monotonic() - t
        starts = []
        for _ in range(args.starts):
            t = time.monotonic()
            rt = containers.start(n, run_id=new_run_id())
            starts.append({"ready_s": round(rt.ready_s, 2), "start_call_s": round(time.monotonic() - t, 2)})
            rt.stop()
        out["targets"][n] = {"image": img.ref, "image_first_s": round(first, 2), "image_built": img.built_s is not None,
                             "image_cached_s": round(cached, 2), "starts": starts}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
