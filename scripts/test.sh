#!/usr/bin/env bash
# The whole test suite, as the README's test command and CI run it. Every
# part of the project adds its tests here, so that one command runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

echo "== cargo test (Rust workspace, profile ci: optimised, debug assertions on)"
cargo test --workspace --profile ci
