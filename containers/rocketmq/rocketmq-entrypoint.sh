#!/usr/bin/env bash
# Runs RocketMQ in one container, three JVMs on the classpath $ROCKETMQ_HOME/lib/*: the name
# server (9876), the broker (10911, conf/broker.conf) and the proxy in CLUSTER mode (gRPC 8081,
# remoting 8080, conf/rmq-proxy.json). Each starts once the one before it is up: the broker when
# the name server listens, the proxy when the name server logs "new broker registered" (the
# broker listens on 10911 before that; its first registration can fail under load, and it logs
# "boot success" either way, then retries only every 30 s). A proxy started before the
# registration looks up its cluster's route, finds none ("No topic route info ... DefaultCluster")
# and exits with status 1; seen twice in CI with the other cores busy.
#
# Why not the proxy's LOCAL mode (broker embedded, two JVMs): there the gRPC route answers
# (QueryRoute) name brokerIP1:grpcServerPort whatever the client dialled (LocalTopicRouteService),
# i.e. 127.0.0.1:8081, which is not the published host port; in CLUSTER mode, with
# useEndpointPortFromRequest, they carry the host and port the client used.
# ROCKETMQ_PROXY_MODE=local still selects it (then ROCKETMQ_BROKER_JAVA_MEM is unused).
#
# The broker registers brokerIP1:listenPort with the name server, and remoting clients (4.x
# style, e.g. RocketMQ's OpenMessaging provider) dial what the name server hands out. With
# ROCKETMQ_BROKER_PORT set (the catalog's host_port_env: the container port published on the same
# host port), the broker listens there instead of broker.conf's listenPort, so that address is
# reachable from the host too (brokerIP1=127.0.0.1: an engine on this machine).
#
# The container ends when any JVM ends; SIGTERM/SIGINT are passed to all.
#   ROCKETMQ_BROKER_PORT  the broker's listenPort (default: broker.conf's)
#   ROCKETMQ_NAMESRV_JAVA_MEM, ROCKETMQ_BROKER_JAVA_MEM, ROCKETMQ_PROXY_JAVA_MEM   heap options
#   ROCKETMQ_JAVA_OPTS    more JVM options for all       arguments   more ProxyStartup arguments
set -euo pipefail
home="${ROCKETMQ_HOME:-/opt/rocketmq}"
data=/var/lib/rocketmq
mode="${ROCKETMQ_PROXY_MODE:-cluster}"
mkdir -p "$data/logs" "$data/store"
# The start waits (here and the catalog's readiness check) read these; a restarted container must
# not find the last start's lines.
rm -f "$data/logs/"*.log
broker_conf="$home/conf/broker.conf"
if [ -n "${ROCKETMQ_BROKER_PORT:-}" ]; then
    case "$ROCKETMQ_BROKER_PORT" in *[!0-9]*) echo "rocketmq: ROCKETMQ_BROKER_PORT=$ROCKETMQ_BROKER_PORT is not a port" >&2; exit 2;; esac
    broker_conf="$data/broker.conf"
    { grep -v '^listenPort=' "$home/conf/broker.conf"; echo "listenPort=$ROCKETMQ_BROKER_PORT"; } > "$broker_conf"
fi
# The JDK 17 opens RocketMQ (netty, mapped-file cleanup) needs.
opens=(--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED
       --add-opens java.base/jdk.internal.ref=ALL-UNNAMED --add-exports java.base/sun.nio.ch=ALL-UNNAMED)
common=(-server "${opens[@]}" -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow -Djava.net.preferIPv4Stack=true
        -Drocketmq.home.dir="$home" -Duser.home="$data" -Drmq.logback.configurationFile="$home/conf/logback-mqconform.xml"
        -cp "$home/lib/*")
# shellcheck disable=SC2206
extra=(${ROCKETMQ_JAVA_OPTS:-})
# shellcheck disable=SC2206
nmem=(${ROCKETMQ_NAMESRV_JAVA_MEM:--Xms256m -Xmx256m -XX:MaxDirectMemorySize=128m})
# shellcheck disable=SC2206
bmem=(${ROCKETMQ_BROKER_JAVA_MEM:--Xms256m -Xmx256m -XX:MaxDirectMemorySize=256m})
# shellcheck disable=SC2206
pmem=(${ROCKETMQ_PROXY_JAVA_MEM:--Xms256m -Xmx256m -XX:MaxDirectMemorySize=256m})

pids=()
stop() { trap - TERM INT; for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait; exit 143; }
trap stop TERM INT
# wait_port PORT: until 127.0.0.1:PORT accepts, or exit when the last started JVM has ended.
wait_port() {
    local last="${pids[${#pids[@]}-1]}" rc=0
    for _ in $(seq 1 1200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        kill -0 "$last" 2>/dev/null || { wait "$last" || rc=$?; echo "rocketmq: pid $last exited ($rc) before port $1 listened" >&2; stop_all; exit "${rc:-1}"; }
        sleep 0.1
    done
    echo "rocketmq: port $1 did not listen within 120 s" >&2; stop_all; exit 1
}
# wait_log FILE TEXT: until FILE holds TEXT, with the same bound and exit rule as wait_port.
wait_log() {
    local last="${pids[${#pids[@]}-1]}" rc=0
    for _ in $(seq 1 1200); do
        grep -qF "$2" "$1" 2>/dev/null && return 0
        kill -0 "$last" 2>/dev/null || { wait "$last" || rc=$?; echo "rocketmq: pid $last exited ($rc) before $1 said '$2'" >&2; stop_all; exit "${rc:-1}"; }
        sleep 0.1
    done
    echo "rocketmq: $1 did not say '$2' within 120 s" >&2; stop_all; exit 1
}
stop_all() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait || true; }

java "${nmem[@]}" "${common[@]}" "${extra[@]}" -Dmqconform.proc=namesrv \
    org.apache.rocketmq.namesrv.NamesrvStartup &
pids+=($!)
wait_port 9876
if [ "$mode" = local ]; then
    java "${pmem[@]}" "${common[@]}" "${extra[@]}" -Dmqconform.proc=proxy \
        org.apache.rocketmq.proxy.ProxyStartup -pm local -pc "$home/conf/rmq-proxy.json" -bc "$broker_conf" "$@" &
    pids+=($!)
else
    java "${bmem[@]}" "${common[@]}" "${extra[@]}" -Dmqconform.proc=broker \
        org.apache.rocketmq.broker.BrokerStartup -c "$broker_conf" &
    pids+=($!)
    wait_log "$data/logs/namesrv.log" "new broker registered"
    java "${pmem[@]}" "${common[@]}" "${extra[@]}" -Dmqconform.proc=proxy \
        org.apache.rocketmq.proxy.ProxyStartup -pm cluster -pc "$home/conf/rmq-proxy.json" "$@" &
    pids+=($!)
fi
rc=0
wait -n "${pids[@]}" || rc=$?
gone=""; names=(namesrv "$([ "$mode" = local ] && echo proxy || echo broker)" proxy)
for i in "${!pids[@]}"; do kill -0 "${pids[$i]}" 2>/dev/null || gone="$gone ${names[$i]}"; done
echo "rocketmq: JVM exited (status $rc):${gone:- ?}; stopping the others" >&2
stop_all
exit "$rc"
