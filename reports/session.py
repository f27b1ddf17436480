"""One place that starts Spark, lean and quiet.

`reports build` is a command-line tool that usually runs on a laptop or a CI
box with two cores, where Spark's defaults (a web UI, 200 shuffle partitions,
INFO logging, a progress bar) cost seconds and bury the output. A cluster run
passes --master and, when needed, --conf to override any of these.
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path

LOG4J = Path(__file__).with_name("log4j2.properties")

DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    # The aggregates are small; few partitions keep local runs fast. AQE
    # coalesces further and a cluster run can raise it with --conf.
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.adaptive.enabled": "true",
    # Dates of runs are UTC dates, whatever the machine's zone.
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": os.environ.get("MQCONFORM_SPARK_DRIVER_MEMORY", "2g"),
    "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={LOG4J.as_uri()}",
}


def start(master: str | None = None, conf: dict[str, str] | None = None, app: str = "mqconform-reports"):
    """A SparkSession; reuses one that is already running in this process (tests)."""
    # Imported here so that `python -m reports gate` never pays for pyspark.
    # pyspark warns at import about pandas 3, which the reports never hand it.
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    from pyspark.sql import SparkSession

    # Spark resolves the driver's own host name; on machines whose name maps
    # to a loopback address it warns on every start. Loopback is what we want.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.appName(app).master(master or "local[*]")
    for key, value in {**DEFAULTS, **(conf or {})}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


# Below this much input, whole-stage code generation costs more than it saves:
# compiling the generated Java takes seconds on a cold two-core JVM, and halves
# the time of a build over a few thousand records. Above it, it pays off.
SMALL_INPUT_BYTES = 64 * 1024 * 1024
CODEGEN = "spark.sql.codegen.wholeStage"


def tune_for_input(spark, nbytes: int, conf: dict[str, str] | None = None) -> None:
    """Switch whole-stage codegen by input size, unless --conf set it explicitly."""
    if CODEGEN in (conf or {}):
        return
    spark.conf.set(CODEGEN, "false" if nbytes < SMALL_INPUT_BYTES else "true")


def parse_conf(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--conf expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = value
    return out
