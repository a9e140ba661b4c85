"""Shared fixtures of the Python suite: the repository root, the `crawlsift` binary the package
is compared with, and the shared harness (`../shared`), which CI has: a test that needs it fails
when it is missing rather than passing without it."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def binary() -> str:
    """The release CLI (built by `cargo build --release`, as .ci/run does first)."""
    path = pathlib.Path(os.environ.get("CRAWLSIFT_BIN", ROOT / "target" / "release" / "crawlsift"))
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "--bin", "crawlsift"], cwd=ROOT, check=True)
    return str(path)


@pytest.fixture(scope="session")
def shared() -> pathlib.Path:
    path = ROOT.parent / "shared"
    if not (path / "corpus" / "real").is_dir():
        pytest.fail(f"{path} (the shared harness) is missing: these tests need its real crawl files")
    return path
