#!/usr/bin/env bash
# The whole test suite, as the README's test command and CI run it. Every
# part of the project adds its tests here, so that one command runs them all.
# Each part starts with a line giving the time and the seconds so far, so
# that a slow part shows.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
start=$SECONDS
part() { echo "== [$(date -u +%T), $((SECONDS - start)) s] $*"; }

# One build of everything: every target of the workspace, with the
# dependencies' features resolved as `cargo test --workspace` resolves them
# (the dev-dependencies switch on features of shared crates, serde's and
# syn's among them). A `cargo build -p ...` of a few packages resolves them
# without, so it built the libraries and binaries a second time. This
# build also leaves the binaries and libtogyz_tb.so in target/ci for the
# Python and JVM tests, and makes the test run below build nothing.
part "cargo build (the workspace, all targets, profile ci)"
cargo build --workspace --all-targets --profile ci

part "cargo test (Rust workspace, profile ci: optimised, debug assertions on)"
cargo test --workspace --profile ci

# The Python and JVM tests use the binaries and the C library built above.
export TOGYZ_PROFILE=ci TOGYZ_BUILT=1

# The Python package, built the way users build it (pip runs maturin), in a
# venv of its own; the tests generate their tables with togyz-gen and check
# answers against togyz-probe.
part "Python package (python/): pip install ./python, pytest"
venv=target/py-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check ./python pytest
TOGYZ_GEN="$PWD/target/ci/togyz-gen" TOGYZ_PROBE="$PWD/target/ci/togyz-probe" \
    "$venv/bin/python" -m pytest -q python/tests

part "the analysis board in headless Chromium (scripts/browser-test.sh)"
bash scripts/browser-test.sh

part "the search measurements of bench/search-measure/ agree with each other"
python3 scripts/search-agree.py bench/search-measure/*.csv

part "JVM example (jvm/): Java through JNA"
bash jvm/test.sh

part "fuzzing smoke run (scripts/fuzz-smoke.sh)"
bash scripts/fuzz-smoke.sh

part "done"
