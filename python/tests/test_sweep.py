"""ssdlab.sweep: the grid's runs and names, the table against the reports, local and Ray
giving the same table, and a sweep killed mid-way finishing with every run exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import ssdlab
from ssdlab.sweep import SweepTable, expand, sweep


def grid(repo, requests: int = 1000) -> dict:
    """12 runs: 2 schedulers × 3 channel counts × 2 seeds on a synthetic mixed workload."""
    return {
        "config": str(repo / "presets" / "mqsim-default.toml"),
        "workload": {"flows": [{"name": "mix", "type": "synthetic", "read_ratio": 0.6, "address": "uniform",
                                "request_bytes": 8192, "queue_depth": 8, "requests": requests}]},
        "seed": [1, 2],
        "set": {"hil.scheduler": ["direct", "spk3"], "nand.channels": [2, 4, 8]},
    }


def test_the_grid_is_the_product_named_by_parameters(repo):
    g = dict(grid(repo), workload=str(repo / "experiments" / "mixed-small.toml"))
    runs = expand(g)
    assert len(runs) == 12
    assert len({r.name for r in runs}) == 12
    first = runs[0]
    assert first.name == "mqsim-default__mixed-small__seed-1__hil.scheduler-direct__nand.channels-2"
    assert (first.seed, first.set) == (1, {"hil.scheduler": "direct", "nand.channels": 2})
    # The last key varies fastest.
    assert [r.set["nand.channels"] for r in runs[:3]] == [2, 4, 8]
    with pytest.raises(ssdlab.SsdlabError, match="unknown field `seeds`, expected one of `config`, `workload`"):
        expand(dict(g, seeds=[1]))
    with pytest.raises(ssdlab.SsdlabError, match="both be named"):
        expand(dict(g, config=[g["config"], g["config"]]))


def test_the_table_is_the_reports(repo, tmp_path):
    g = grid(repo)
    g["workload"] = str(repo / "experiments" / "mixed-small.toml")
    table = sweep(g, out=tmp_path, workers=2, progress=lambda _: None)
    df = table.df
    assert len(df) == 12
    assert pd.read_csv(tmp_path / "results.csv").shape == df.shape
    assert pd.read_parquet(tmp_path / "results.parquet").equals(df)
    for _, row in df.iterrows():
        report = ssdlab.Report((tmp_path / "runs" / f"{row['run']}.json").read_text())
        assert report.data["config"]["hil"]["scheduler"] == row["hil.scheduler"]
        assert report.data["config"]["nand"]["channels"] == row["nand.channels"]
        assert report.data["seed"] == row["seed"]
        assert report.summary["iops"] == row["iops"]
        assert report.summary["requests_completed"] == row["requests_completed"] == 5000
    # The same run through ssdlab.run gives the same report (outside `run`).
    r = ssdlab.run(g["config"], g["workload"], seed=2, overrides={"hil.scheduler": "spk3", "nand.channels": 4})
    stored = json.loads((tmp_path / "runs" / f"{df.iloc[10]['run']}.json").read_text())
    fresh = json.loads(r.to_json())
    stored.pop("run"), fresh.pop("run")
    assert stored == fresh


def test_local_and_ray_give_identical_tables(repo, tmp_path):
    pytest.importorskip("ray")
    g = grid(repo)
    local = sweep(g, backend="local", out=tmp_path / "local", progress=lambda _: None)
    ray = sweep(g, backend="ray", out=tmp_path / "ray", workers=2, progress=lambda _: None)
    assert len(local) == 12
    pd.testing.assert_frame_equal(local.df, ray.df)
    assert (tmp_path / "local" / "results.csv").read_bytes() == (tmp_path / "ray" / "results.csv").read_bytes()


def test_a_killed_sweep_resumes_and_runs_each_run_once(repo, tmp_path):
    g = grid(repo, requests=1_000_000)
    g["workload"] = tmp_path / "w.toml"
    flow = g["workload"]
    flow.write_text('[[flows]]\nname = "mix"\ntype = "synthetic"\nread_ratio = 0.6\naddress = "uniform"\n'
                    'request_bytes = 8192\nqueue_depth = 8\nrequests = 1000000\n')
    gfile = tmp_path / "grid.toml"
    gfile.write_text(
        f'config = "{g["config"]}"\nworkload = "w.toml"\nseed = [1, 2]\n[set]\n'
        '"hil.scheduler" = ["direct", "spk3"]\n"nand.channels" = [2, 4, 8]\n')
    out = tmp_path / "out"
    runs_dir = out / "runs"
    p = subprocess.Popen([sys.executable, "-m", "ssdlab", "sweep", str(gfile), "--out", str(out), "--workers", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done = list(runs_dir.glob("*.json")) if runs_dir.exists() else []
        if len(done) >= 3:
            break
        time.sleep(0.02)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    first = {f.stem for f in runs_dir.glob("*.json")}
    assert 3 <= len(first) < 12, "the sweep was not killed mid-way"

    lines: list[str] = []
    table = sweep(gfile, out=out, progress=lines.append)
    ran = {l.split("] ")[1].split(" (")[0] for l in lines if l.startswith("  [")}
    assert lines[0].startswith(f"sweep: {len(first)} of 12 runs already done")
    assert ran.isdisjoint(first)
    assert ran | first == {r.name for r in expand(gfile)}
    assert len(list(runs_dir.glob("*.json"))) == 12
    assert not list(runs_dir.glob(".*tmp*"))
    assert list(table.df["run"]) == [r.name for r in expand(gfile)]
    # Started again with nothing left: nothing runs, the table is the same.
    lines.clear()
    again = sweep(gfile, out=out, progress=lines.append)
    assert lines == ["sweep: 12 of 12 runs already done in " + str(out) + "; running 0"]
    pd.testing.assert_frame_equal(again.df, table.df)


def test_ctrl_c_stops_a_sweep_keeping_what_ended(repo, tmp_path):
    # SIGINT, as Ctrl-C sends it: no run starts after it, the runs under way end and are
    # stored, the command exits 130 saying how to resume.
    w = tmp_path / "w.toml"
    # About a second a run.
    w.write_text('[[flows]]\ntype = "synthetic"\nread_ratio = 0.6\nqueue_depth = 8\nrequests = 2000000\n')
    gfile = tmp_path / "grid.toml"
    gfile.write_text(f'config = "{repo / "presets" / "mqsim-default.toml"}"\nworkload = "w.toml"\nseed = [1, 2, 3, 4, 5, 6]\n')
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "ssdlab", "sweep", str(gfile), "--out", str(out), "--workers", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((out / "runs").glob("*.json")):
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "interrupted: the runs that ended are kept in" in err
    kept = list((out / "runs").glob("*.json"))
    # The one that ended before the signal, and at most the one under way when it came.
    assert 1 <= len(kept) <= 2, err
    assert not list((out / "runs").glob(".*tmp*"))


def test_the_command_line_reports_bad_input(repo, tmp_path):
    gfile = tmp_path / "grid.toml"
    gfile.write_text('config = "nope.toml"\nworkload = "w.toml"\n')
    p = subprocess.run([sys.executable, "-m", "ssdlab", "sweep", str(gfile), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert p.returncode == 2
    assert "error: nope.toml: " in p.stderr


def test_sweep_table_reads_back(repo, tmp_path):
    g = grid(repo, requests=200)
    table = sweep(g, out=tmp_path, workers=1, progress=lambda _: None)
    pd.testing.assert_frame_equal(SweepTable.read(tmp_path).df, table.df)


def test_the_cli_runs_the_same_sweep(repo, cli, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    grid_file = "experiments/scheduler-channels.toml"
    env = dict(os.environ, SSDLAB_PYTHON=sys.executable)
    p = subprocess.run([cli, "sweep", grid_file, "--out", tmp_path / "cli", "--workers", "2"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert "12 runs; results in" in p.stdout
    assert "[12/12]" in p.stderr
    sweep(grid_file, out=tmp_path / "py", progress=lambda _: None)
    assert (tmp_path / "cli" / "results.csv").read_bytes() == (tmp_path / "py" / "results.csv").read_bytes()


def test_the_cli_writes_parquet_that_pandas_reads_as_its_csv(repo, cli, tmp_path):
    # `ssdlab sweep` (local) writes both files itself, with no Python to hand over to.
    (tmp_path / "w.toml").write_text(
        '[[flows]]\nname = "mix"\nread_ratio = 0.5\nrequest_bytes = 4096\nqueue_depth = 4\nrequests = 200\n')
    grid_file = tmp_path / "grid.toml"
    grid_file.write_text(f'config = "{repo / "presets" / "mqsim-default.toml"}"\nworkload = "w.toml"\n'
                         'seed = [1, 2]\n[set]\n"hil.scheduler" = ["direct", "spk3"]\n')
    env = dict(os.environ, SSDLAB_PYTHON="/nonexistent")
    p = subprocess.run([cli, "sweep", grid_file, "--out", tmp_path / "cli", "--workers", "2"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert "sweep: 4 runs, backend local" in p.stderr and "[4/4]" in p.stderr
    pq = pd.read_parquet(tmp_path / "cli" / "results.parquet")
    # pandas 3 parses floats exactly by default (and deprecates the option); pandas 2 needs it.
    exact = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
    csv = pd.read_csv(tmp_path / "cli" / "results.csv", **exact)
    # The same columns, dtypes and values (floats exact: the CSV's are round-trip text).
    assert list(pq.columns)[:5] == ["run", "config", "workload", "seed", "hil.scheduler"]
    assert len(pq) == 4 and set(pq["hil.scheduler"]) == {"direct", "spk3"}
    assert str(pq["seed"].dtype) == "int64" and str(pq["iops"].dtype) == "float64"
    pd.testing.assert_frame_equal(pq, csv, check_exact=True)
    # The Python package's sweep of the same grid writes (and returns) the same table.
    table = sweep(grid_file, out=tmp_path / "py", workers=2, progress=lambda _: None)
    pd.testing.assert_frame_equal(table.df, pq, check_exact=True)
    assert (tmp_path / "py" / "results.parquet").read_bytes() == (tmp_path / "cli" / "results.parquet").read_bytes()


def test_a_bad_run_fails_alone_and_is_retried_alone(repo, tmp_path):
    # A trace's bad line is found only while its run reads it: that run fails, the others
    # run and are kept, and the sweep started again runs only the failed ones.
    good = tmp_path / "good.trace"
    good.write_text("0 0 100 8 0\n10000 0 200 8 1\n")
    bad = tmp_path / "bad.trace"
    bad.write_text("0 0 100 8 0\n10000 0 200 8 1\nbogus line here\n")
    g = {"config": str(repo / "presets" / "mqsim-default.toml"), "workload": [str(good), str(bad)],
         "seed": [1, 2]}
    out = tmp_path / "out"
    with pytest.raises(ssdlab.SweepError) as e:
        sweep(g, out=out, workers=2, progress=lambda _: None)
    assert set(e.value.failed) == {"mqsim-default__bad__seed-1", "mqsim-default__bad__seed-2"}
    assert e.value.failed["mqsim-default__bad__seed-1"] == f"{bad}:3: expected 5 fields, found 3 in `bogus line here`"
    assert sorted(f.stem for f in (out / "runs").glob("*.json")) == ["mqsim-default__good__seed-1",
                                                                     "mqsim-default__good__seed-2"]
    assert not (out / "results.csv").exists()
    bad.write_text(good.read_text())
    lines: list[str] = []
    table = sweep(g, out=out, progress=lines.append)
    assert lines[0].startswith("sweep: 2 of 4 runs already done")
    assert len(table) == 4


def test_a_bad_workload_fails_before_any_run(repo, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[flows]]\ntype = "synthetic"\nread_ratio = 5.0\nrequests = 300\n')
    g = {"config": str(repo / "presets" / "mqsim-default.toml"), "workload": [str(repo / "experiments" / "mixed-small.toml"), str(bad)]}
    with pytest.raises(ssdlab.SsdlabError, match="bad.toml:3: flows\\[0\\]: read_ratio = 5: must be in \\[0, 1\\]"):
        sweep(g, out=tmp_path, progress=lambda _: None)
    assert not list((tmp_path / "runs").glob("*.json"))


def test_a_bad_config_fails_before_any_run(repo, tmp_path):
    g = grid(repo)
    g["set"] = {"nand.channels": [4, 0]}
    with pytest.raises(ssdlab.SsdlabError, match="nand.channels = 0"):
        sweep(g, out=tmp_path, progress=lambda _: None)
    assert not list((tmp_path / "runs").glob("*.json"))


def test_grid_values_convert_as_run_does_and_bad_ones_are_named(repo, tmp_path):
    import numpy as np

    g = grid(repo, requests=200)
    # A nested dict is dotted keys; numpy values are their Python values.
    g["set"] = {"hil": {"scheduler": ["direct"]}, "nand.channels": np.array([2, 4])}
    g["seed"] = np.int64(3)
    runs = expand(g)
    assert [r.name.split("__", 2)[2] for r in runs] == [
        "seed-3__hil.scheduler-direct__nand.channels-2", "seed-3__hil.scheduler-direct__nand.channels-4"]
    with pytest.raises(ValueError, match=r"set.nand.channels\[1\]: None is not a value"):
        expand(dict(g, set={"nand.channels": [2, None]}))
    with pytest.raises(ValueError, match="nand.channels: set twice"):
        expand(dict(g, set={"nand": {"channels": [2]}, "nand.channels": [4]}))
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError, match="at least 1"):
            sweep(g, out=tmp_path, workers=bad, progress=lambda _: None)


def test_a_failing_progress_callback_stops_the_sweep_keeping_what_ended(repo, tmp_path):
    g = grid(repo, requests=200)
    calls = []

    def progress(line):
        calls.append(line)
        if len(calls) == 2:  # the header, then the first run's line
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        sweep(g, out=tmp_path, workers=1, progress=progress)
    kept = list((tmp_path / "runs").glob("*.json"))
    # The run whose line raised, and at most the one under way then.
    assert 1 <= len(kept) <= 2
    assert not (tmp_path / "results.csv").exists()
    table = sweep(g, out=tmp_path, workers=1, progress=lambda _: None)
    assert len(table) == 12


def test_reports_of_another_grid_in_out_are_not_reused(repo, tmp_path):
    # Same run names, another config: every run is made again.
    w = tmp_path / "w.toml"
    w.write_text('[[flows]]\ntype = "synthetic"\nread_ratio = 0.5\nrequests = 300\n')
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    base = (repo / "presets" / "mqsim-default.toml").read_text()
    (tmp_path / "a" / "drive.toml").write_text(base)
    (tmp_path / "b" / "drive.toml").write_text(base.replace("channels = 8", "channels = 4", 1))
    out = tmp_path / "out"
    first = sweep({"config": str(tmp_path / "a" / "drive.toml"), "workload": str(w)}, out=out,
                  progress=lambda _: None)
    lines: list[str] = []
    second = sweep({"config": str(tmp_path / "b" / "drive.toml"), "workload": str(w)}, out=out,
                   progress=lines.append)
    assert lines[0] == "sweep: 1 runs, backend local"
    assert first.df["run"].tolist() == second.df["run"].tolist() == ["drive__w"]
    report = ssdlab.Report((out / "runs" / "drive__w.json").read_text())
    assert report.data["config"]["nand"]["channels"] == 4
