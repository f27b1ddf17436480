#!/usr/bin/env bash
# Make a Docker-compatible container API available to mqconform.
#
#   scripts/container-engine.sh [ensure]   use a reachable Docker API, or install and start
#                                          podman's Docker-compatible service; print the
#                                          environment to use as KEY=VALUE lines on stdout
#   scripts/container-engine.sh install    only install the packages (podman runc debootstrap mmdebstrap)
#   scripts/container-engine.sh env        print the environment for the running service
#   scripts/container-engine.sh status     exit 0 when the API answers, 1 otherwise
#   scripts/container-engine.sh stop       stop the podman service this script started
#
# Idempotent: what is there (packages, config, a running service) is kept.
# Every wait is bounded. State lives in $MQCONFORM_STATE, default <project>/.mqconform
# (git-ignored): containers.conf, podman.sock, podman.pid, podman.log.
#
# Env: MQCONFORM_STATE, MQCONFORM_ENGINE (auto|docker|podman; default auto),
#      MQCONFORM_ENGINE_WAIT (seconds to wait for the socket, default 30),
#      DOCKER_HOST (an existing Docker API is used when it answers).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
# Resolved (a worktree's .mqconform may be a link): the service must not name a path that goes away.
state="$(realpath -m "${MQCONFORM_STATE:-$root/.mqconform}")"
mode="${MQCONFORM_ENGINE:-auto}"
wait_s="${MQCONFORM_ENGINE_WAIT:-30}"
conf="$state/containers.conf"
sock="$state/podman.sock"
pidfile="$state/podman.pid"
logfile="$state/podman.log"

log() { echo "container-engine: $*" >&2; }
die() { echo "container-engine: error: $*" >&2; exit 1; }

# ping URL_OR_SOCKET -> 0 when a Docker API answers /_ping with OK within 3 s
ping_api() {
    local host="$1"
    case "$host" in
        unix://*)
            local path="${host#unix://}"
            [ -S "$path" ] || return 1
            curl -fsS --max-time 3 --unix-socket "$path" http://d/_ping 2>/dev/null | grep -q OK ;;
        tcp://*)
            curl -fsS --max-time 3 "http://${host#tcp://}/_ping" 2>/dev/null | grep -q OK ;;
        *) return 1 ;;
    esac
}

docker_env() {
    echo "MQCONFORM_ENGINE_KIND=docker"
    echo "DOCKER_HOST=$1"
    echo "TESTCONTAINERS_RYUK_DISABLED=true"
}

podman_env() {
    echo "MQCONFORM_ENGINE_KIND=podman"
    echo "DOCKER_HOST=unix://$sock"
    echo "CONTAINERS_CONF=$conf"
    echo "TESTCONTAINERS_RYUK_DISABLED=true"
    echo "TESTCONTAINERS_CONNECTION_MODE=docker_host"
}

find_docker() {
    if [ -n "${DOCKER_HOST:-}" ] && [ "$DOCKER_HOST" != "unix://$sock" ] && ping_api "$DOCKER_HOST"; then
        docker_env "$DOCKER_HOST"; return 0
    fi
    if ping_api unix:///var/run/docker.sock; then
        docker_env unix:///var/run/docker.sock; return 0
    fi
    return 1
}

install_packages() {
    local missing=()
    command -v podman >/dev/null 2>&1 || missing+=(podman)
    command -v runc >/dev/null 2>&1 || missing+=(runc)
    command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
    command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
    command -v curl >/dev/null 2>&1 || missing+=(curl)
    if [ "${#missing[@]}" -eq 0 ]; then
        return 0
    fi
    [ "$(id -u)" -eq 0 ] || die "need root to apt-get install ${missing[*]} (or install them yourself)"
    command -v apt-get >/dev/null 2>&1 || die "no apt-get: install ${missing[*]} yourself, or provide a Docker API via DOCKER_HOST"
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # one of the project's apt runs at a time (scripts/bootstrap.sh may install beside this)
    exec 8>/var/lock/mqconform-apt.lock
    flock -w 900 8 || die "another install held /var/lock/mqconform-apt.lock for 900s"
    timeout 300 apt-get update -qq >&2 || die "apt-get update failed"
    timeout 900 apt-get install -y -qq --no-install-recommends "${missing[@]}" \
        uidmap fuse-overlayfs slirp4netns iptables >&2 \
        || die "apt-get install ${missing[*]} failed"
    # The lock goes with the install: a descriptor left open is inherited by the podman service this
    # script starts and by the job after it, which would hold the lock for as long as they live.
    exec 8>&-
}

write_conf() {
    mkdir -p "$state"
    # the state dir ignores itself, whatever the project's .gitignore says
    [ -f "$state/.gitignore" ] || printf '*\n' > "$state/.gitignore"
    local want
    # crun fails here on setrlimit and on hybrid cgroups: use runc, no default ulimits.
    # An exec session made through the Docker API keeps its conmon process this many seconds after
    # the exec ends (podman's default 300, after Docker's cleanup of exec sessions), also when its
    # container is gone; the suite reads an exec's exit code as soon as it ends, so 15 s. A service
    # already running keeps the delay it was started with.
    want='[containers]
default_ulimits = []

[engine]
runtime = "runc"
exit_command_delay = 15
'
    if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$(printf '%s' "$want")" ]; then
        printf '%s' "$want" > "$conf"
    fi
}

service_running() {
    [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

start_service() {
    write_conf
    export CONTAINERS_CONF="$conf"
    if service_running && ping_api "unix://$sock"; then
        return 0
    fi
    if service_running; then
        # running but not answering: give it the bounded wait below, do not start a second one
        log "podman service (pid $(cat "$pidfile")) not answering yet"
    else
        rm -f "$sock" "$pidfile"
        log "starting podman system service on $sock"
        # setsid: the service outlives this script and is not hit by the caller's Ctrl-C; started
        # from / so that it never works in a folder that may be removed under it (its containers
        # would then fail to start: conmon cannot get its working directory)
        (cd / && exec setsid podman system service --time=0 "unix://$sock" >>"$logfile" 2>&1 < /dev/null 9>&-) &
        echo $! > "$pidfile"
    fi
    local deadline=$(( $(date +%s) + wait_s ))
    until ping_api "unix://$sock"; do
        if ! service_running; then
            die "podman system service exited; last log lines:
$(tail -n 20 "$logfile" 2>/dev/null)"
        fi
        if [ "$(date +%s)" -ge "$deadline" ]; then
            die "podman service socket $sock did not answer within ${wait_s}s; last log lines:
$(tail -n 20 "$logfile" 2>/dev/null)"
        fi
        sleep 0.2
    done
}

stop_service() {
    if service_running; then
        local pid; pid="$(cat "$pidfile")"
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
        log "stopped podman service (pid $pid)"
    fi
    rm -f "$pidfile" "$sock"
}

cmd="${1:-ensure}"
case "$cmd" in
    ensure|stop)
        # one starter at a time (parallel test workers, CI and a developer's shell)
        mkdir -p "$state"
        exec 9>"$state/engine.lock"
        flock -w "$(( wait_s + 60 ))" 9 || die "another container-engine.sh holds $state/engine.lock" ;;
esac
case "$cmd" in
    ensure)
        if [ "$mode" != podman ] && find_docker; then exit 0; fi
        [ "$mode" = docker ] && die "MQCONFORM_ENGINE=docker but no Docker API answers (DOCKER_HOST=${DOCKER_HOST:-unset}, /var/run/docker.sock)"
        install_packages
        start_service
        podman_env ;;
    install)
        install_packages; write_conf ;;
    env)
        if [ "$mode" != podman ] && find_docker; then exit 0; fi
        ping_api "unix://$sock" || die "podman service not running (run: $0 ensure)"
        podman_env ;;
    status)
        if [ "$mode" != podman ] && find_docker >/dev/null; then exit 0; fi
        ping_api "unix://$sock" ;;
    stop)
        stop_service ;;
    *)
        die "unknown command $cmd (ensure|install|env|status|stop)" ;;
esac
