#!/usr/bin/env bash
# The one command for hitroute's benchmarks (issue 5): bash Benchmarks/run.sh [--quick]
#
# Installs what is missing (wrk, nginx, curl, node from Debian; shapely, numpy,
# uvicorn, starlette from PyPI into Benchmarks/.venv), builds hitroute,
# hitroute-bench and the in-process bench in release mode, then runs
# Benchmarks/harness.py: every server on a free loopback port under a bounded
# lifetime, interleaved rounds, one markdown table printed and written to
# Benchmarks/results/latest.md. Full run ≈ 11–14 min, --quick ≈ 5 min (plus the first build).
# The optional PostGIS peer (postgresql-postgis from Debian, psycopg from
# PyPI) is installed and run unless --no-postgis; if it cannot be had, the
# run goes on without it and says so.
#
# Environment: HITROUTE_BENCH_SCRATCH (build folder; default Benchmarks/.build),
# HITROUTE_BENCH_PORT_BASE (first port tried; default 28400).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OPTS=()
POSTGIS=1
for arg in "$@"; do
  case "$arg" in
    --quick) OPTS+=(--quick) ;;
    --no-postgis) POSTGIS=0; OPTS+=(--no-postgis) ;;
    -h|--help) sed -n 2,16p "$0"; exit 0 ;;
    *) echo "unknown argument: $arg (--quick, --no-postgis)" >&2; exit 2 ;;
  esac
done

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# ---- tools from Debian, only when missing
need=()
command -v wrk >/dev/null || need+=(wrk)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v curl >/dev/null || need+=(curl)
command -v node >/dev/null || need+=(nodejs)
command -v timeout >/dev/null || need+=(coreutils)
command -v pgrep >/dev/null || need+=(procps)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
UPDATED=0
apt_install() {
  say "installing from Debian: $*"
  if [ $UPDATED = 0 ]; then apt-get update -qq; UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
if [ ${#need[@]} -gt 0 ]; then apt_install "${need[@]}"; fi
if [ $POSTGIS = 1 ] && ! ls /usr/share/postgresql/*/extension/postgis.control >/dev/null 2>&1; then
  apt_install postgresql-postgis || say "PostGIS could not be installed: running without it"
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

# ---- Python peers' packages from PyPI, in a git-ignored venv
VENV=$ROOT/Benchmarks/.venv
if ! "$VENV/bin/python" -c 'import shapely, numpy, uvicorn, starlette' 2>/dev/null; then
  say "creating $VENV (shapely numpy uvicorn starlette)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check shapely numpy uvicorn starlette
fi
if [ $POSTGIS = 1 ] && ! "$VENV/bin/python" -c 'import psycopg' 2>/dev/null; then
  "$VENV/bin/pip" install -q --disable-pip-version-check "psycopg[binary]" || say "psycopg could not be installed: no PostGIS peer"
fi

# ---- builds
SCRATCH=${HITROUTE_BENCH_SCRATCH:-$ROOT/Benchmarks/.build}
say "building hitroute, hitroute-bench and hitroute-inproc (release) in $SCRATCH"
mkdir -p "$SCRATCH"
build() {
  if ! swift build -c release "$@" >"$SCRATCH/build.log" 2>&1; then
    tail -40 "$SCRATCH/build.log" >&2
    say "build failed: swift build -c release $*"
    exit 1
  fi
}
build --scratch-path "$SCRATCH/service" --product hitroute
build --scratch-path "$SCRATCH/service" --product hitroute-bench
# The repository is a path dependency of Benchmarks/inproc: without this flag
# SwiftPM reuses its cached build manifest and misses source files added since
# the last build (seen after merges: "cannot find 'OffloadPool' in scope").
build --package-path Benchmarks/inproc --scratch-path "$SCRATCH/inproc" --disable-build-manifest-caching
BIN=$(swift build -c release --scratch-path "$SCRATCH/service" --show-bin-path)
INPROC=$(swift build -c release --package-path Benchmarks/inproc --scratch-path "$SCRATCH/inproc" --show-bin-path)

# ---- the run: the harness stops its servers on exit; the trap stops the harness
HARNESS_PID=
cleanup() {
  if [ -n "$HARNESS_PID" ] && kill -0 "$HARNESS_PID" 2>/dev/null; then
    kill -TERM "$HARNESS_PID" 2>/dev/null || true
    wait "$HARNESS_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
timeout --signal=TERM --kill-after=30 2400 \
  "$VENV/bin/python" "$ROOT/Benchmarks/harness.py" "${OPTS[@]}" \
  --hitroute "$BIN/hitroute" --bench "$BIN/hitroute-bench" --inproc "$INPROC/hitroute-inproc" \
  --nginx "$NGINX" --port-base "${HITROUTE_BENCH_PORT_BASE:-28400}" \
  --out "$ROOT/Benchmarks/results/latest.md" &
HARNESS_PID=$!
wait "$HARNESS_PID"
