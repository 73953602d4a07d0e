"""Shared fixtures: the repository's paths and the CLI binary to compare against."""

from __future__ import annotations

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
TRACES = REPO / "traces"


def cli_binary() -> pathlib.Path | None:
    """The `ssdlab` binary: $SSDLAB_BIN, or one cargo built (release first)."""
    if os.environ.get("SSDLAB_BIN"):
        return pathlib.Path(os.environ["SSDLAB_BIN"])
    for profile in ("release", "debug"):
        p = REPO / "target" / profile / "ssdlab"
        if p.exists():
            return p
    return None


@pytest.fixture
def repo() -> pathlib.Path:
    return REPO


@pytest.fixture
def tpcc() -> pathlib.Path:
    path = TRACES / "mqsim" / "tpcc-small.trace"
    if not path.exists():
        pytest.skip(f"traces not at {TRACES}")
    return path


@pytest.fixture
def cli() -> pathlib.Path:
    exe = cli_binary()
    if exe is None:
        pytest.skip("no ssdlab binary (cargo build, or set SSDLAB_BIN)")
    return exe
