"""The Python API's arguments: ``overrides=`` (``set=`` kept as a deprecated alias), ``seed``
checked and named, and ``sweep()`` refusing to run without ``out``."""

from __future__ import annotations

import json
import tomllib
import warnings

import pytest

import ssdlab

PRESET = "presets/mqsim-default.toml"
SMALL = {"flows": [{"name": "r", "type": "synthetic", "read_ratio": 0.5, "address": "uniform",
                    "request_bytes": 4096, "queue_depth": 8, "requests": 500}]}


def without_run(report: ssdlab.Report) -> dict:
    d = json.loads(report.to_json())
    d.pop("run")
    return d


def test_overrides_sets_config_keys_and_set_is_its_deprecated_alias(repo, monkeypatch):
    monkeypatch.chdir(repo)
    new = ssdlab.run(PRESET, SMALL, overrides={"nand.channels": 2})
    assert new.data["config"]["nand"]["channels"] == 2
    # Positional, as the fourth argument, it is the same.
    assert without_run(ssdlab.run(PRESET, SMALL, None, {"nand.channels": 2})) == without_run(new)
    with pytest.warns(DeprecationWarning, match="overrides="):
        old = ssdlab.run(PRESET, SMALL, set={"nand.channels": 2})
    assert without_run(old) == without_run(new)
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="both given"):
        ssdlab.run(PRESET, SMALL, overrides={"nand.channels": 2}, set={"nand.channels": 4})
    # resolve_config takes the same.
    channels = lambda toml: tomllib.loads(toml)["nand"]["channels"]  # noqa: E731
    assert channels(ssdlab.resolve_config(PRESET, {"nand.channels": 2})) == 2
    with pytest.warns(DeprecationWarning):
        assert channels(ssdlab.resolve_config(PRESET, set={"nand.channels": 4})) == 4
    # No warning for the new name.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ssdlab.resolve_config(PRESET, overrides={"nand.channels": 2})


def test_overrides_that_are_not_a_dict_say_what_is_expected(repo, monkeypatch):
    monkeypatch.chdir(repo)
    for bad in (["nand.channels=2"], "nand.channels=2", 3):
        with pytest.raises(TypeError, match=r"overrides: expected a dict of config keys and values"):
            ssdlab.run(PRESET, SMALL, overrides=bad)
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match=r"overrides: expected a dict.*not a list"):
        ssdlab.run(PRESET, SMALL, set=["nand.channels=2"])


def test_a_bad_seed_is_named(repo, monkeypatch):
    monkeypatch.chdir(repo)
    for bad, error in ((-1, ValueError), (2**64, ValueError), (1.5, TypeError), ("3", TypeError), (True, TypeError)):
        with pytest.raises(error, match=r"seed"):
            ssdlab.run(PRESET, SMALL, seed=bad)
    # The largest seed works, and the report carries it.
    assert ssdlab.run(PRESET, SMALL, seed=2**64 - 1).data["seed"] == 2**64 - 1
    np = pytest.importorskip("numpy")
    assert ssdlab.run(PRESET, SMALL, seed=np.uint64(7)).data["seed"] == 7


def test_sweep_needs_out_and_writes_nothing_without_it(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    grid = {"config": str(repo / PRESET), "workload": SMALL}
    with pytest.raises(TypeError, match=r"out= is required"):
        ssdlab.sweep(grid)
    with pytest.raises(TypeError, match=r"out= is required"):
        ssdlab.sweep(grid, backend="local", progress=lambda _: None)
    assert list(tmp_path.iterdir()) == []
    table = ssdlab.sweep(grid, out=tmp_path / "out", progress=lambda _: None)
    assert len(table) == 1 and (tmp_path / "out" / "results.csv").exists()
