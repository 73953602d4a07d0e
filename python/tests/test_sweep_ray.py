"""Sweeps on Ray when things die: a run whose worker keeps dying fails alone.

Skipped where Ray is not installed (`pip install './python[ray]'`); CI installs it."""

from __future__ import annotations

import importlib
import os

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install './python[ray]'")

from ssdlab.sweep import SweepError, expand, sweep  # noqa: E402

# The module (`ssdlab.sweep` is also the function, in the package).
sweep_module = importlib.import_module("ssdlab.sweep")


def test_a_run_ray_gives_up_on_fails_alone(repo, tmp_path, monkeypatch):
    # The worker running seed 2 dies every time (as if its node did): after RAY_MAX_RETRIES
    # more attempts that run fails alone, the others are stored, and the sweep started again
    # runs only it.
    from ssdlab import _ssdlab

    attempts = tmp_path / "attempts"

    def dies_on_seed_2(task):
        if task[4] == 2:  # (config kind, config, workload kind, workload, seed, overrides)
            with open(attempts, "a") as f:
                f.write("x")
            os._exit(1)
        return True, _ssdlab.run_json(*task)

    monkeypatch.setattr(sweep_module, "_run_task", dies_on_seed_2)
    monkeypatch.setattr(sweep_module, "RAY_MAX_RETRIES", 1)
    g = {"config": str(repo / "presets" / "mqsim-default.toml"),
         "workload": {"flows": [{"name": "r", "type": "synthetic", "read_ratio": 1.0, "requests": 200}]},
         "seed": [1, 2, 3]}
    out = tmp_path / "out"
    lines: list[str] = []
    with pytest.raises(SweepError) as e:
        sweep(g, backend="ray", out=out, workers=1, progress=lines.append)
    lost = [r.name for r in expand(g) if r.seed == 2]
    assert list(e.value.failed) == lost
    assert e.value.failed[lost[0]].startswith("Ray gave up on it (max_retries = 1): WorkerCrashedError: ")
    assert attempts.read_text() == "xx"  # the first attempt and one retry
    assert sorted(f.stem for f in (out / "runs").glob("*.json")) == sorted(r.name for r in expand(g) if r.seed != 2)
    assert not (out / "results.csv").exists()

    monkeypatch.undo()
    lines.clear()
    table = sweep(g, out=out, progress=lines.append)
    assert lines[0] == f"sweep: 2 of 3 runs already done in {out}; running 1"
    assert len(table) == 3
