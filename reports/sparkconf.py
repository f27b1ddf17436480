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
    # A build's JVM lives for seconds, and most of what it runs, it runs a few times: the first
    # compiler tier (C1) alone costs half the CPU of both tiers there. Its default code cache (48 MB)
    # fills during a build and makes the JVM compile the same code again: the usual 240 MB instead.
    # A class data sharing archive is added when there is one (reports/class_data_archive.py).
    "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={LOG4J.as_uri()} "
                                     "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m",
    # Generated code is compiled once per distinct expression and kept in a cache of 100 by default,
    # fewer than a build generates: each build would compile most of it again.
    "spark.sql.codegen.cache.maxEntries": "1000",
    # Rebuilding a Delta table's state from its log is one shuffle per table read: the store's
    # logs are small (one commit per build), and 50 partitions (the default) cost seconds locally.
    "spark.databricks.delta.snapshotPartitions": "4",
}

JAVA_OPTIONS = "spark.driver.extraJavaOptions"
