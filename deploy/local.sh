#!/usr/bin/env bash
# The SPEC §10 topology on one machine, on loopback ports: Redis, three
# hitroute replicas over it, and nginx hashing on the scene id in front.
#
#   deploy/local.sh start    # builds nothing: uses $HITROUTE_BIN or .build/release/hitroute
#   deploy/local.sh stop     # stops what start started, by PID
#   deploy/local.sh status
#   deploy/local.sh stop-replica N   # stops replica N (1-3) by its PID
#   deploy/local.sh start-replica N  # starts it again and waits for its /readyz
#
# Ports (HITROUTE_LOCAL_PORT, default 25080): nginx on PORT, replicas on
# PORT+1..PORT+3, Redis on PORT+299 (25379). State (PIDs, logs, nginx
# prefix, Redis AOF) lives in HITROUTE_LOCAL_DIR (default .local-topology).
# HITROUTE_LOCAL_READ_TIMEOUT (seconds, default 30 as in deploy/nginx.conf)
# replaces nginx's proxy_read_timeout (tests of a replica that stops answering).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
BASE=${HITROUTE_LOCAL_PORT:-25080}
DIR=${HITROUTE_LOCAL_DIR:-$ROOT/.local-topology}
BIN=${HITROUTE_BIN:-$ROOT/.build/release/hitroute}
REDIS_PORT=$((BASE + 299))
REPLICAS=(1 2 3)

wait_http() { # port path
    for _ in $(seq 1 300); do
        if curl -fsS -o /dev/null "http://127.0.0.1:$1$2" 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "local.sh: nothing answered http://127.0.0.1:$1$2" >&2
    return 1
}

launch_replica() { # N: starts replica N over the running Redis, in the background
    "$BIN" --host 127.0.0.1 --port $((BASE + $1)) --store "redis://127.0.0.1:$REDIS_PORT/0" \
        --shutdown-grace 2 --quiet >>"$DIR/logs/replica-$1.log" 2>&1 &
    echo $! >"$DIR/replica-$1.pid"
}

start_replica() { # N: starts replica N again after stop-replica N, and waits for its /readyz
    if [[ -f "$DIR/replica-$1.pid" ]] && kill -0 "$(cat "$DIR/replica-$1.pid")" 2>/dev/null; then
        echo "local.sh: replica $1 is running" >&2; exit 1
    fi
    launch_replica "$1"
    wait_http $((BASE + $1)) /readyz
}

start() {
    [[ -x "$BIN" ]] || { echo "local.sh: no binary at $BIN (swift build -c release, or set HITROUTE_BIN)" >&2; exit 1; }
    command -v redis-server >/dev/null || { echo "local.sh: redis-server not on PATH" >&2; exit 1; }
    command -v nginx >/dev/null || { echo "local.sh: nginx not on PATH" >&2; exit 1; }
    mkdir -p "$DIR/redis" "$DIR/nginx" "$DIR/logs"
    if [[ -f "$DIR/redis.pid" ]] && kill -0 "$(cat "$DIR/redis.pid")" 2>/dev/null; then
        echo "local.sh: already running (stop first)" >&2; exit 1
    fi

    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$DIR/redis" --appendonly yes \
        --save '' --daemonize no --loglevel warning >"$DIR/logs/redis.log" 2>&1 &
    echo $! >"$DIR/redis.pid"
    for _ in $(seq 1 300); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done

    for k in "${REPLICAS[@]}"; do launch_replica "$k"; done
    for k in "${REPLICAS[@]}"; do wait_http $((BASE + k)) /readyz; done

    sed -e "s/127\.0\.0\.1:25080/127.0.0.1:$BASE/" \
        -e "s/127\.0\.0\.1:25081/127.0.0.1:$((BASE + 1))/" \
        -e "s/127\.0\.0\.1:25082/127.0.0.1:$((BASE + 2))/" \
        -e "s/127\.0\.0\.1:25083/127.0.0.1:$((BASE + 3))/" \
        -e "s/^worker_processes 1;/worker_processes 1;\ndaemon off;/" \
        -e "s/proxy_read_timeout [0-9]*s;/proxy_read_timeout ${HITROUTE_LOCAL_READ_TIMEOUT:-30}s;/" \
        "$ROOT/deploy/nginx.conf" >"$DIR/nginx/nginx.conf"
    nginx -p "$DIR/nginx/" -e stderr -c "$DIR/nginx/nginx.conf" >"$DIR/logs/nginx.log" 2>&1 &
    echo $! >"$DIR/nginx.pid"
    wait_http "$BASE" /healthz
    echo "local.sh: nginx http://127.0.0.1:$BASE → replicas $((BASE + 1))-$((BASE + 3)) → redis 127.0.0.1:$REDIS_PORT"
}

stop_pid() { # name
    local f="$DIR/$1.pid"
    [[ -f "$f" ]] || return 0
    local pid
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
}

stop() {
    stop_pid nginx
    for k in "${REPLICAS[@]}"; do stop_pid "replica-$k"; done
    stop_pid redis
    echo "local.sh: stopped"
}

status() {
    for n in redis replica-1 replica-2 replica-3 nginx; do
        if [[ -f "$DIR/$n.pid" ]] && kill -0 "$(cat "$DIR/$n.pid")" 2>/dev/null; then
            echo "$n: running ($(cat "$DIR/$n.pid"))"
        else
            echo "$n: stopped"
        fi
    done
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    stop-replica) stop_pid "replica-${2:?which replica, 1-3}" ;;
    start-replica) start_replica "${2:?which replica, 1-3}" ;;
    pid) cat "$DIR/${2:?which process: redis, replica-N, nginx}.pid" ;;
    *) echo "usage: deploy/local.sh start|stop|status|stop-replica N|start-replica N|pid NAME" >&2; exit 2 ;;
esac
