#!/usr/bin/env bash
# The container engine and the brokers' images, for the main job (scripts/conformance.sh), which
# runs this beside its Python environment's install and then beside the vectors:
#
#   bash scripts/images.sh [--ready FILE] [--engine-started FILE] [--engine-ready FILE] [--results FILE]
#                          [--stop-file FILE]
#
# 1. a Docker API, or podman installed and its service started (scripts/container-engine.sh
#    ensure); FILE of --engine-started is created when this started the service (whoever ends the
#    run stops it), FILE of --engine-ready once the API answers (the vectors may start);
# 2. the Debian base images the catalog names (scripts/build-base-image.sh), side by side: they
#    need no Python packages; beside them, Go's caches are filled for the brokers compiled on the
#    host;
# 3. once FILE of --ready exists (the packages the provisioning imports are in .venv: bootstrap.sh
#    main --ready), every target's image and the shims: python -m fixtures.provision build, the
#    images of the targets that take longest first (by the times kept beside the results FILE).
#    It does not wait for the bases: a target's build waits for its own base under the lock that
#    base's build holds (flock(2) on $state/build/base-SUITE.lock, as fixtures/provision/images.py),
#    and a test that needs an image still being built here waits for it the same way. Once FILE of
#    --stop-file exists (the vectors have ended), no further image is started.
# Exit status 0 when all is ready, 1 when an image failed (the others are still built), 2 when
# there is no engine. Every wait is bounded: the base images by build-base-image.sh's own
# timeouts, the wait for FILE by MQCONFORM_READY_WAIT_S (default 1800), the builds by
# MQCONFORM_BUILD_TIMEOUT (fixtures/provision/images.py).
set -uo pipefail
cd "$(dirname "$0")/.."
ready="" started="" engine_ready="" build_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ready) ready="${2:?--ready needs a file}"; shift 2 ;;
    --engine-started) started="${2:?--engine-started needs a file}"; shift 2 ;;
    --engine-ready) engine_ready="${2:?--engine-ready needs a file}"; shift 2 ;;
    --results) build_args+=(--results "${2:?--results needs a file}"); shift 2 ;;
    --stop-file) build_args+=(--stop-file "${2:?--stop-file needs a file}"); shift 2 ;;
    *) echo "images: unknown argument $1" >&2; exit 2 ;;
  esac
done
state="${MQCONFORM_STATE:-.mqconform}"
say() { echo "images: $*" >&2; }

if ! bash scripts/container-engine.sh status >/dev/null 2>&1; then
  bash scripts/container-engine.sh ensure >/dev/null || { say "no container engine"; exit 2; }
  if [ -n "$started" ]; then : > "$started"; fi
fi
eval "$(bash scripts/container-engine.sh env | sed 's/^/export /')"
if [ -n "$engine_ready" ]; then : > "$engine_ready"; fi

# The bases, under the lock fixtures/provision/images.py takes for the same base (flock(2) both).
mkdir -p "$state/build"
t0=$(date +%s)
pids=()
# A broker compiled from a Go module on the host (containers/*/gomod, its build.sh the prebuild) is
# compiled once now, into a scratch folder: that fills Go's module and build caches, from which the
# image's own prebuild (step 3), when it comes after, links in seconds (one that comes first
# compiles beside it, sharing the caches). Only a head start: its failure is the prebuild's to say.
for gomod in containers/*/gomod; do
  [ -f "$gomod/go.mod" ] && [ -f "${gomod%/gomod}/build.sh" ] || continue
  ( scratch="$state/build/head-start-$(basename "${gomod%/gomod}")"
    rm -rf "$scratch"
    bash "${gomod%/gomod}/build.sh" "$scratch" >/dev/null 2>&1 || true
    rm -rf "$scratch" ) &
  pids+=($!)
done
for suite in $(sed -n 's/^ *base: *\([a-z]*\).*/\1/p' fixtures/provision/targets.yaml | sort -u); do
  ( exec 7>"$state/build/base-$suite.lock"
    flock -w 1200 7 || { say "base $suite: lock held for 1200s"; exit 1; }
    log="$state/build/base-$suite.log"
    bash scripts/build-base-image.sh "$suite" >/dev/null 2>"$log" \
      || { tail -n 20 "$log" >&2; say "base $suite failed (log $log)"; exit 1; }
    grep -h '^build-base-image: built' "$log" >&2 || true ) &
  pids+=($!)
done

if [ -n "$ready" ]; then
  deadline=$(( $(date +%s) + ${MQCONFORM_READY_WAIT_S:-1800} ))
  until [ -e "$ready" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { say "the Python environment was not ready within ${MQCONFORM_READY_WAIT_S:-1800}s"; exit 1; }
    sleep 0.5
  done
fi
"${MQCONFORM_PYTHON:-.venv/bin/python}" -m fixtures.provision build "${build_args[@]}"
built=$?
for p in "${pids[@]}"; do wait "$p" || true; done
say "images in $(( $(date +%s) - t0 ))s"
exit "$built"
