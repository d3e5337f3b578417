#!/usr/bin/env bash
# The analysis board in a real browser (scripts/browser-test.py): headless
# Chromium driven by selenium against `togyz-probe serve` over tables
# generated in a temporary folder. Installs Debian's chromium and
# chromium-driver with apt-get when they are missing, and selenium into the
# project's venv (target/py-venv, as scripts/test.sh does for pytest).
# Screenshots go to target/browser-test/.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== the analysis board in headless Chromium (scripts/browser-test.py)"

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "installing chromium and chromium-driver with apt-get"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
fi

venv=target/py-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check selenium

# The binaries of the profile scripts/test.sh builds; under it
# (TOGYZ_BUILT) they are there already, and a build of two packages alone
# would resolve the dependencies' features otherwise and build again.
profile="${TOGYZ_PROFILE:-ci}"
case "$profile" in
    dev) dir=target/debug ;;
    *) dir="target/$profile" ;;
esac
[ -n "${TOGYZ_BUILT:-}" ] || cargo build --quiet --profile "$profile" -p togyz-gen -p togyz-cli

"$venv/bin/python" scripts/browser-test.py --bin "$dir" --out target/browser-test "$@"
