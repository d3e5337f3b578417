#!/usr/bin/env bash
# The whole test suite, as the README's test command and CI run it. Every
# part of the project adds its tests here, so that one command runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

echo "== cargo test (Rust workspace, profile ci: optimised, debug assertions on)"
cargo test --workspace --profile ci

# The binaries and the C library the Python and JVM tests use, from the same
# profile (a no-op when the tests above built them).
export TOGYZ_PROFILE=ci
cargo build --profile ci -p togyz-gen -p togyz-cli -p togyz-tb-capi

# The Python package, built the way users build it (pip runs maturin), in a
# venv of its own; the tests generate their tables with togyz-gen and check
# answers against togyz-probe.
echo "== Python package (python/): pip install ./python, pytest"
venv=target/py-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check ./python pytest
TOGYZ_GEN="$PWD/target/ci/togyz-gen" TOGYZ_PROBE="$PWD/target/ci/togyz-probe" \
    "$venv/bin/python" -m pytest -q python/tests

echo "== the search measurements of docs/ agree with each other"
python3 scripts/search-agree.py docs/search-measure-*.csv

echo "== JVM example (jvm/): Java through JNA"
bash jvm/test.sh

bash scripts/fuzz-smoke.sh
