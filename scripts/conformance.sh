#!/usr/bin/env bash
# The main job: the whole conformance suite against the default implementations, ending in a report.
#   bash scripts/conformance.sh [extra pytest options, e.g. --spec 'ce-*' --impl 'rabbitmq-*']
# Output folder: $MQCONFORM_OUT (default out/): results.jsonl, report/ (index.html, summary.md,
# compliance.json, badges/). Exit status: that of `python -m reports gate` (0: no failure beyond
# the known deviations in expectations/; 1: new failures; 2: bad input), or pytest's when the
# run itself broke (interrupted, internal or usage error).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh || exit 2
out=${MQCONFORM_OUT:-out}
mkdir -p "$out"
rm -f "$out/results.jsonl"
.venv/bin/python -m pytest suites -p no:cacheprovider -q -rN --results "$out/results.jsonl" "$@"
status=$?
case $status in 0|1) ;; *) echo "conformance: pytest stopped with status $status; building the report from what ran" >&2 ;; esac
[ -s "$out/results.jsonl" ] || { echo "conformance: no results were written" >&2; exit "$status"; }
.venv/bin/python -m reports build --results "$out/results.jsonl" --out "$out/report" || exit 2
echo "conformance: report in $out/report/index.html"
.venv/bin/python -m reports gate --results "$out/results.jsonl" --expectations expectations
gate=$?
case $status in 0|1) exit $gate ;; *) exit $status ;; esac
