#!/usr/bin/env bash
# CI for deploy/ (SPEC §10):
#
#   bash .ci/deploy.sh check      # nginx -t (deploy/nginx.conf's own command),
#                                 # kubernetes-validate, yamllint
#   bash .ci/deploy.sh shipped    # the release binary as the Dockerfile and
#                                 # deploy/k8s start it (.ci/shipped.py)
#   bash .ci/deploy.sh topology   # deploy/local.sh start, .ci/replicas.py,
#                                 # promtool on a replica's scrape, readiness
#                                 # after Redis is stopped and continued,
#                                 # nginx's problem+json with the replicas
#                                 # gone, stop
#
# Installs what it needs (apt-get nginx redis-server curl; pip
# kubernetes-validate yamllint into $VENV, default .ci/.venv). Everything
# listens on loopback; every process is stopped by its PID.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
VENV=${VENV:-$ROOT/.ci/.venv}

need_apt() {
    local -a need=()
    for tool in "$@"; do command -v "$tool" >/dev/null || need+=("$tool"); done
    if ((${#need[@]})); then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update
        apt-get install -y --no-install-recommends "${need[@]/redis-cli/redis-tools}"
    fi
}

check() {
    need_apt nginx
    [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check 'kubernetes-validate>=1.28' 'yamllint>=1.30'
    # The check command in deploy/nginx.conf's header, run as written.
    local command
    command=$(sed -n 's/^#   \(nginx -t .*\)$/\1/p' deploy/nginx.conf)
    [[ -n "$command" ]] || { echo "no check command in deploy/nginx.conf's header" >&2; return 1; }
    echo "+ $command"
    bash -c "$command"
    "$VENV/bin/yamllint" -d '{extends: default, rules: {line-length: {max: 160}, document-start: {present: true}}}' deploy/k8s
    "$VENV/bin/kubernetes-validate" --strict deploy/k8s/*.yaml
}

shipped() {
    need_apt redis-server
    [[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
    "$VENV/bin/python" -c 'import yaml' 2>/dev/null \
        || "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check 'PyYAML>=6'
    timeout 600 "$VENV/bin/python" .ci/shipped.py --binary "$ROOT/.build/release/hitroute" --work "${WORK:-$(mktemp -d)}/shipped"
}

# expect_problem URL STATUS RETRY-AFTER(yes|no): nginx's own answer is problem+json.
expect_problem() {
    local url=$1 want=$2 retry=$3 head body code
    head=$(mktemp) body=$(mktemp)
    code=$(curl -sS -o "$body" -D "$head" -w '%{http_code}' --max-time 60 "$url")
    echo "GET $url -> $code $(cat "$body")"
    [[ "$code" == "$want" ]] || { echo "FAIL: status $code, want $want" >&2; return 1; }
    grep -qi '^content-type: application/problem+json' "$head" || { echo "FAIL: not problem+json" >&2; cat "$head"; return 1; }
    if [[ "$retry" == yes ]]; then
        grep -qi '^retry-after: 1' "$head" || { echo "FAIL: no Retry-After" >&2; return 1; }
    else
        ! grep -qi '^retry-after:' "$head" || { echo "FAIL: Retry-After on $code" >&2; return 1; }
    fi
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); h=open(sys.argv[3]).read().lower()
assert d["status"] == int(sys.argv[2]) and d["type"].startswith("/problems/") and d["title"] and d["detail"], d
assert "x-request-id: " + d["requestId"].lower() in h, (d, h)' "$body" "$want" "$head"
    rm -f "$head" "$body"
}


topology() {
    need_apt nginx redis-server redis-cli curl
    export HITROUTE_LOCAL_DIR
    HITROUTE_LOCAL_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hitroute-topology.XXXXXX")
    export HITROUTE_LOCAL_READ_TIMEOUT=5
    trap 'bash deploy/local.sh stop || true' EXIT
    bash deploy/local.sh start
    timeout 600 python3 .ci/replicas.py --base "http://127.0.0.1:${HITROUTE_LOCAL_PORT:-25080}"
    # A replica in Redis mode reports what its cache holds (SPEC §8).
    command -v promtool >/dev/null || need_apt prometheus
    local scrape="$HITROUTE_LOCAL_DIR/replica1.metrics"
    curl -fsS --max-time 10 -o "$scrape" "http://127.0.0.1:$((${HITROUTE_LOCAL_PORT:-25080} + 1))/metrics"
    promtool check metrics <"$scrape"
    for name in hitroute_scenes hitroute_layers hitroute_store_bytes hitroute_pointer_captures \
        hitroute_cache_capacity_bytes hitroute_cache_evictions_total hitroute_cache_loads_total hitroute_redis_exchange_duration_seconds_count hitroute_redis_errors_total hitroute_redis_recoveries_total hitroute_redis_pubsub_messages_total 'hitroute_store_ready{backend="redis"} 1'; do
        grep -q "^$name" "$scrape" || { echo "FAIL: no $name in a replica's scrape" >&2; return 1; }
    done
    echo "a replica's scrape: promtool ok, $(grep '^hitroute_scenes ' "$scrape")"

    # Redis paused with a write in flight: the write is a 503; once Redis
    # continues, every live replica's /readyz is 200 again with nothing but
    # probes arriving (the store's health check reconnects).
    local redis_pid port ready code
    redis_pid=$(bash deploy/local.sh pid redis)
    curl -fsS -o /dev/null -X PUT --data-binary @examples/ring-over-button.json \
        "http://127.0.0.1:${HITROUTE_LOCAL_PORT:-25080}/scenes/ring-demo"
    kill -STOP "$redis_pid"
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 -X PATCH -H 'Content-Type: application/json' \
        --data-binary '{"action":"paused"}' "http://127.0.0.1:${HITROUTE_LOCAL_PORT:-25080}/scenes/ring-demo/layers/ring")
    echo "PATCH while Redis is stopped -> $code"
    kill -CONT "$redis_pid"
    [[ "$code" == 503 ]] || { echo "FAIL: the write in flight answered $code, not 503" >&2; return 1; }
    for k in 1 2 3; do
        [[ -f "$HITROUTE_LOCAL_DIR/replica-$k.pid" ]] || continue
        port=$((${HITROUTE_LOCAL_PORT:-25080} + k))
        ready=""
        for _ in $(seq 1 300); do
            if [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz") == 200 ]]; then ready=yes; break; fi
            sleep 0.1
        done
        [[ -n "$ready" ]] || { echo "FAIL: replica $k's /readyz did not come back" >&2; return 1; }
        echo "replica $k: /readyz 200 again after Redis continued"
    done

    # The replicas gone: nginx answers problem+json, not its HTML pages.
    # .ci/replicas.py has stopped replica 2; it starts again first, so that
    # every try nginx makes meets a replica that hangs (a refused connect on
    # the second try would make the answer a 502, whichever replica the
    # scene hashes to first).
    local base="http://127.0.0.1:${HITROUTE_LOCAL_PORT:-25080}" k
    local -a live=()
    bash deploy/local.sh start-replica 2
    for k in 1 2 3; do [[ -f "$HITROUTE_LOCAL_DIR/replica-$k.pid" ]] && live+=("$(bash deploy/local.sh pid "replica-$k")"); done
    [[ ${#live[@]} -eq 3 ]] || { echo "FAIL: ${#live[@]} replicas running, not 3" >&2; return 1; }
    echo "replicas: ${#live[@]}; stopping them with SIGSTOP"
    for k in "${live[@]}"; do kill -STOP "$k"; done
    expect_problem "$base/scenes/ring-demo/hit?x=1&y=1" 504 no
    for k in "${live[@]}"; do kill -CONT "$k"; done
    for k in 1 2 3; do bash deploy/local.sh stop-replica "$k"; done
    expect_problem "$base/scenes/ring-demo/hit?x=1&y=1" 502 yes
    expect_problem "$base/healthz" 502 yes
    echo "replicas gone: nginx answered problem+json (504 while they hung, 502 once they were stopped)"
}

case "${1:-check}" in
    check) check ;;
    shipped) shipped ;;
    topology) topology ;;
    *) echo "usage: .ci/deploy.sh check|shipped|topology" >&2; exit 2 ;;
esac
