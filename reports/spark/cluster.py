"""Paths a cluster's executors must see: checked before a build reads or writes anything.

On a master that is not local, executors on other hosts read the inputs and write the
store. A path on this machine's own disk (a bare path, or file:) is only usable when every
executor mounts the same storage at the same place; a task on an executor is asked to
read a file the driver has just written there (the out folder) or reads the first bytes
of an input, and the build is refused, naming the path, when it cannot. Hadoop URIs
(hdfs:, s3a:, ...) are taken as shared.
"""
from __future__ import annotations

import uuid
from urllib.parse import urlparse

from ..paths import is_local_path


def _seen_by_executor(spark, uri: str, expect: str | None) -> bool:
    """True when a task on an executor reads `uri` (and finds `expect` in its first line, when given)."""
    try:
        rows = spark.read.text(uri).limit(1).collect()
    except Exception:  # noqa: BLE001 - FileNotFoundException in a task, or the path is gone: not seen
        return False
    return expect is None or (bool(rows) and rows[0][0] == expect)


def unseen(spark, out_dir: str, inputs: list[str]) -> list[str]:
    """The local paths among the out folder and the inputs (files) that executors cannot see."""
    from pathlib import Path

    missing = []
    if is_local_path(out_dir):
        folder = Path(urlparse(out_dir).path if out_dir.startswith("file:") else out_dir)
        folder.mkdir(parents=True, exist_ok=True)
        token = uuid.uuid4().hex
        probe = folder / f"mqconform-probe-{token}.txt"  # Spark skips names starting with . or _
        probe.write_text(token + "\n", encoding="utf-8")
        try:
            if not _seen_by_executor(spark, probe.as_uri(), token):
                missing.append(str(folder))
        finally:
            probe.unlink(missing_ok=True)
    for uri in inputs:
        if is_local_path(uri) and not _seen_by_executor(spark, uri, None):
            missing.append(uri)
    return missing


def refusal(master: str, missing: list[str]) -> str:
    return (f"the executors of {master} cannot see {', '.join(missing)}: a path on this machine's disk works on "
            "a cluster only when every executor mounts the same storage at the same place. Give the results and "
            "--out on shared storage (an NFS mount everywhere, hdfs://, s3a://), or build with --master local[*]")
