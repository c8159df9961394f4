#!/usr/bin/env bash
# CI for deploy/ (SPEC §10):
#
#   bash .ci/deploy.sh check      # nginx -t, kubernetes-validate, yamllint
#   bash .ci/deploy.sh topology   # deploy/local.sh start, .ci/replicas.py,
#                                 # promtool on a replica's scrape, stop
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
    local prefix
    prefix=$(mktemp -d "${TMPDIR:-/tmp}/hitroute-nginx.XXXXXX")
    mkdir -p "$prefix/tmp"
    nginx -t -p "$prefix/" -e stderr -c "$ROOT/deploy/nginx.conf"
    rm -rf "$prefix"
    "$VENV/bin/yamllint" -d '{extends: default, rules: {line-length: {max: 160}, document-start: {present: true}}}' deploy/k8s
    "$VENV/bin/kubernetes-validate" --strict deploy/k8s/*.yaml
}

topology() {
    need_apt nginx redis-server redis-cli curl
    export HITROUTE_LOCAL_DIR
    HITROUTE_LOCAL_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hitroute-topology.XXXXXX")
    trap 'bash deploy/local.sh stop || true' EXIT
    bash deploy/local.sh start
    timeout 600 python3 .ci/replicas.py --base "http://127.0.0.1:${HITROUTE_LOCAL_PORT:-25080}"
    # A replica in Redis mode reports what its cache holds (SPEC §8).
    command -v promtool >/dev/null || need_apt prometheus
    local scrape="$HITROUTE_LOCAL_DIR/replica1.metrics"
    curl -fsS --max-time 10 -o "$scrape" "http://127.0.0.1:$((${HITROUTE_LOCAL_PORT:-25080} + 1))/metrics"
    promtool check metrics <"$scrape"
    for name in hitroute_scenes hitroute_layers hitroute_store_bytes hitroute_pointer_captures \
        hitroute_cache_capacity_bytes hitroute_cache_evictions_total hitroute_cache_loads_total 'hitroute_store_ready{backend="redis"} 1'; do
        grep -q "^$name" "$scrape" || { echo "FAIL: no $name in a replica's scrape" >&2; return 1; }
    done
    echo "a replica's scrape: promtool ok, $(grep '^hitroute_scenes ' "$scrape")"
}

case "${1:-check}" in
    check) check ;;
    topology) topology ;;
    *) echo "usage: .ci/deploy.sh check|topology" >&2; exit 2 ;;
esac
