"""Fixtures: real tables for up to 4 (and 6) stones, written by the togyz-gen
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


def generate(tmp_path_factory, stones: int) -> Path:
    out = tmp_path_factory.mktemp(f"tables{stones}")
    gen = binary("togyz-gen", "togyz-gen", "TOGYZ_GEN")
    subprocess.run(
        [str(gen), "generate", "--max-stones", str(stones), "--out", str(out), "--quiet"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return out


@pytest.fixture(scope="session")
def tables(tmp_path_factory) -> Path:
    return generate(tmp_path_factory, 4)


@pytest.fixture(scope="session")
def tables6(tmp_path_factory) -> Path:
    """Up to 6 stones: the truth for searches over the tables up to 4."""
    return generate(tmp_path_factory, 6)


@pytest.fixture(scope="session")
def probe_cli() -> Path:
    return binary("togyz-probe", "togyz-cli", "TOGYZ_PROBE")
