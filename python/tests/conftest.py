"""Fixtures: real tables for up to 4 stones, written by the togyz-gen
binary into a temporary folder, and the togyz-probe binary as the second
opinion the answers are checked against."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def binary(name: str, package: str, env: str) -> Path:
    """A workspace binary: $env if set, else target/release/<name>, built
    with cargo when missing."""
    if os.environ.get(env):
        return Path(os.environ[env])
    path = ROOT / "target" / "release" / name
    if not path.exists():
        cargo = shutil.which("cargo")
        if cargo is None:
            pytest.skip(f"{name} is not built and cargo is not on PATH (set ${env})")
        subprocess.run(
            [cargo, "build", "--release", "-p", package, "--bin", name],
            cwd=ROOT,
            check=True,
        )
    return path


@pytest.fixture(scope="session")
def tables(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tables")
    gen = binary("togyz-gen", "togyz-gen", "TOGYZ_GEN")
    subprocess.run(
        [str(gen), "generate", "--max-stones", "4", "--out", str(out), "--quiet"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return out


@pytest.fixture(scope="session")
def probe_cli() -> Path:
    return binary("togyz-probe", "togyz-cli", "TOGYZ_PROBE")
