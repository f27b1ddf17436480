"""One place that starts Spark: lean and quiet on a laptop, reachable on a cluster.

`reports build` usually runs on a laptop or a CI box with two cores, where
Spark's defaults (a web UI, INFO logging, a progress bar) cost seconds and bury
the output. A cluster run passes --master and, when needed, --conf to override
any of these. Rules kept here:
  * A local master binds the driver to loopback. A master elsewhere gets a
    driver address that its executors can reach: spark.driver.host if given,
    else the address this host uses toward the master; never a loopback address
    unless the master itself is on loopback.
  * Waiting for executors is bounded, and a timeout says what to check.
  * Shuffle parallelism follows the cluster's cores and the input's size.
  * Delta Lake is on the class path (reports/spark/deltajars.py).
  * The driver maps a class data sharing archive of Spark's classes when one was made
    (reports/spark/class_data_archive.py); it changes how fast classes load, never what a build computes.
"""
from __future__ import annotations

import ipaddress
import math
import os
import socket
import time
import warnings
from urllib.parse import urlparse

from reports.spark.sparkconf import CLUSTER_SNAPSHOT_PARTITIONS, DEFAULTS, JAVA_OPTIONS, java_options

EXECUTOR_WAIT_S = float(os.environ.get("MQCONFORM_EXECUTOR_WAIT_S", "60"))


class ClusterError(RuntimeError):
    """The cluster cannot run the build: no reachable driver address, or no executor in time."""


def is_local(master: str | None) -> bool:
    return master is None or master == "local" or master.startswith("local[") or master.startswith("local-")


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
    except (OSError, ValueError):
        return False


def driver_host(master: str, conf: dict[str, str]) -> str:
    """The address executors of `master` reach the driver at (see the module's rules)."""
    given = conf.get("spark.driver.host") or os.environ.get("SPARK_LOCAL_IP")
    url = urlparse(master.split(",")[0] if "://" in master else "")
    mhost, mport = url.hostname, url.port or 7077
    if given:
        if _loopback(given) and not (mhost and _loopback(mhost)):
            raise ClusterError(f"the driver address {given} is a loopback address, which executors of {master} "
                               "cannot reach; give an address of this host they can reach: "
                               "--conf spark.driver.host=ADDRESS")
        return given
    if not mhost:
        raise ClusterError(f"cannot tell which address of this host the executors of {master} reach: "
                           "give it with --conf spark.driver.host=ADDRESS")
    try:  # a UDP "connection" sends nothing: it only asks the kernel for the route's source address
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((socket.gethostbyname(mhost), mport))
            host = s.getsockname()[0]
    except OSError as exc:
        raise ClusterError(f"no route to the master {master} ({exc}); give the driver's address with "
                           "--conf spark.driver.host=ADDRESS") from None
    if _loopback(host) and not _loopback(mhost):
        raise ClusterError(f"the route to {master} leaves from a loopback address ({host}); give an address "
                           "executors can reach with --conf spark.driver.host=ADDRESS")
    return host


def start(master: str | None = None, conf: dict[str, str] | None = None, app: str = "mqconform-reports",
          large_input: bool = False):
    """A SparkSession; reuses one that is already running in this process (tests). `large_input`
    (see large_input()) gives the driver's JVM both JIT tiers (reports/spark/sparkconf.py java_options)."""
    # Imported here so that `python -m reports gate` never pays for pyspark.
    # pyspark warns at import about pandas 3, which the reports never hand it.
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    from pyspark.sql import SparkSession

    from reports.spark import build_phases, deltajars
    from reports.spark import class_data_archive as cds

    conf = dict(conf or {})
    settings = {**DEFAULTS, **deltajars.spark_conf(), **build_phases.spark_conf(),
                JAVA_OPTIONS: java_options(large_input)}
    if options := cds.java_options():
        settings[JAVA_OPTIONS] = f"{settings[JAVA_OPTIONS]} {options}"
    if is_local(master):
        # Spark resolves the driver's own host name; on machines whose name maps to a
        # loopback address it warns on every start. Loopback is what a local master wants.
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    else:
        host = driver_host(master, conf)
        settings.update(CLUSTER_SNAPSHOT_PARTITIONS)
        settings["spark.driver.host"] = host
        settings["spark.driver.bindAddress"] = conf.get("spark.driver.bindAddress", host)
    builder = SparkSession.builder.appName(app).master(master or "local[*]")
    for key, value in {**settings, **conf}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def executors(spark) -> int:
    """Executors registered now (the driver not counted)."""
    return max(0, len(spark.sparkContext._jsc.sc().statusTracker().getExecutorInfos()) - 1)


def wait_for_executors(spark, timeout_s: float = EXECUTOR_WAIT_S) -> int:
    """Block until a non-local session has an executor; ClusterError after timeout_s, saying what to check."""
    sc = spark.sparkContext
    if is_local(sc.master):
        return 0
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if sc._jsc.sc().isStopped():
            raise ClusterError(f"the master {sc.master} did not accept the application (unreachable, or it "
                               "refused it); check the master's address and log")
        n = executors(spark)
        if n:
            return n
        time.sleep(0.25)
    conf = sc.getConf()
    raise ClusterError(
        f"no executor registered within {timeout_s:.0f}s on {sc.master}. Either no worker has "
        f"{conf.get('spark.executor.cores', '1')} free core(s) and {conf.get('spark.executor.memory', '1g')} "
        f"of memory, or the executors it starts cannot reach the driver at "
        f"{conf.get('spark.driver.host')}:{conf.get('spark.driver.port', '?')} (set it with "
        "--conf spark.driver.host=ADDRESS; see the worker's log). MQCONFORM_EXECUTOR_WAIT_S sets the wait.")


# Below this much input, whole-stage code generation costs more than it saves:
# compiling the generated Java takes seconds on a cold two-core JVM, and halves
# the time of a build over a few thousand records. Above it, it pays off.
SMALL_INPUT_BYTES = 64 * 1024 * 1024
CODEGEN = "spark.sql.codegen.wholeStage"
SHUFFLE = "spark.sql.shuffle.partitions"
FILE_SPLIT = "spark.sql.files.maxPartitionBytes"
MIN_SPLIT_BYTES = 4 * 1024 * 1024   # Spark's cost of opening a file, in bytes (spark.sql.files.openCostInBytes)
# Bytes of input per shuffle partition before adaptive execution coalesces them.
BYTES_PER_PARTITION = 64 * 1024 * 1024


def large_input(text_bytes: int | None) -> bool:
    """Whether a build reads enough to want the JVM's second JIT tier: as much as SMALL_INPUT_BYTES as JSON
    Lines (reports/engine/read.py local_text_bytes; None, a size not known before Spark starts, is not large)."""
    return text_bytes is not None and text_bytes >= SMALL_INPUT_BYTES


def partitions(spark, nbytes: int) -> int:
    """Two tasks per core of the cluster (executors' cores, or the local threads), more for large inputs."""
    return max(2 * spark.sparkContext.defaultParallelism, math.ceil(nbytes / BYTES_PER_PARTITION))


def tune_for_input(spark, nbytes: int, conf: dict[str, str] | None = None, text_bytes: int | None = None,
                   split_inputs: bool = False) -> int:
    """Code generation and shuffle parallelism by input size, unless --conf set them; returns the partitions.
    Code generation goes by `text_bytes` (the inputs' size as JSON Lines, reports/engine/read.py Inputs.text_bytes)
    when given: Parquet holds some ten times the records per byte, and the cost of evaluating
    expressions without generated code grows with the records."""
    conf = conf or {}
    if CODEGEN not in conf:
        spark.conf.set(CODEGEN, "false" if (nbytes if text_bytes is None else text_bytes) < SMALL_INPUT_BYTES else "true")
    n = int(conf[SHUFFLE]) if SHUFFLE in conf else partitions(spark, nbytes)
    spark.conf.set(SHUFFLE, str(n))
    if split_inputs and FILE_SPLIT not in conf:
        # As many input tasks as shuffle partitions: a replacing build that stores its rows unshuffled
        # (reports/engine/store.py stored_rows) caches and writes them in the input's partitions. Only a build
        # that reads nothing else asks for it: the setting applies to every file read of the session.
        spark.conf.set(FILE_SPLIT, str(max(MIN_SPLIT_BYTES, math.ceil(nbytes / n))))
    return n


def parse_conf(pairs: list[str] | None) -> dict[str, str]:
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--conf expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = value
    return out
