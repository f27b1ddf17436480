"""`reports build --wait-for FILE`: the Spark session starts, and warms up, before the results are complete.

The main job (scripts/conformance.sh) starts such a build when the vectors start and creates FILE
once pytest has ended; the build then reads the results and writes the report exactly as a one-shot
`reports build` does (reports/engine/build.py), only without paying for the JVM's start and first compiles.
Rules kept here:
  * Warming up is a throwaway build (the same code: JSON read, checks, Delta commits, aggregation,
    rendering) of synthetic records in a temporary folder, removed afterwards; nothing under --out
    is touched before FILE appears.
  * Every wait is bounded: FILE must appear within the timeout, and the process that started the
    build must still be there; otherwise nothing is built and the exit status is 3, with the reason.
  * FILE appearing during the warm-up cancels the warm-up's Spark jobs: the build never waits for it.
  * SIGTERM ends the process cleanly at any point: Spark stopped (and its JVM with it), the
    temporary folder removed. A SIGINT that the caller ignores stays ignored (pyspark sets its own
    handler): a script's background job must not die of the Ctrl-C meant for its pytest.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from reports.rows.outcomes import OUTCOME_ORDER

WAIT_EXIT = 3
# How often FILE and the parent process are looked at while waiting.
POLL_S = 0.05
# Throwaway builds into one folder. One compiles most of what a build runs (about 26 s of CPU on
# two cores); a second would add what replacing an existing store runs (15 s more, for about 2 s
# less after the signal), CPU the vectors beside it need more.
ROUNDS = 1
# After the signal, how long a cancelled warm-up may take to give its thread back.
CANCEL_WAIT_S = 30.0
JOB_GROUP = "mqconform-warm-up"
# The session starts beside the vectors at the lowest CPU priority, often while every core is busy:
# a starved JVM can take longer than the default heartbeat interval (10 s) between starting its
# local executor and registering its block manager, and the executor's first heartbeat then makes
# the driver log a NullPointerException, again and again, in the report's log. A heartbeat every
# minute (the network timeout, 120 s, stays above it, as Spark requires) is the same session
# without that noise; a cluster's executors keep Spark's default.
LOCAL_CONF = {"spark.executor.heartbeatInterval": "60s"}


class WaitError(RuntimeError):
    """The results were not declared complete within the bound, or the caller went away."""


def wait_for(path: Path, timeout_s: float, parent: int | None, poll_s: float = POLL_S, since: float | None = None,
             clock=time.monotonic, sleep=time.sleep, parent_now=os.getppid) -> float:
    """Block until `path` exists; returns the seconds since `since` (a reading of `clock`; default now).

    WaitError once `timeout_s` have passed since then, or as soon as the parent process is no longer
    `parent` (it ended and this process was handed to another): nobody would signal any more.
    """
    start = clock() if since is None else since
    while not path.exists():
        if parent is not None and parent_now() != parent:
            raise WaitError(f"the process that started this build ({parent}) ended before {path} appeared")
        waited = clock() - start
        if waited >= timeout_s:
            raise WaitError(f"{path} did not appear within {timeout_s:g}s (--wait-timeout)")
        sleep(min(poll_s, max(0.0, timeout_s - waited)))
    return clock() - start


def synthetic_records(runs_per_impl: int = 2, vectors: int = 160) -> list[dict]:
    """Valid result records shaped like a real run's (docs/results.md): every field filled the way
    the suites fill it, several implementations and specs, every outcome, two runs each so that
    history, diff and flakiness have work to do. Deterministic."""
    impls = [("broker-a", "broker", "4.0.5"), ("broker-b", "broker", "2.56.0"), ("codec-c", "codec", "2.2.0")]
    specs = [("openmessaging", "0.3.0"), ("ce-amqp", "1.0.3-wip"), ("rabbitmq-address@4.0", "4.0")]
    levels = ["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]
    rows = []
    for i, (name, kind, version) in enumerate(impls):
        for r in range(runs_per_impl):
            run_id = f"{i:02d}{r:02d}" + "0" * 28
            started = f"2026-01-0{1 + r}T0{i}:00:00.000Z"
            for v in range(vectors):
                spec, revision = specs[v % len(specs)]
                clause = f"{spec}/section-{v % 23}/clause-{v}"
                outcome = OUTCOME_ORDER[(v + 3 * i + (r if v % 5 == 0 else 0)) % len(OUTCOME_ORDER)]
                vector_id = f"{spec}.section-{v % 23}.vector-{v}"
                rows.append({
                    "schema_version": 2, "run_id": run_id, "run_started": started,
                    "suite_version": "0.1.0+warm", "vectors_digest": f"sha256:{r:064x}",
                    "spec": spec, "spec_revision": revision, "clause_ids": [clause, f"{spec}/shared"],
                    "level": levels[v % len(levels)],
                    "test_id": f"suites/{spec}/test_{spec}.py::test_vector[{vector_id}::{name}]",
                    "vector_id": vector_id, "vector_status": "stable",
                    "implementation": {"name": name, "kind": kind, "version": version,
                                       "provenance": {"target": name, "image.ref": f"mqconform/{name}:warm",
                                                      "engine": "none"}},
                    "adapter": "warm-up 0.0", "outcome": outcome, "expected_outcome": "pass",
                    "message": "" if outcome == "pass" else f"warm-up: {outcome}",
                    "clause_outcomes": {clause: outcome, f"{spec}/shared": "pass"} if v % 2 else None,
                    "failed_step": ({"index": 1, "action": "receive", "role": "consumer", "clause_ids": [clause]}
                                    if outcome in ("fail", "error") else None),
                    "error_kind": "timeout" if outcome == "error" else None,
                    "notes": [f"note {v % 3}"] if v % 3 else [],
                    "set_by": {"deliveryCount": "broker", "messageId": "client-library"} if spec == "openmessaging" else None,
                    "started": started, "duration_s": 0.01 * (v % 17),
                })
    return rows


def warm_up(spark, folder: Path, stop: threading.Event, rounds: int = ROUNDS, store: str | None = None) -> int:
    """Throwaway builds of synthetic records under `folder` until `rounds` are done or `stop` is set,
    then the state of the real `store`'s tables read; returns the rounds completed. The builds' output
    is discarded."""
    from reports.engine import build

    results = folder / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in synthetic_records()), encoding="utf-8")
    spark.sparkContext.setJobGroup(JOB_GROUP, "warm-up: a throwaway build", interruptOnCancel=True)
    done = 0
    try:
        for _ in range(rounds):
            if stop.is_set():
                break
            build.run([str(results)], str(folder / "out"), spark=spark, quiet=True, registry="none")  # synthetic rows
            done += 1
        if store and not stop.is_set():
            preload(spark, store)
    except Exception as exc:  # noqa: BLE001 - a cancelled (or failed) warm-up only costs the real build speed
        if not stop.is_set():
            print(f"reports build: the warm-up failed ({type(exc).__name__}); building without it", file=sys.stderr)
    return done


def preload(spark, store: str) -> None:
    """Read the current state of the store's tables (their Delta logs) into this session's cache: the
    build's commits then start from it instead of replaying the logs. Reading only; a table that is
    not there is skipped."""
    from reports.engine import store as S

    for table in (S.RECORDS, S.RUNS, S.FLAKY):
        where = S.path(store, table)
        if S.is_table(spark, where):
            spark.read.format("delta").load(where).inputFiles()


def _terminate(signum, frame):
    signal.signal(signum, signal.SIG_IGN)   # once: a second one must not cut the clean stop short
    print(f"reports build: stopped by signal {signum}; nothing more is written", file=sys.stderr, flush=True)
    raise SystemExit(128 + signum)


def run(build_args: dict, wait_path: str, timeout_s: float, master: str | None, conf: dict) -> int:
    """Start Spark, warm it up, wait for `wait_path`, then build with `build_args` (reports.engine.build.run's)."""
    from reports.engine import build
    from reports.spark import session
    from reports.views import known_deviations as known

    signal.signal(signal.SIGTERM, _terminate)
    try:   # refused now rather than after the vectors (build.run reads them again then)
        known.load(build_args.get("expectations"))
    except ValueError as exc:
        print(f"reports build: {exc}", file=sys.stderr)
        return 2
    started = time.monotonic()
    parent = os.getppid()
    marker = Path(wait_path)
    folder = Path(tempfile.mkdtemp(prefix="mqconform-warm-"))
    spark = None
    try:
        interrupt = signal.getsignal(signal.SIGINT)
        try:
            local = master is None or master.startswith("local")
            spark = session.start(master, {**LOCAL_CONF, **conf} if local else conf)
            if interrupt is signal.SIG_IGN:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            session.wait_for_executors(spark)
        except session.ClusterError as exc:
            print(f"reports build: {exc}", file=sys.stderr)
            return 1
        stop = threading.Event()
        warmed: list[tuple[int, float]] = []   # (throwaway builds done, when)
        store = build.store_location(build_args["out"], build_args.get("store"))
        warmer = threading.Thread(target=lambda: warmed.append((warm_up(spark, folder, stop, store=store),
                                                                time.monotonic())),
                                  name="warm-up", daemon=True)
        warmer.start()
        try:
            wait_for(marker, timeout_s, parent, since=started)
            appeared = time.monotonic()
        except WaitError as exc:
            print(f"reports build: {exc}; nothing was built", file=sys.stderr)
            return WAIT_EXIT
        finally:
            stop.set()
            if warmer.is_alive():
                spark.sparkContext.cancelJobGroup(JOB_GROUP)
                warmer.join(CANCEL_WAIT_S)
        _unnice(parent)
        n, when = warmed[0] if warmed else (0, appeared)
        warm = (f"warm after {when - started:.1f}s: {n} throwaway build(s)" if n and when <= appeared
                else "the warm-up cut short")
        print(f"reports build: Spark session started {appeared - started:.1f}s before {marker} appeared "
              f"({warm})", flush=True)
        return build.run(spark=spark, master=master, conf=conf, **build_args)
    finally:
        if spark is not None:
            _stop(spark)
        shutil.rmtree(folder, ignore_errors=True)


def _unnice(parent: int) -> None:
    """Once the results are complete the build is what the run waits for: every thread of this
    process and of Spark's JVM goes back to the priority of the process that started the build (a
    `nice` caller lowered it for the warm-up). Where the system refuses (raising a priority needs
    privilege), the build goes on where it was."""
    from pyspark import SparkContext

    try:
        target = os.getpriority(os.PRIO_PROCESS, parent)
    except OSError:
        return
    proc = getattr(SparkContext._gateway, "proc", None)
    for pid in (os.getpid(), getattr(proc, "pid", None)):
        try:
            tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")] if pid is not None else []
        except OSError:
            continue
        for tid in tids:
            try:
                if os.getpriority(os.PRIO_PROCESS, tid) > target:
                    os.setpriority(os.PRIO_PROCESS, tid, target)
            except OSError:
                pass


# How long the JVM may take to exit once Spark has stopped, before it is killed.
JVM_EXIT_S = 20.0
# How long py4j's releases of Java objects may take to be sent before the JVM is told to exit.
SETTLE_S = 5.0


def _settle(gateway, wait_s: float = SETTLE_S) -> None:
    """Leave the JVM nothing to answer once it is told to exit. The rule: a successful build prints no
    stack trace. py4j tells the JVM of every Java object Python frees, from a thread of its own
    (its FinalizerWorker); one such message in flight as the JVM exited was answered by a reset
    connection, which py4j logs as "ERROR:root:Exception while sending command." with a traceback, at
    the end of the main job's report. So: the objects in reference cycles are freed now (gc), their
    releases sent while the JVM answers (the worker stopped after them, bounded by wait_s), and the
    client then sends nothing more (a later release is dropped: the JVM is going away)."""
    import gc

    client = getattr(gateway, "_gateway_client", None)
    if client is None:
        return
    gc.collect()
    queue = getattr(client, "finalizer_deque", None)
    if queue is not None:   # py4j's ClientServer (pyspark's pinned-thread mode, the default)
        from py4j.clientserver import SHUTDOWN_FINALIZER_WORKER, FinalizerWorker

        queue.appendleft(SHUTDOWN_FINALIZER_WORKER)   # taken after the releases queued before it
        deadline = time.monotonic() + wait_s
        for worker in [t for t in threading.enumerate() if isinstance(t, FinalizerWorker)]:
            worker.join(max(0.0, deadline - time.monotonic()))
    client.is_connected = False


def _stop(spark) -> None:
    """Stop Spark, then end its JVM before this process ends, so that a caller that waits for this
    process has waited for the JVM too. pyspark's JVM exits when its standard input (a pipe from
    this process) closes, which would otherwise happen only as this process exits."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)
    try:
        spark.stop()
    except Exception:  # noqa: BLE001 - a call cut short by SIGTERM leaves the gateway unusable; the JVM ends below
        pass
    if proc is None or proc.stdin is None:
        return
    _settle(gateway)
    proc.stdin.close()
    try:
        proc.wait(JVM_EXIT_S)
    except subprocess.TimeoutExpired:
        print(f"reports build: the JVM did not exit within {JVM_EXIT_S:g}s of Spark stopping; killed it",
              file=sys.stderr)
        proc.kill()
        proc.wait()
