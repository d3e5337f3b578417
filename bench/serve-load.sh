#!/usr/bin/env bash
# The HTTP server's load test (docs/performance.md, "The HTTP server"):
# togyz-probe serve over the 8-stone tables on a loopback port, then
# examples/serve_load at 64 connections, alone and with 8 search clients.
# Usage: bench/serve-load.sh TABLES_DIR [SECONDS_A_PHASE]   (output on stdout;
# $SERVE_BIN: another build of togyz-probe to serve with; $PROFILE: the
# Cargo profile to build and run, ci by default, release for the figures
# of a deployment)
set -euo pipefail
SERVE_ARGS=${SERVE_ARGS:-}   # more options for serve, e.g. "--workers 4"
tables=${1:?usage: bench/serve-load.sh TABLES_DIR [SECONDS]}
seconds=${2:-10}
cd "$(dirname "$0")/.."
profile=${PROFILE:-ci}
cargo build -q --profile "$profile" -p togyz-cli --bin togyz-probe --example serve_load
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# The log line of each request goes to /dev/null: a terminal would be the
# bottleneck, not the server.
"${SERVE_BIN:-./target/$profile/togyz-probe}" serve --tables "$tables" --bind "127.0.0.1:$port" $SERVE_ARGS 2>/dev/null &
server=$!
trap 'kill $server' EXIT
for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.1
done
echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD), profile $profile; $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
./target/$profile/examples/serve_load --url "http://127.0.0.1:$port" --max-stones 8 \
    --connections 64 --searchers 8 --search-time 2 --seconds "$seconds"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
