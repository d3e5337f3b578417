#!/bin/bash
# Generation and verification of the top level, two builds side by side:
# BEFORE and AFTER (two togyz-gen binaries) alternate run by run, each
# generating level N of a metric on the same levels 1..N-1 (hard links
# into a fresh folder), then each verifying the set up to N. One line a
# run (/usr/bin/time: wall, user, sys seconds, peak kB) goes to OUT.
#
#   bench/gen-speed/pair.sh BEFORE AFTER BASE N RUNS METRIC OUT
#
# BASE holds levels 1..N of METRIC and nothing more (made by either build:
# the bytes are the same; the last runs' level N files are compared).
set -euo pipefail
before=$1 after=$2 base=$3 n=$4 runs=$5 metric=$6 out=$7
top=$(printf 'togyz-%02d.tkb' "$n")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # name binary
  rm -rf "$work/$1" && mkdir "$work/$1"
  for m in $(seq 1 $((n - 1))); do
    ln "$base/$(printf 'togyz-%02d.tkb' "$m")" "$work/$1/"
  done
  /usr/bin/time -f "$1 generate %e %U %S %M" -a -o "$out" \
    "$2" generate --quiet --metric "$metric" --max-stones "$n" --threads 2 --out "$work/$1" > /dev/null
}
check() { # name binary
  /usr/bin/time -f "$1 verify %e %U %S %M" -a -o "$out" \
    "$2" verify --quiet --threads 2 --tables "$base" > /dev/null
}
for _ in $(seq "$runs"); do run before "$before"; run after "$after"; done
cmp "$work/before/$top" "$work/after/$top" && echo "level $n: identical" >> "$out"
for _ in $(seq "$runs"); do check before "$before"; check after "$after"; done
