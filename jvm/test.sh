#!/usr/bin/env bash
# Tests the JVM example: compiles jvm/src/TogyzTbExample.java against JNA,
# runs it on tables togyz-gen writes, and checks that it prints exactly what
# the C example capi/examples/probe.c prints (which the Rust tests check
# against the Rust library), also from 4 threads at once.
# Needs javac and JNA (Debian: libjna-java); as root it installs JNA with
# apt-get, otherwise it skips with a message. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v javac >/dev/null || ! command -v java >/dev/null; then
    echo "SKIPPED: no javac/java on PATH; install a JDK to test the JVM example"
    exit 0
fi
jna=${JNA_JAR:-/usr/share/java/jna.jar}
if [ ! -f "$jna" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing JNA (apt-get install libjna-java)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libjna-java >/dev/null
    fi
    if [ ! -f "$jna" ]; then
        echo "SKIPPED: JNA not found at $jna (Debian: apt-get install libjna-java, or set JNA_JAR)"
        exit 0
    fi
fi

# The cargo profile to build and use ($TOGYZ_PROFILE: scripts/test.sh uses
# ci).
profile=${TOGYZ_PROFILE:-release}
# scripts/test.sh has built them ($TOGYZ_BUILT), with the workspace's
# features: building two packages alone would build them again with others.
[ -n "${TOGYZ_BUILT:-}" ] || cargo build --quiet --profile "$profile" -p togyz-tb-c -p togyz-gen
lib=target/$profile
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$lib/togyz-gen" generate --max-stones 4 --out "$work/tables" --quiet >/dev/null
cc -std=c11 -O2 -Icapi/include capi/examples/probe.c -L"$lib" -ltogyz_tb \
    -Wl,-rpath,"$PWD/$lib" -lpthread -o "$work/probe"
javac -cp "$jna" -d "$work/classes" jvm/src/TogyzTbExample.java
java_probe() {
    java -cp "$jna:$work/classes" -Djna.library.path="$PWD/$lib" TogyzTbExample "$@"
}

for fen in "7,2S,1/8,2S 79 79 S 1" "2S,8/1S,8 79 80 S 3" "1S,1S,7/1S,1S,7 79 79 S 5" "9/1S,3S,7 79 79 N 1"; do
    c_out=$("$work/probe" "$work/tables" "$fen")
    j_out=$(java_probe "$work/tables" "$fen")
    if [ "$c_out" != "$j_out" ]; then
        echo "FAILED: Java and C disagree on $fen"
        diff <(echo "$c_out") <(echo "$j_out") || true
        exit 1
    fi
done
echo "$j_out" | head -3
out=$(java_probe --threads 4 "$work/tables")
echo "$out" | tail -1
[[ "$out" == *"4 threads x 200 rounds: 4 agreed" ]] || { echo "FAILED: $out"; exit 1; }
# Above the tables both prove the result by search; the statistics and
# (with two threads racing) the move found may differ.
for fen in "9/5S,8 76 81 S 1" "1S,1S,7/1S,1S,1S,6 78 79 N 7"; do
    c_out=$("$work/probe" "$work/tables" "$fen" | sed -E 's/\(.* s; /(/; s/^best move: .*/best move/')
    j_out=$(java_probe "$work/tables" "$fen" | sed -E 's/\(.* s; /(/; s/^best move: .*/best move/')
    if [ "$c_out" != "$j_out" ] || [[ "$j_out" != *"proven by search (tables up to 4 stones)"* ]]; then
        echo "FAILED: Java and C disagree above the tables on $fen"
        diff <(echo "$c_out") <(echo "$j_out") || true
        exit 1
    fi
done
echo "$j_out" | tail -2
set +e
err=$(java_probe "$work/tables" "not a fen" 2>&1 >/dev/null)
code=$?
set -e
[[ $code == 1 && "$err" == *"status 3)"* ]] || { echo "FAILED: bad FEN: $code $err"; exit 1; }
echo "ok: the Java example answers as the C example"
