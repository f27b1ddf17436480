"""Delta Lake's jars for Spark: resolved once from Maven Central, then given to every session by path.

The jars must match both the `delta-spark` Python package (its version) and
pyspark (the Spark minor version in the artifact name), exactly as
`delta.pip_utils.configure_spark_with_delta_pip` spells the coordinate. They are
resolved by Spark's own Maven client (Ivy) into a folder of the virtualenv, and
the list of resolved files is kept in a manifest beside them, so a build starts
without asking any registry and every executor gets the same files from the
driver (`spark.jars`).

    python -m reports.spark.deltajars          # resolve if needed (scripts/bootstrap.sh runs this)
"""
from __future__ import annotations

import os
import sys
from importlib import metadata
from pathlib import Path

# Beside the virtualenv's packages: a new virtualenv (a new pyspark) resolves anew.
IVY = Path(os.environ.get("MQCONFORM_SPARK_IVY", Path(sys.prefix) / "spark-ivy"))
SCALA = "2.13"


def coordinate() -> str:
    """Maven coordinate of the Delta jar matching the installed delta-spark and pyspark."""
    import pyspark

    spark_mm = ".".join(pyspark.__version__.split(".")[:2])
    return f"io.delta:delta-spark_{spark_mm}_{SCALA}:{metadata.version('delta-spark')}"


def _manifest() -> Path:
    return IVY / (coordinate().replace(":", "_") + ".jars")


def jars() -> list[str] | None:
    """Local paths of the resolved jars, or None when they were not resolved (or went missing)."""
    m = _manifest()
    if not m.is_file():
        return None
    paths = [line for line in m.read_text(encoding="utf-8").splitlines() if line.strip()]
    return paths if paths and all(Path(p).is_file() for p in paths) else None


def spark_conf() -> dict[str, str]:
    """Settings that put Delta on a session's class path: by path when resolved, else by coordinate."""
    conf = {"spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
            "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog"}
    found = jars()
    if found:
        conf["spark.jars"] = ",".join(found)
    else:  # resolved at session start (needs Maven Central), into the same folder
        conf["spark.jars.packages"] = coordinate()
        conf["spark.jars.ivy"] = str(IVY)
    return conf


def fetch() -> list[str]:
    """Resolve the jars with Spark's Ivy into IVY and write the manifest; returns the jar paths."""
    found = jars()
    if found:
        return found
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    IVY.mkdir(parents=True, exist_ok=True)
    spark = (SparkSession.builder.master("local[1]").appName("mqconform-deltajars")
             .config("spark.ui.enabled", "false")
             .config("spark.jars.packages", coordinate()).config("spark.jars.ivy", str(IVY))
             .getOrCreate())
    try:
        resolved = spark.sparkContext.getConf().get("spark.jars", "")
    finally:
        spark.stop()
    paths = [p.removeprefix("file://").removeprefix("file:") for p in resolved.split(",") if p]
    if not paths or not all(Path(p).is_file() for p in paths):
        raise RuntimeError(f"Spark did not resolve {coordinate()} into {IVY}")
    tmp = _manifest().with_suffix(".tmp")
    tmp.write_text("".join(p + "\n" for p in paths), encoding="utf-8")
    tmp.replace(_manifest())
    return paths


if __name__ == "__main__":
    for p in fetch():
        print(p)
