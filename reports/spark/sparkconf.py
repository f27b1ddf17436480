"""The settings every Spark driver of the reports starts with: read by the session that starts a build
and by the class data sharing archive's throwaway build, which must start the same JVM."""
from __future__ import annotations

import os
from pathlib import Path

LOG4J = Path(__file__).with_name("log4j2.properties")

DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.adaptive.enabled": "true",
    # Dates of runs are UTC dates, whatever the machine's zone.
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": os.environ.get("MQCONFORM_SPARK_DRIVER_MEMORY", "2g"),
    # Its default code cache (48 MB) fills during a build and makes the JVM compile the same code
    # again: the usual 240 MB instead. The JIT's tiers: java_options(). A class data sharing archive
    # is added when there is one (reports/spark/class_data_archive.py).
    "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={LOG4J.as_uri()} -XX:ReservedCodeCacheSize=240m",
    # Generated code is compiled once per distinct expression and kept in a cache of 100 by default,
    # fewer than a build generates: each build would compile most of it again.
    "spark.sql.codegen.cache.maxEntries": "1000",
    # Rebuilding a Delta table's state from its log is one shuffle per table read: the store's
    # logs are small (one commit per build, a checkpoint every ten), and 50 partitions (the default)
    # cost seconds locally; one partition is a tenth less CPU per build than four (measured: eleven
    # builds of tests/reports/test_reports_incremental.py, 133 against 151 CPU-s of the JVM). On a
    # cluster a store's log is read by executors: CLUSTER_SNAPSHOT_PARTITIONS there.
    "spark.databricks.delta.snapshotPartitions": "1",
}

CLUSTER_SNAPSHOT_PARTITIONS = {"spark.databricks.delta.snapshotPartitions": "4"}
JAVA_OPTIONS = "spark.driver.extraJavaOptions"
# A build over a few runs lives for seconds, and most of what it runs, it runs a few times: the
# JIT's first tier (C1) alone costs half the CPU of both tiers there. A build over large results
# (reports/spark/session.py large_input) runs the same loops over millions of records, where the second
# tier's code (C2) halves the tasks' CPU, more than its compilations cost.
FIRST_TIER_ONLY = "-XX:TieredStopAtLevel=1"


def java_options(large_input: bool = False) -> str:
    """The driver's JVM options: both JIT tiers for a large input, else the first only."""
    return DEFAULTS[JAVA_OPTIONS] + ("" if large_input else f" {FIRST_TIER_ONLY}")
