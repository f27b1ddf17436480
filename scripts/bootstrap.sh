#!/usr/bin/env bash
# Make a fresh machine ready: a virtualenv in .venv with mqconform's Python dependencies
# (pyproject.toml), Delta Lake's jars for Spark (from Maven Central, reports/deltajars.py), a class
# data sharing archive for Spark's JVM (reports/class_data_archive.py), and
# the Debian packages the tests need (Java for Spark, Chromium and chromedriver for the HTML report tests, iproute2
# for the second-host test). Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

want_apt=()
command -v java >/dev/null 2>&1 || want_apt+=(default-jre-headless)
if [ "${MQCONFORM_NO_BROWSER:-0}" != 1 ]; then
  command -v chromium >/dev/null 2>&1 || want_apt+=(chromium)
  # the comparison view's test drives Chromium through chromedriver (selenium, from pyproject's dev extras)
  command -v chromedriver >/dev/null 2>&1 || want_apt+=(chromium-driver)
fi
command -v ip >/dev/null 2>&1 || want_apt+=(iproute2)
if [ ${#want_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "bootstrap: installing ${want_apt[*]} from Debian" >&2
    timeout 600 apt-get update -qq
    DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends "${want_apt[@]}" >/dev/null
  else
    echo "bootstrap: please install ${want_apt[*]} (needs root)" >&2
  fi
fi

py=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
stamp=.venv/.mqconform-deps
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q '.[dev]'
  touch "$stamp"
fi
# Spark resolves the jars once into .venv/spark-ivy; later builds start without a registry.
timeout 600 .venv/bin/python -m reports.deltajars >/dev/null 2>.venv/spark-ivy.log || {
  cat .venv/spark-ivy.log >&2; echo "bootstrap: could not resolve Delta Lake's jars" >&2; exit 1; }
# A class data sharing archive of Spark's classes for the report build's JVM (reports/class_data_archive.py):
# made once (about 40 s), it only makes builds start faster, so a failure here is a warning.
timeout 900 .venv/bin/python -m reports.class_data_archive >/dev/null 2>.venv/spark-cds.log || {
  echo "bootstrap: no class data sharing archive for Spark (builds run without it; see .venv/spark-cds.log)" >&2; }
