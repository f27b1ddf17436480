#!/usr/bin/env bash
# Make a fresh machine ready: a virtualenv in .venv with mqconform's Python dependencies
# (pyproject.toml), Delta Lake's jars for Spark (from Maven Central, reports/spark/deltajars.py), and
# the Debian packages needed (Java for Spark).
#
#   bash scripts/bootstrap.sh                   what the project's tests need as well (scripts/test.sh):
#                                               pyproject's dev extra (ruff, tox, selenium), Chromium and
#                                               chromedriver for the HTML report tests, iproute2 for the
#                                               second-host test, and a class data sharing archive of
#                                               Spark's classes for the report's JVM (reports/spark/class_data_archive.py)
#   bash scripts/bootstrap.sh main [--ready F]  only what the main job (scripts/conformance.sh) needs;
#                                               F is created once the packages the provisioning imports
#                                               (all but Spark's) are installed, before Spark's are
#
# Idempotent: a second run only checks. MQCONFORM_NO_BROWSER=1 skips Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all ready=""
while [ $# -gt 0 ]; do
  case "$1" in
    main) mode=main; shift ;;
    --ready) ready="${2:?--ready needs a file}"; shift 2 ;;
    *) echo "bootstrap: unknown argument $1 (usage: bootstrap.sh [main [--ready FILE]])" >&2; exit 2 ;;
  esac
done

want_apt=()
command -v java >/dev/null 2>&1 || want_apt+=(default-jre-headless)
if [ "$mode" = all ]; then
  if [ "${MQCONFORM_NO_BROWSER:-0}" != 1 ]; then
    command -v chromium >/dev/null 2>&1 || want_apt+=(chromium)
    # the comparison view's test drives Chromium through chromedriver (selenium, from pyproject's dev extras)
    command -v chromedriver >/dev/null 2>&1 || want_apt+=(chromium-driver)
  fi
  command -v ip >/dev/null 2>&1 || want_apt+=(iproute2)
fi
if [ ${#want_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "bootstrap: installing ${want_apt[*]} from Debian" >&2
    # one of the project's apt runs at a time (scripts/container-engine.sh may install beside this)
    exec 8>/var/lock/mqconform-apt.lock
    flock -w 900 8 || { echo "bootstrap: another install held /var/lock/mqconform-apt.lock for 900s" >&2; exit 1; }
    timeout 600 apt-get update -qq
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends "${want_apt[@]}" >/dev/null
    exec 8>&-
  else
    echo "bootstrap: please install ${want_apt[*]} (needs root)" >&2
  fi
fi

# An installed mqconform (pip install mqconform; src/mqconform/__init__.py) names its interpreter in
# MQCONFORM_PYTHON: its packages are that environment's, so only Delta Lake's jars are resolved here.
if [ -n "${MQCONFORM_PYTHON:-}" ]; then
  if [ -n "$ready" ]; then : > "$ready"; fi
  log="${MQCONFORM_STATE:-/tmp}/spark-ivy.log"
  mkdir -p "$(dirname "$log")"
  timeout 600 "$MQCONFORM_PYTHON" -m reports.spark.deltajars >/dev/null 2>"$log" || {
    cat "$log" >&2; echo "bootstrap: could not resolve Delta Lake's jars" >&2; exit 1; }
  exit 0
fi

py=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
pip=(.venv/bin/python -m pip --disable-pip-version-check)
stamp=.venv/.mqconform-deps
dev_stamp=.venv/.mqconform-deps-dev
spark_job="" wheels=""
stop_spark_job() {
  if [ -n "$spark_job" ]; then kill "$spark_job" 2>/dev/null; wait "$spark_job" 2>/dev/null; fi
  if [ -n "$wheels" ]; then rm -rf "$wheels" "$wheels.log"; fi
}
trap stop_spark_job EXIT
trap 'exit 3' INT TERM HUP
# pyproject's dependencies as pip requirements, of one kind: `spark` (pyspark, delta-spark: built
# into wheels from a large source download), `report` (the other packages only the report reads
# with), `first` (all others: what the suites and the provisioning import).
requirements() {
  .venv/bin/python - "$1" <<'EOF'
import re, sys, tomllib
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
kinds = {"pyspark": "spark", "delta-spark": "spark",
         "deltalake": "report", "pyarrow": "report", "duckdb": "report", "pandas": "report", "numpy": "report"}
name = lambda d: re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0].strip().lower()
print("\n".join(d for d in deps if kinds.get(name(d), "first") == sys.argv[1]))
EOF
}
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  # a pip older than 23 (an old Python's bundled one) is upgraded first; a newer one is kept
  if ! .venv/bin/python -c 'import sys, pip; sys.exit(int(pip.__version__.split(".")[0]) < 23)'; then
    "${pip[@]}" install -q --upgrade pip >/dev/null
  fi
  # pyspark is one large source download built into a wheel: it is fetched and built beside the
  # first packages, which the provisioning needs (it imports the protocol clients); the report's
  # come last, with the project.
  wheels="$(mktemp -d)"
  mapfile -t spark_reqs < <(requirements spark)
  mapfile -t first_reqs < <(requirements first)
  # Stored, not deflated: the wheel is mostly jars, already compressed; deflating them again is
  # half of pyspark's build (35 s against 18 s stored, on an idle 2-core machine).
  timeout 1200 "${pip[@]}" wheel -q --no-deps -w "$wheels" --config-settings=--build-option=--compression=stored \
    "${spark_reqs[@]}" > "$wheels.log" 2>&1 &
  spark_job=$!
  "${pip[@]}" install -q "${first_reqs[@]}"
  if [ -n "$ready" ]; then : > "$ready"; fi
  wait "$spark_job" || { cat "$wheels.log" >&2; rm -f "$wheels.log"; spark_job=""; echo "bootstrap: could not build Spark's wheels" >&2; exit 1; }
  spark_job=""
  rm -f "$wheels.log"
  # The dependencies only, never the project itself: its wheel (pyproject.toml) carries a pytest11
  # entry point and a copy of this tree, which would be loaded in place of the checkout.
  mapfile -t report_reqs < <(requirements report)
  "${pip[@]}" install -q --find-links "$wheels" "${spark_reqs[@]}" "${report_reqs[@]}"
  rm -rf "$wheels"; wheels=""
  touch "$stamp"
fi
if [ -n "$ready" ]; then : > "$ready"; fi
if [ "$mode" = all ] && { [ ! -f "$dev_stamp" ] || [ pyproject.toml -nt "$dev_stamp" ]; }; then
  mapfile -t dev_reqs < <(.venv/bin/python -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["dev"]))')
  "${pip[@]}" install -q "${dev_reqs[@]}"
  touch "$dev_stamp"
fi
# Spark resolves the jars once into .venv/spark-ivy; later builds start without a registry.
timeout 600 .venv/bin/python -m reports.spark.deltajars >/dev/null 2>.venv/spark-ivy.log || {
  cat .venv/spark-ivy.log >&2; echo "bootstrap: could not resolve Delta Lake's jars" >&2; exit 1; }
# A class data sharing archive of Spark's classes for the report build's JVM (reports/spark/class_data_archive.py):
# made once (about 40 s), it only makes builds start faster, so a failure here is a warning. The
# main job makes it after its first report instead (scripts/conformance.sh).
if [ "$mode" = all ]; then
  timeout 900 .venv/bin/python -m reports.spark.class_data_archive >/dev/null 2>.venv/spark-cds.log || {
    echo "bootstrap: no class data sharing archive for Spark (builds run without it; see .venv/spark-cds.log)" >&2; }
fi
