#!/usr/bin/env bash
# The server's container image built FROM scratch with podman, run, and
# asked a position over loopback (deploy/README.md, "Container").
#
# No base image is pulled: the image holds the release binary, the
# libraries `ldd` names for it (libc, libm, libgcc_s and the dynamic
# loader) and nothing else; the tables come from a read-only volume.
#
# Usage: deploy/scratch-image.sh TABLES_DIR   (tables of at least 4 stones)
# $BIN: the togyz-probe to put in the image (default: a release build,
# made here when missing); $IMAGE: the image's name (togyz-tb-scratch);
# $RUNTIME: the OCI runtime (podman's default, crun, unless given).
set -euo pipefail
tables=$(realpath "${1:?usage: deploy/scratch-image.sh TABLES_DIR}")
cd "$(dirname "$0")/.."
image=${IMAGE:-togyz-tb-scratch}
bin=${BIN:-target/release/togyz-probe}
[ -n "${BIN:-}" ] || cargo build --quiet --release -p togyz-cli --bin togyz-probe
command -v podman >/dev/null || { echo "podman is not installed (apt-get install podman)" >&2; exit 1; }

ctx=$(mktemp -d)
name="togyz-tb-test-$$"
trap 'podman ${RUNTIME:+--runtime "$RUNTIME"} rm -f "$name" >/dev/null 2>&1 || true; rm -rf "$ctx"' EXIT
mkdir -p "$ctx/root/tables" "$ctx/root/tmp"
install -m 755 "$bin" "$ctx/root/togyz-probe"
# The binary's libraries and the loader, at the paths the binary names.
for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
    mkdir -p "$ctx/root$(dirname "$lib")"
    cp -L "$lib" "$ctx/root$lib"
done
cat > "$ctx/Containerfile" <<'EOF'
FROM scratch
COPY root/ /
ENV TOGYZ_TABLES=/tables
VOLUME ["/tables"]
# Not root: any uid will do, the binary needs no file of its own.
USER 10001:10001
EXPOSE 9000
ENTRYPOINT ["/togyz-probe", "serve", "--bind", "0.0.0.0:9000"]
CMD ["--search-time", "10", "--searches", "2", "--search-memory", "509M"]
EOF
podman build --quiet -t "$image" -f "$ctx/Containerfile" "$ctx" >/dev/null
echo "image $image: $(podman image inspect "$image" --format '{{.Size}}') bytes, its files:"
(cd "$ctx/root" && find . -type f | sort | sed 's/^\./  /')

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Podman raises the open-file and process limits to its defaults, which a
# host without CAP_SYS_RESOURCE (as a sandboxed VM) refuses: ask for less.
# $RUNTIME: another OCI runtime (runc where crun refuses a hybrid cgroup
# layout).
podman ${RUNTIME:+--runtime "$RUNTIME"} run -d --ulimit nofile=16384:16384 --ulimit nproc=4096:4096 \
    --name "$name" -p "127.0.0.1:$port:9000" -v "$tables:/tables:ro" "$image" >/dev/null
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.1
done
fen='7,2S,1/8,2S_79_79_S_1'
answer=$(curl -sf "http://127.0.0.1:$port/v1/togyzkumalak?fen=$fen")
echo "GET /v1/togyzkumalak?fen=$fen from the container:"
echo "  ${answer:0:160}…"
# The container's answer is the command line's.
want=$("$bin" query --json --tables "$tables" --search-time 0 "${fen//_/ }")
python3 - "$answer" "$want" <<'EOF'
import json, sys
got, want = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for k, v in want.items():
    assert got.get(k) == v or k == "moves", (k, got.get(k), v)
assert [m["move"] for m in got["moves"]] == [m["move"] for m in want["moves"]]
print(f"  the same as query --json: {got['result']} in {got['dtm']} plies for {got['side']}")
EOF
podman ${RUNTIME:+--runtime "$RUNTIME"} logs "$name" 2>&1 | head -3 | sed 's/^/  log: /'
