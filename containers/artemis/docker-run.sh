#!/bin/bash
# Entry point of the artemis image, with the same contract as the official image's docker-run.sh,
# so that the catalog's configuration fits both: on first start (no etc/broker.xml yet) the broker
# instance is created in /var/lib/artemis-instance with
#   artemis create --user $ARTEMIS_USER --password $ARTEMIS_PASSWORD --silent
#                  (--require-login | --allow-anonymous when ANONYMOUS_LOGIN=true) $EXTRA_ARGS .
# and the files in etc-override/ (the catalog mounts broker.properties there) are copied into etc/.
# Then `artemis "$@"` (CMD: run) in the foreground, logging to stdout.
set -euo pipefail
cd /var/lib/artemis-instance
if [ ! -f etc/broker.xml ]; then
    : "${ARTEMIS_USER:?set ARTEMIS_USER (the broker user to create)}" "${ARTEMIS_PASSWORD:?set ARTEMIS_PASSWORD}"
    anonymous="${ANONYMOUS_LOGIN:-false}"
    if [ "${anonymous,,}" = "true" ]; then login=--allow-anonymous; else login=--require-login; fi
    # EXTRA_ARGS is split into words on purpose (several options in one variable)
    # shellcheck disable=SC2086
    "$ARTEMIS_HOME/bin/artemis" create --user "$ARTEMIS_USER" --password "$ARTEMIS_PASSWORD" --silent \
        "$login" ${EXTRA_ARGS:-} .
    if [ -d etc-override ]; then
        for f in etc-override/*; do
            [ -f "$f" ] || continue
            echo "copying $f to etc/"
            cp "$f" etc/
        done
    fi
else
    echo "broker instance exists, not created again"
fi
exec ./bin/artemis "$@"
