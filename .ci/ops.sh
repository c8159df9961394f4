#!/usr/bin/env bash
# CI step for SPEC §8 (operations), run by .ci/run with the release server
# already listening on $BASE:
#
#   1. scrape $BASE/metrics in the text format and run `promtool check
#      metrics` on it (Debian's prometheus package; installed if missing);
#   2. scrape it with Prometheus' own Accept header and parse the
#      OpenMetrics answer with prometheus-client's strict parser;
#   2b. a real Prometheus scrapes a server with its own content negotiation,
#      its targets found as deploy/prometheus.yml finds pods (.ci/prometheus.py);
#   2c. with --log-format json every line is one JSON object (.ci/json_logs.py);
#   3. start a second release server with a key file on $OPS_PORT and check
#      401 / 401 invalid_token / 403 / 200, that SIGHUP reloads the file,
#      and that no key reaches its JSON log; stop it by its PID.
#
# Environment: BASE, ROOT, VENV, WORK (from .ci/run); OPS_PORT (default 18090).
set -euo pipefail
: "${BASE:?}" "${ROOT:?}" "${VENV:?}" "${WORK:?}"
OPS_PORT=${OPS_PORT:-18090}
OPS_BASE="http://127.0.0.1:${OPS_PORT}"
BIN="$ROOT/.build/release/hitroute"
fails=0
ok() { echo "ok    $*"; }
bad() { echo "FAIL  $*"; fails=$((fails + 1)); }

if ! command -v promtool >/dev/null; then
    echo "installing promtool (Debian package prometheus)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
promtool --version 2>&1 | head -1
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check 'prometheus-client>=0.20,<1' 'PyYAML>=6'

# 1. text format 0.0.4 through promtool
curl -fsS -D "$WORK/metrics.head" -o "$WORK/metrics.txt" "$BASE/metrics"
if grep -qi '^content-type: text/plain; version=0.0.4; charset=utf-8' "$WORK/metrics.head"; then
    ok "text format content type"
else
    bad "text format content type: $(grep -i '^content-type' "$WORK/metrics.head")"
fi
if promtool check metrics <"$WORK/metrics.txt"; then ok "promtool check metrics"; else bad "promtool check metrics"; fi
for name in hitroute_http_requests_total hitroute_http_request_duration_seconds_bucket hitroute_points_routed_total \
    hitroute_scenes process_cpu_seconds_total process_start_time_seconds hitroute_build_info; do
    if grep -q "^$name" "$WORK/metrics.txt"; then ok "has $name"; else bad "no $name in the scrape"; fi
done

# 2. OpenMetrics through the strict parser
accept='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
curl -fsS -H "Accept: $accept" -D "$WORK/om.head" -o "$WORK/metrics.om" "$BASE/metrics"
if grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$WORK/om.head"; then
    ok "OpenMetrics negotiated"
else
    bad "OpenMetrics not negotiated: $(grep -i '^content-type' "$WORK/om.head")"
fi
if "$VENV/bin/python" - "$WORK/metrics.om" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
families = list(text_string_to_metric_families(open(sys.argv[1]).read()))
names = {f.name: f.type for f in families}
assert names.get("hitroute_http_requests") == "counter", names
assert names.get("hitroute_http_request_duration_seconds") == "histogram", names
assert names.get("hitroute_build_info") == "gauge", names
print(f"{len(families)} families parsed strictly")
PY
then ok "prometheus_client OpenMetrics parser"; else bad "prometheus_client OpenMetrics parser"; fi

# 2b. a real Prometheus
if timeout 300 "$VENV/bin/python" "$ROOT/.ci/prometheus.py" --binary "$BIN" --work "$WORK/prometheus"; then
    ok "Prometheus scraped it: target up"
else
    bad "Prometheus scrape"
fi

# 2c. JSON logs all the way
if timeout 300 python3 "$ROOT/.ci/json_logs.py" --binary "$BIN"; then ok "JSON logs"; else bad "JSON logs"; fi

# 3. API keys on a second server
keys="$WORK/keys"
read_key="ci-read-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
write_key="ci-write-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
new_key="ci-new-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
printf '# CI keys\nread %s\nwrite %s\n' "$read_key" "$write_key" >"$keys"
if curl -s -o /dev/null --max-time 2 "$OPS_BASE/healthz"; then
    bad "something already answers on $OPS_BASE"
    exit 1
fi
"$BIN" --port "$OPS_PORT" --api-keys-file "$keys" --log-format json >"$WORK/ops-server.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do curl -fsS -o /dev/null --max-time 2 "$OPS_BASE/healthz" 2>/dev/null && break; sleep 0.5; done

expect() { # name expected-status curl-args...
    local name=$1 want=$2 got
    shift 2
    got=$(curl -sS -o "$WORK/ops-body" -D "$WORK/ops-head" -w '%{http_code}' "$@")
    if [[ "$got" == "$want" ]]; then ok "$name -> $got"; else bad "$name -> $got, want $want: $(cat "$WORK/ops-body")"; fi
}
challenge() { # expected WWW-Authenticate value
    if grep -qiF "www-authenticate: $1" "$WORK/ops-head"; then ok "  WWW-Authenticate: $1"; else bad "  no WWW-Authenticate: $1"; fi
}
expect "healthz without a key" 200 "$OPS_BASE/healthz"
expect "GET /scenes without a key" 401 "$OPS_BASE/scenes"
challenge 'Bearer realm="hitroute"'
expect "GET /scenes with an unknown key" 401 -H "Authorization: Bearer unknown-key-0000000000" "$OPS_BASE/scenes"
challenge 'Bearer realm="hitroute", error="invalid_token"'
expect "PUT with a read key" 403 -X PUT -H "Authorization: Bearer $read_key" --data-binary @"$ROOT/examples/ring-over-button.json" "$OPS_BASE/scenes/ring-demo"
challenge 'Bearer realm="hitroute", error="insufficient_scope", scope="write"'
expect "PUT with a write key" 201 -X PUT -H "Authorization: Bearer $write_key" --data-binary @"$ROOT/examples/ring-over-button.json" "$OPS_BASE/scenes/ring-demo"
expect "hit with a read key" 200 -H "Authorization: Bearer $read_key" "$OPS_BASE/scenes/ring-demo/hit?x=120&y=120"
expect "/metrics without a key" 401 "$OPS_BASE/metrics"
expect "/metrics with a read key" 200 -H "Authorization: Bearer $read_key" "$OPS_BASE/metrics"
cp "$WORK/ops-body" "$WORK/ops-metrics.txt"
expect "preflight without a key" 204 -X OPTIONS -H 'Origin: http://example.test' -H 'Access-Control-Request-Method: PUT' "$OPS_BASE/scenes/x"

printf 'read %s\n' "$new_key" >"$keys"
kill -HUP "$pid"
for _ in $(seq 1 100); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $new_key" "$OPS_BASE/scenes") == 200 ]] && break
    sleep 0.1
done
expect "after SIGHUP the new key" 200 -H "Authorization: Bearer $new_key" "$OPS_BASE/scenes"
expect "after SIGHUP the old key" 401 -H "Authorization: Bearer $write_key" "$OPS_BASE/scenes"

kill -TERM "$pid"
wait "$pid" || true
trap - EXIT
if grep -qF -e "$read_key" -e "$write_key" -e "$new_key" "$WORK/ops-server.log" "$WORK/ops-metrics.txt"; then
    bad "a key appears in the log or the metrics"
else
    ok "no key in the log ($(grep -c '"requestId"' "$WORK/ops-server.log") JSON lines) or the metrics"
fi
grep -q 'API keys required' "$WORK/ops-server.log" && ok "start-up says keys are required" || bad "no start-up note about keys"
grep -q 'reloaded 1 API key' "$WORK/ops-server.log" && ok "SIGHUP reload logged" || bad "SIGHUP reload not logged"
echo "$fails operations check(s) failed"
[[ $fails -eq 0 ]]
