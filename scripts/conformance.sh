#!/usr/bin/env bash
# The main job: the whole conformance suite against the default implementations, ending in a report.
#   bash scripts/conformance.sh [extra pytest options, e.g. --spec 'ce-*' --impl 'rabbitmq-*' --no-faults]
# Output folder: $MQCONFORM_OUT (default out/): results.jsonl (the rows, JSON Lines), junit.xml (one
# testcase per vector x implementation, its record as a JSON property), report/ (index.html,
# summary.md, compliance.json, badges/). Exit status, in the convention of every command
# (./mqconform --help): that of `python -m reports gate` when the vectors ran (0: no failure beyond
# the known deviations in expectations/, or in the --expectations files given; 1: new failures; 2:
# bad input); 2 when pytest refused the arguments or selected nothing; 3 when the run could not be
# done: interrupted (Ctrl-C, SIGTERM, SIGHUP), pytest's internal error, no environment, or no report.
#
# Brokers: the catalog's default run (fixtures/provision/targets.yaml) starts in containers through
# Docker, or podman's Docker API installed and started here when there is no Docker; images are
# built once and cached. Choose others with --target GLOB, or certify your own broker with
# --endpoint NAME=amqp://user:pass@host:port. Containers are removed when the run ends (Ctrl-C too);
# a podman service started here is stopped again.
#
# Targets run side by side: $MQCONFORM_JOBS pytest workers (default: one more than the cores, as
# much of a target's time is waiting on its broker), each target's vectors on one worker (xdist's
# loadgroup), so every broker still starts once. MQCONFORM_JOBS=1 runs in one process. Brokers
# start, and targets go to workers, longest first: by each target's own time in the last run
# written to the same folder ($out/results.jsonl.scope-times.json, a hint only), else by the
# shipped prior (fixtures/provision/scope-times.json), else by its number of tests. Where the time
# went (build, vectors with broker starts, report, gate) and the peak memory in use are written to
# $out/timing.md.
#
# Nothing waits for what it does not need. The vectors start once the packages they import are in
# .venv and the container engine answers: the brokers' images are built beside them (most urgent
# first; a target's first test waits for its own image, fixtures/provision/images.py), and Spark's
# packages install beside them too (scripts/bootstrap.sh goes on after its --ready file), followed
# by the report's build. On two cores or fewer the vectors wait for the image build as well
# ($MQCONFORM_IMAGES_FIRST, below).
#
# The report's Spark session starts beside the vectors and warms up there (`reports build
# --wait-for`); pytest creates $out/.results-complete once the last row is written, before it removes
# the brokers (the script creates it too when pytest ends, should pytest not have), and the build
# reads the rows, so the report phase is only the build itself. Its waits are bounded: the results must be
# complete within $MQCONFORM_REPORT_WAIT_S (default 7200) of the start of the report's Spark session,
# and the report written within $MQCONFORM_REPORT_BUILD_S (default 600) after the vectors' end. Its output is in
# $out/report.log (shown once it ends). Ctrl-C during the vectors stops pytest and the report is
# built from what ran; Ctrl-C anywhere else ends the run, and whatever it started is stopped.
# The build runs at the lowest CPU priority (nice 19): its warm-up takes what the vectors leave; once
# the rows are complete it returns to this script's priority (where the system allows raising it).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/bytecode.sh
out=${MQCONFORM_OUT:-out}
# The run's --expectations files (expectations/ without one) go to the report and the gate as well
# as to pytest: rows the plugin marked expected-fail against a file are judged against that file.
source scripts/expectations-of.sh
expectations_of "$@"
mkdir -p "$out"
phases="$out/phases.txt"
: > "$phases"
# fixtures.run.clock is standard library only: it runs before the virtualenv exists.
python3 -m fixtures.run.clock mark "$phases" "Python environment for the vectors, and the engine"
[ -d /usr/local/go/bin ] && export PATH="$PATH:/usr/local/go/bin"
python3 -m fixtures.run.clock sample-memory "$out/memory.json" &
sampler=$!
state="${MQCONFORM_STATE:-.mqconform}"
# The interpreter: the checkout's .venv, or an installed mqconform's (src/mqconform/__init__.py sets it).
python="${MQCONFORM_PYTHON:-.venv/bin/python}"
cds_log=.venv/spark-cds.log
[ -n "${MQCONFORM_PYTHON:-}" ] && cds_log="$state/spark-cds.log"
engine_started="$out/.engine-started"   # exists once images.sh has started a podman service
engine_ready="$out/.engine-ready"       # exists once the container engine answers
venv_ready="$out/.venv-ready"           # exists once the packages the vectors and the provisioning import are in .venv
env_done="$out/.env-done"               # exists once Spark's packages are in .venv too (the report's build starts)
images_stop="$out/.images-stop"         # exists once the vectors have ended: images.sh starts no further image
rm -f "$engine_started" "$engine_ready" "$venv_ready" "$env_done" "$images_stop"
images=""   # the engine and image build, started at once, until it has ended or is stopped
cds=""      # the class data sharing archive made after the report, until it has ended
report=""   # the rest of the Python environment, then the report build, until it has ended
gating=""   # the gate started beside the report, until it has ended
phase=""
# wait_bounded PID SECONDS: PID's exit status once it ends; one still running after SECONDS is
# stopped (TERM, then KILL 10 s later) and the status is 124.
wait_bounded() {
  local pid=$1 ticks=$(($2 * 10))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$ticks" -le 0 ]; then
      kill "$pid" 2>/dev/null
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      return 124
    fi
    sleep 0.1
    ticks=$((ticks - 1))
  done
  wait "$pid"
}
# tree PID: PID and every process below it. A process group does not hold them all: `timeout`
# (the bound of many steps here) moves itself and what it runs into a process group of its own.
tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do tree "$child"; done
  echo "$1"
}
# stop_tree PID: TERM to PID and every process below it, KILL to what is left 10 s later.
stop_tree() {
  local pids alive
  pids=$(tree "$1")
  kill $pids 2>/dev/null
  for _ in $(seq 100); do
    alive=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ -n "$alive" ] || break
    sleep 0.1
  done
  kill -KILL $(tree "$1") $pids 2>/dev/null
  wait "$1" 2>/dev/null
}
cleanup() {
  # TERM makes the report build stop Spark; whatever of its group is left after that (its JVM) is
  # killed. Before the build, the group is the environment's install: all of it is stopped, so that
  # bootstrap.sh removes what it downloaded.
  if [ -n "$report" ]; then
    if [ -e "$env_done" ]; then
      kill "$report" 2>/dev/null; wait_bounded "$report" 30 >/dev/null 2>&1
      kill -KILL -- "-$report" 2>/dev/null
    else
      stop_tree "$report"
    fi
  fi
  if [ -n "$gating" ]; then kill "$gating" 2>/dev/null; wait_bounded "$gating" 30 >/dev/null 2>&1; fi
  # the image build: its engine install, base bootstraps, prebuilds and podman builds
  if [ -n "$images" ]; then stop_tree "$images"; fi
  if [ -n "$cds" ]; then kill -- "-$cds" 2>/dev/null; wait_bounded "$cds" 30 >/dev/null 2>&1; kill -KILL -- "-$cds" 2>/dev/null; fi
  kill "$sampler" 2>/dev/null && wait "$sampler" 2>/dev/null
  if [ -f "$engine_started" ]; then bash scripts/container-engine.sh stop >/dev/null 2>&1 || true; fi
  rm -f "$engine_started" "$engine_ready" "$venv_ready" "$env_done" "$images_stop"
}
trap cleanup EXIT
# These make the signals end the run through exit, with status 3 (the EXIT trap cleans up).
# During the vectors Ctrl-C is pytest's to handle (it stops, and the report is built from what ran).
# SIGTERM (a CI timeout) and SIGHUP (a closed terminal) end the run as Ctrl-C does, wherever they
# are sent (to this script alone, or to its process group): during the vectors pytest is passed
# the signal, which it handles as Ctrl-C (fixtures/run/signals.py: brokers removed, what the suite made
# on an endpoint deleted, rows cut short marked interrupted), and the run ends once pytest has;
# elsewhere the run ends at once, the report build and the gate stopped by the EXIT trap.
vectors=""      # pytest's pid while the vectors run
stopped=""      # the exit status a SIGTERM / SIGHUP asked for
on_signal() {
  if [ -n "$vectors" ]; then
    [ -n "$stopped" ] || kill "-$2" "$vectors" 2>/dev/null
    stopped=$1
  else
    exit "$1"
  fi
}
trap '[ "$phase" = vectors ] || exit 3' INT
trap 'on_signal 3 TERM' TERM
trap 'on_signal 3 HUP' HUP
# The engine and the images do not wait for the Python environment: scripts/images.sh installs and
# starts the engine and makes the Debian base images at once, and builds the brokers' images once
# the packages the provisioning imports are installed (bootstrap's --ready), beside Spark's install
# and then beside the vectors. In a process group of its own, ended by the EXIT trap should the run
# end first.
python3 -m fixtures.run.clock early "$phases" "engine and image build"
set -m
( bash scripts/images.sh --ready "$venv_ready" --engine-started "$engine_started" --engine-ready "$engine_ready" \
    --results "$out/results.jsonl" --stop-file "$images_stop"
  built=$?
  python3 -m fixtures.run.clock done "$phases" "engine and image build"
  exit "$built" ) &
images=$!
set +m
complete="$out/.results-complete"
# A run's files beside its results are its own: the OpenMessaging records and figures too (review 21:
# another run's records in the sidecar); the scope times stay, a hint for the next run's order.
rm -f "$out/results.jsonl" "$out/junit.xml" "$out"/results.cross-protocol.* "$out"/results.transit.* "$out/results.starts.jsonl" \
  "$out"/results.jsonl.openmessaging-* "$complete"
# The Python environment, then the report build, in a process group of its own led by the build
# (its Spark JVM is in that group, and the group is ended after the build, so no JVM outlives the
# run whichever way the build ends). bootstrap.sh creates $venv_ready once the vectors' packages
# are in; Spark's follow while the vectors run. The build's Spark session then starts and warms up
# beside the vectors.
python3 -m fixtures.run.clock early "$phases" "Spark's packages (for the report)"
set -m
( bash scripts/bootstrap.sh main --ready "$venv_ready" || exit 3
  python3 -m fixtures.run.clock done "$phases" "Spark's packages (for the report)"
  : > "$env_done"
  python3 -m fixtures.run.clock early "$phases" "report (Spark)"
  exec nice -n 19 "$python" -m reports build --results "$out/results.jsonl" --out "$out/report" \
    --expectations "${expectations[@]}" --wait-for "$complete" --wait-timeout "${MQCONFORM_REPORT_WAIT_S:-7200}" \
    > "$out/report.log" 2>&1 ) &
report=$!
set +m
# The vectors wait for their packages and for the engine (or for images.sh to end without one).
deadline=$(( $(date +%s) + ${MQCONFORM_READY_WAIT_S:-1800} ))
until [ -e "$venv_ready" ] && { [ -e "$engine_ready" ] || ! kill -0 "$images" 2>/dev/null; }; do
  if [ ! -e "$venv_ready" ] && ! kill -0 "$report" 2>/dev/null; then
    echo "conformance: the Python environment could not be made (scripts/bootstrap.sh main said why above)" >&2
    exit 3
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "conformance: the Python environment or the engine was not ready within ${MQCONFORM_READY_WAIT_S:-1800}s" >&2
    exit 3
  fi
  sleep 0.2
done
# On two cores or fewer the vectors also wait for the image build to end (MQCONFORM_IMAGES_FIRST=1,
# the default there; 0 elsewhere): both cores are busy with the builds, and vectors run beside them
# find our own clients starved (a RocketMQ ack past its invisible time is our adapter's error, a row
# judged by no one), and the first report comes later, not sooner (the run is the sum of its CPU work).
# The wait is bounded by $MQCONFORM_IMAGES_WAIT_S (default 3600); past it the vectors start, and a
# target whose image is still being built waits for it under that image's lock.
cores=$(nproc 2>/dev/null || echo 1)
images_first=${MQCONFORM_IMAGES_FIRST:-$([ "$cores" -le 2 ] && echo 1 || echo 0)}
if [ "$images_first" = 1 ] && kill -0 "$images" 2>/dev/null; then
  python3 -m fixtures.run.clock mark "$phases" "the brokers' images (on $cores cores the vectors wait for them)"
  deadline=$(( $(date +%s) + ${MQCONFORM_IMAGES_WAIT_S:-3600} ))
  while kill -0 "$images" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
  if kill -0 "$images" 2>/dev/null; then
    echo "conformance: the image build had not ended within ${MQCONFORM_IMAGES_WAIT_S:-3600}s; the vectors start beside it" >&2
  fi
fi
if bash scripts/container-engine.sh status >/dev/null 2>&1; then
  eval "$(bash scripts/container-engine.sh env | sed 's/^/export /')"
else
  echo "conformance: no container engine; broker targets will report errors (use --endpoint for your own broker)" >&2
fi
jobs=${MQCONFORM_JOBS:-$(( cores + 1 ))}
# The fault stage is part of the main job (durability-survives-restart and the fault vectors are
# judged in every default run): --faults, unless the run says --no-faults (or --faults itself). The
# report says so when a run left it out (reports/views/faults.py).
faults=(--faults)
for arg in "$@"; do case $arg in --) break ;; --faults|--no-faults) faults=() ;; esac; done
# A shard of a run split across machines (--shard I/N, docs/shards.md) is gated alone here; the run is
# gated whole by `./mqconform gate` over every shard's results.jsonl.
one_shard=()
for arg in "$@"; do case $arg in --) break ;; --shard|--shard=*) one_shard=(--one-shard) ;; esac; done
parallel=()
[ "$jobs" -gt 1 ] 2>/dev/null && parallel=(-n "$jobs" --dist loadgroup)
python3 -m fixtures.run.clock mark "$phases" "vectors (broker starts and the image builds they waited for included)"
phase=vectors
# No unraisableexception plugin: its last act in each process is a full garbage collection (seconds
# of CPU in a worker that drew thousands of events), for warnings this job does not show.
# pytest runs in the background so that a trapped signal interrupts the wait for it (bash runs a
# trap only once a foreground command ends); `trap - INT` gives it Ctrl-C back, which bash takes
# from background commands.
( trap - INT; exec "$python" -m pytest suites -p no:cacheprovider -p no:unraisableexception -q -rN \
  "${parallel[@]}" "${faults[@]}" --results "$out/results.jsonl" --results-complete "$complete" --junitxml "$out/junit.xml" "$@" ) &
vectors=$!
while kill -0 "$vectors" 2>/dev/null; do wait "$vectors"; done
wait "$vectors"
status=$?
vectors=""
phase=""
# What the image build still does serves no vector now (a run of some targets only): it starts no
# further image, and the builds in flight may end within $MQCONFORM_IMAGES_STOP_S (default 300), so
# that no half-made build is left in the engine's storage; past that it is stopped. A run stopped
# by a signal, or interrupted with Ctrl-C (pytest's status 2), does not wait for them.
if kill -0 "$images" 2>/dev/null; then
  : > "$images_stop"
  grace=${MQCONFORM_IMAGES_STOP_S:-300}
  { [ -n "$stopped" ] || [ "$status" = 2 ]; } && grace=0
  deadline=$(( $(date +%s) + grace ))
  while kill -0 "$images" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
  if kill -0 "$images" 2>/dev/null; then
    stop_tree "$images"
    python3 -m fixtures.run.clock done "$phases" "engine and image build"
    echo "conformance: the image build was stopped after the vectors (${grace}s)" >&2
  else
    wait "$images"
  fi
else
  wait "$images"
fi
case $? in
  0) ;;
  2) echo "conformance: there was no container engine (the broker targets reported errors)" >&2 ;;
  *) echo "conformance: the image build failed (the targets without an image reported errors)" >&2 ;;
esac
images=""
if [ -n "$stopped" ]; then
  echo "conformance: stopped by a signal (pytest status $status); no report" >&2
  exit "$stopped"
fi
case $status in 0|1) ;; *) echo "conformance: pytest stopped with status $status; building the report from what ran" >&2 ;; esac
# pytest's status in the convention of every command (./mqconform --help): its usage error (4) and
# "nothing selected" (5) are 2; interrupted (2) and internal error (3) are 3, the run could not be done.
case $status in 0|1) ;; 4|5) status=2 ;; *) status=3 ;; esac
[ -s "$out/results.jsonl" ] || { echo "conformance: no results were written" >&2; exit "$status"; }
python3 -m fixtures.run.clock mark "$phases" "report (Spark)"
phase=report
: > "$complete"
# The gate reads the rows and the expectations only: it runs beside the report, and is shown after it,
# once the report's packages, which it imports too, are in. One bound for both waits: the report
# is written within $MQCONFORM_REPORT_BUILD_S of the vectors' end.
report_deadline=$(( $(date +%s) + ${MQCONFORM_REPORT_BUILD_S:-600} ))
while [ ! -e "$env_done" ] && kill -0 "$report" 2>/dev/null && [ "$(date +%s)" -lt "$report_deadline" ]; do sleep 0.2; done
python3 -m fixtures.run.clock early "$phases" "gate"
# The auditor first (reports/gate/audit.py): rows that contradict each other, or a not_applicable whose reason
# the record does not give, fail the job as an uncovered failure does (1), each named; the gate's own
# usage error (2) still wins.
( audit_status=0
  "$python" -m reports.gate.audit "$out/results.jsonl" || audit_status=$?
  gate_status=0
  "$python" -m reports gate --results "$out/results.jsonl" --expectations "${expectations[@]}" "${one_shard[@]}" \
    || gate_status=$?
  if [ "$gate_status" = 0 ]; then exit "$audit_status"; else exit "$gate_status"; fi
) > "$out/gate.log" 2> "$out/gate.err" &
gating=$!
left=$(( report_deadline - $(date +%s) ))
wait_bounded "$report" "$(( left > 0 ? left : 0 ))"
built=$?
if [ "$built" != 0 ] && [ "$built" != 124 ] && [ ! -e "$env_done" ]; then
  echo "conformance: Spark's packages could not be installed (scripts/bootstrap.sh main said why above); no report" >&2
fi
# what of its group outlived the build; or, still installing, all of it (bootstrap.sh cleans up on TERM)
if [ -e "$env_done" ]; then kill -KILL -- "-$report" 2>/dev/null; else stop_tree "$report"; fi
report=""
rm -f "$complete"
[ -f "$out/report.log" ] && cat "$out/report.log"
if [ "$built" != 0 ]; then
  [ "$built" = 124 ] && echo "conformance: the report was not written within ${MQCONFORM_REPORT_BUILD_S:-600}s of the vectors' end; stopped it" >&2
  wait_bounded "$gating" 60 >/dev/null 2>&1
  gating=""
  rm -f "$out/gate.log" "$out/gate.err"
  exit 3
fi
phase=""
echo "conformance: report in $out/report/index.html"
# A class data sharing archive of Spark's classes only makes later report builds start sooner
# (reports/spark/class_data_archive.py): made once (a later run only finds it), after the first report,
# beside the gate.
python3 -m fixtures.run.clock early "$phases" "class data archive (for later reports)"
set -m
timeout 900 "$python" -m reports.spark.class_data_archive >/dev/null 2>"$cds_log" &
cds=$!
set +m
python3 -m fixtures.run.clock mark "$phases" "gate"
wait_bounded "$gating" 300
gate=$?
gating=""
cat "$out/gate.log"
cat "$out/gate.err" >&2
rm -f "$out/gate.log" "$out/gate.err"
[ "$gate" = 124 ] && { echo "conformance: the gate did not end within 300s; stopped it" >&2; gate=2; }
if [ -n "$cds" ]; then
  python3 -m fixtures.run.clock mark "$phases" "class data archive (for later reports)"
  wait_bounded "$cds" 960 || echo "conformance: no class data sharing archive for Spark (later builds run without it; see $cds_log)" >&2
  cds=""
fi
python3 -m fixtures.run.clock mark "$phases" "end"
kill "$sampler" 2>/dev/null && wait "$sampler" 2>/dev/null
python3 -m fixtures.run.clock summary "$out" "$phases" "$out/memory.json" "$out/results.jsonl" || true
case $status in 0|1) exit $gate ;; *) exit $status ;; esac
