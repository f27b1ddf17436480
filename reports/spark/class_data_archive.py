"""A class data sharing archive for the driver's JVM: Spark's classes parsed and verified once.

A build's JVM lives for seconds, and loading Spark's classes (tens of thousands, from jars) is a
good part of its CPU: with the archive a one-run build on two cores takes about a quarter less
wall time. The archive is the JVM's own dynamic CDS (JDK 13+): made once by a throwaway build
that dumps the classes it loaded at exit (`-XX:ArchiveClassesAtExit`), then mapped by every
build (`-XX:SharedArchiveFile`). Rules kept here:
  * It lives beside the virtualenv's packages, under a name made of what it depends on (the
    JVM, pyspark and delta-spark): another JDK or another pyspark finds no archive and makes
    none implicitly; the JVM checks the rest (its own build, the class path) and runs without
    the archive when they differ, silently (CDS logging off).
  * It never changes what a build computes: the same classes, loaded from a different place.
  * Making it is optional: scripts/bootstrap.sh runs `python -m reports.spark.class_data_archive`; a failure there
    only costs speed. MQCONFORM_SPARK_CDS=0 turns its use off.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from reports.paths import ROOT
from reports.spark.sparkconf import java_options as driver_options

FOLDER = Path(os.environ.get("MQCONFORM_SPARK_CDS_DIR", Path(sys.prefix) / "spark-cds"))
# Silence CDS's own messages: an archive the JVM cannot use (another build of it) is not an error.
QUIET = "-Xlog:cds*=off"


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    return os.path.realpath(java) if java and os.path.exists(java) else None


def _stamp(path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_size, int(st.st_mtime)


def archive() -> Path | None:
    """Where this JVM's and these packages' archive is (whether made or not); None without Java."""
    java = _java()
    if java is None:
        return None
    import pyspark

    from reports.spark import deltajars

    # The JVM checks the class path's jars itself (and ignores an archive they no longer match);
    # their folders' times are in the name so that such a change gets a new archive.
    jars = [Path(pyspark.__file__).parent / "jars", deltajars.IVY]
    key = json.dumps([java, *_stamp(java), metadata.version("pyspark"), metadata.version("delta-spark"),
                      *[_stamp(p) for p in jars if p.exists()]])
    return FOLDER / f"driver-{hashlib.sha256(key.encode()).hexdigest()[:16]}.jsa"


def java_options() -> str:
    """JVM options that map the archive, or "" when there is none (or its use is off)."""
    if os.environ.get("MQCONFORM_SPARK_CDS", "1") == "0":
        return ""
    where = archive()
    return f"-XX:SharedArchiveFile={where} {QUIET}" if where is not None and where.is_file() else ""


def make() -> Path:
    """Make the archive (if missing) with a throwaway build: a replacing build of synthetic records,
    then the same records accumulated (MERGE, change feed), so that both paths' classes are in it."""
    where = archive()
    if where is None:
        raise RuntimeError("no java on PATH or in JAVA_HOME")
    if where.is_file():
        return where
    FOLDER.mkdir(parents=True, exist_ok=True)
    for old in [*FOLDER.glob("*.tmp"), *FOLDER.glob("driver-*.jsa")]:   # a stopped attempt's; another key's
        old.unlink(missing_ok=True)
    tmp = where.with_suffix(f".{os.getpid()}.tmp")
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from reports.engine import build, early_session\n"
        "from reports.spark import session\n"
        "d = Path(sys.argv[1]); f = d / 'results.jsonl'\n"
        "f.write_text(''.join(json.dumps(r) + '\\n' for r in early_session.synthetic_records()), encoding='utf-8')\n"
        "spark = session.start(conf={'spark.driver.extraJavaOptions': sys.argv[2]})\n"
        "for acc in (False, True):\n"
        "    assert build.run([str(f)], str(d / 'out'), spark=spark, accumulate=acc, quiet=True, registry='none') == 0\n"
        "from pyspark import SparkContext\n"
        "proc = SparkContext._gateway.proc\n"
        "spark.stop()\n"
        "proc.stdin.close()\n"
        "proc.wait(300)  # the JVM writes the archive as it exits\n")
    options = f"{driver_options()} -XX:ArchiveClassesAtExit={tmp} {QUIET}"
    with tempfile.TemporaryDirectory(prefix="mqconform-cds-") as d:
        env = {**os.environ, "MQCONFORM_SPARK_CDS": "0"}
        subprocess.run([sys.executable, "-c", script, d, options], check=True, env=env, timeout=600,
                       cwd=ROOT, stdout=subprocess.DEVNULL)
    if not tmp.is_file():
        raise RuntimeError(f"the JVM wrote no archive at {tmp}")
    tmp.replace(where)
    return where


if __name__ == "__main__":
    print(make())
