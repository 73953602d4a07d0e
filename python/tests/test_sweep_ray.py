"""Sweeps on Ray when things die: a sweep on a multi-node Ray cluster (Ray's own test cluster,
every node on this machine) that loses a worker node half way finishes with each run stored
once and the local backend's table; a run whose worker keeps dying fails alone.

Skipped where Ray is not installed (`pip install './python[ray]'`); CI installs it."""

from __future__ import annotations

import importlib
import math
import os
import pathlib
import signal
import subprocess
import sys
import time
import tomllib

import pandas as pd
import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install './python[ray]'")

from ssdlab.sweep import SweepError, expand, sweep  # noqa: E402

# The module (`ssdlab.sweep` is also the function, in the package).
sweep_module = importlib.import_module("ssdlab.sweep")

# Each node's object store: the reports (some 30 KB each) travel inline with the tasks'
# replies, so the stores hold next to nothing; Ray's floor is 75 MiB.
OBJECT_STORE_BYTES = 100 * 1024 * 1024


def grid_size(grid_file) -> int:
    """The number of runs of a grid file: the product of its lists' lengths (a single value
    counts once), read from the TOML here rather than from ssdlab's expansion."""
    doc = tomllib.loads(grid_file.read_text())
    axes = [doc[k] for k in ("config", "workload", "seed") if k in doc] + list(doc.get("set", {}).values())
    return math.prod(len(v) if isinstance(v, list) else 1 for v in axes)


def retried_attempts(cluster) -> tuple[int, int]:
    """(sweep tasks, attempts past each one's first) from the task events the cluster's GCS
    keeps: what Ray ran again after a worker or node died. (Through a private API of Ray's,
    beside its test cluster.)"""
    events = cluster.global_state._get_all_task_events()
    names = {e.task_id: e.task_info.name for e in events if e.HasField("task_info")}
    tasks = {e.task_id for e in events if names.get(e.task_id) == "_run_task"}
    retries = {(e.task_id, e.attempt_number) for e in events if e.task_id in tasks and e.attempt_number > 0}
    return len(tasks), len(retries)


def descendants(pid: int) -> list[int]:
    """The processes under `pid`, from /proc."""
    parent = {}
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # ended meanwhile
            continue
        # "pid (comm) state ppid ...", where comm may hold spaces and parentheses.
        parent[int(stat.parent.name)] = int(text.rpartition(")")[2].split()[1])
    found, frontier = [], [pid]
    while frontier:
        above = frontier.pop()
        children = [child for child, p in parent.items() if p == above]
        found += children
        frontier += children
    return found


def title(pid: int) -> bytes:
    """A process's title (Ray names a worker `ray::<task>` while it runs a task, `ray::IDLE`
    between tasks), or b"" once it has ended."""
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].rstrip()
    except OSError:
        return b""


def kill_node_mid_task(cluster, node, task: str, timeout_s: float) -> None:
    """Lose `node` as when its machine dies, while one of its workers runs `task`: that
    worker killed the moment it is seen running it, then the raylet and every other process
    under it, then Ray's bookkeeping of the node removed. (`cluster.remove_node` alone kills
    the raylet but leaves its worker to finish the task and hand the result back.)"""
    raylet = node.all_processes[ray._private.ray_constants.PROCESS_TYPE_RAYLET][0].process.pid
    deadline = time.monotonic() + timeout_s
    busy = None
    while busy is None:
        assert time.monotonic() < deadline, f"no worker of the node ran {task} for {timeout_s} s"
        busy = next((pid for pid in descendants(raylet) if title(pid) == f"ray::{task}".encode()), None)
    for pid in [busy, *descendants(raylet), raylet]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    cluster.remove_node(node, allow_graceful=False)


def test_a_ray_sweep_survives_losing_a_worker_node(repo, tmp_path):
    from ray.cluster_utils import Cluster

    start = time.monotonic()
    # 24 runs of 500,000 requests: about half a second each on this machine's cores, so a
    # node killed half way is killed with a run under way.
    (tmp_path / "w.toml").write_text(
        '[[flows]]\nname = "mix"\ntype = "synthetic"\nread_ratio = 0.6\naddress = "uniform"\n'
        'request_bytes = 8192\nqueue_depth = 8\nrequests = 500000\n')
    gfile = tmp_path / "grid.toml"
    gfile.write_text(
        f'config = "{repo / "presets" / "mqsim-default.toml"}"\nworkload = "w.toml"\nseed = [1, 2, 3, 4]\n'
        '[set]\n"hil.scheduler" = ["direct", "spk3"]\n"nand.channels" = [2, 4, 8]\n')
    n = grid_size(gfile)
    assert n >= 24

    # The reference: the local backend, two workers.
    sweep(gfile, backend="local", out=tmp_path / "local", workers=2, progress=lambda _: None)

    # A head that takes no tasks and two workers of one CPU each: every run is a task on a
    # worker node, one at a time per node.
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "object_store_memory": OBJECT_STORE_BYTES, "include_dashboard": False})
    sweeper = None
    try:
        workers = [cluster.add_node(num_cpus=1, object_store_memory=OBJECT_STORE_BYTES) for _ in range(2)]
        cluster.wait_for_nodes()
        out = tmp_path / "ray"
        runs_dir = out / "runs"
        # Pointed at the cluster as a user would, from its own process: the README's command.
        log = tmp_path / "sweep.log"
        sweep_start = time.monotonic()
        with log.open("w") as log_file:
            sweeper = subprocess.Popen(
                [sys.executable, "-m", "ssdlab", "sweep", str(gfile), "--out", str(out), "--backend", "ray",
                 "--address", cluster.address],
                stdout=log_file, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 90
        stored = 0
        while time.monotonic() < deadline and sweeper.poll() is None and stored < n // 2:
            stored = len(list(runs_dir.glob("*.json"))) if runs_dir.exists() else 0
            time.sleep(0.02)
        assert sweeper.poll() is None, f"the sweep ended before half its runs were stored:\n{log.read_text()}"
        kill_node_mid_task(cluster, workers[0], "_run_task", timeout_s=30)
        stored_at_kill = len(list(runs_dir.glob("*.json")))
        killed_at_s = time.monotonic() - sweep_start
        assert n // 2 <= stored_at_kill < n, "the node was not killed half way"

        assert sweeper.wait(timeout=90) == 0, log.read_text()
        sweep_s = time.monotonic() - sweep_start
        output = log.read_text()
        tasks, retried = retried_attempts(cluster)
    finally:
        if sweeper is not None and sweeper.poll() is None:
            sweeper.kill()
            sweeper.wait()
        cluster.shutdown()
        ray.shutdown()

    # Each run once: one progress line each, none failed, one report each in the store.
    names = [r.name for r in expand(gfile)]
    finished = [line.split("] ")[1].split(" (")[0] for line in output.splitlines() if line.startswith("  [")]
    assert sorted(finished) == sorted(names), output
    assert "FAILED" not in output
    assert f"{n} runs; results in {out}" in output
    assert sorted(f.stem for f in runs_dir.glob("*.json")) == sorted(names)
    assert len(names) == n
    assert not list(runs_dir.glob(".*tmp*"))
    # The node took a run with it, and Ray ran it again elsewhere.
    assert tasks == n
    assert retried >= 1, "no task was under way on the node killed"
    # The local backend's table, byte for byte.
    assert (out / "results.csv").read_bytes() == (tmp_path / "local" / "results.csv").read_bytes()
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"),
                                  pd.read_parquet(tmp_path / "local" / "results.parquet"))
    print(f"\n{n} runs on 2 worker nodes of 1 CPU; one node killed {killed_at_s:.1f} s into the sweep with "
          f"{stored_at_kill} of {n} stored; {retried} task(s) run again; the sweep ended after {sweep_s:.1f} s, "
          f"each run stored once; results.csv identical to the local backend's, results.parquet equal; "
          f"{time.monotonic() - start:.1f} s in all")


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
