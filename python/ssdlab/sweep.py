"""Sweeps: a grid of runs (config × workload × seed × ``set`` overrides), each run's report
written atomically under an output folder and named by its parameters, a results table
(CSV and Parquet) built from those reports, resumable after an interruption.

The grid is a dict, or a TOML file (``experiments/*.toml``) of the same shape::

    config = ["presets/mqsim-default.toml"]        # a value or a list of values
    workload = ["examples/read-qd16.toml"]
    seed = [1, 2, 3]                                # optional (default: the workload's)
    [set]                                           # optional: config keys, each a list
    "hil.scheduler" = ["direct", "spk3"]
    "nand.channels" = [4, 8]

Relative paths in a grid file are taken from the file's folder when they exist there, else
from the working directory (as a workload's trace paths are).

The runs are the product of the lists, in the order above with ``set`` keys in the file's
order. A run's report goes to ``OUT/runs/<name>.json``, written to a temporary file and
renamed, so a report present is a run finished; a sweep started again skips those (resume)
and runs the rest. Only the process that calls :func:`sweep` writes under ``OUT``: workers,
local or Ray, return the report's text.

Backends: ``local`` runs on all cores with a process pool (``workers`` to choose); ``ray``
runs each simulation as a Ray task on the cluster at ``address`` (``None``: a local Ray
instance, started and stopped here). On a cluster, the nodes need this package installed
and the grid's config, workload and trace paths readable where the tasks run (a shared
file system); the reports come back to the caller, which alone writes ``OUT``. One sweep
at a time per ``OUT``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import pathlib
import re
import sys
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Callable, Iterable, Mapping

import pandas as pd

from ._ssdlab import SsdlabError
from .report import Report, resolve_config, run

#: The table's parameter columns come first, then these from each report's summary.
PARAM_COLUMNS = ("run", "config", "workload", "seed")


class Run:
    """One point of the grid: its inputs and the name its report is stored under."""

    def __init__(self, config: tuple[str, str], workload: tuple[str, str], seed: int | None,
                 set: dict[str, Any], name: str):
        # (as the grid writes it, as it is opened)
        (self.config_label, self.config), (self.workload_label, self.workload) = config, workload
        self.seed, self.set, self.name = seed, set, name

    def params(self) -> dict[str, Any]:
        """The table's parameter columns of this run (paths as the grid writes them)."""
        p = {"run": self.name, "config": self.config_label, "workload": self.workload_label, "seed": self.seed}
        p.update(self.set)
        return p

    def task(self) -> tuple:
        """What a worker needs (picklable, small)."""
        return (self.config, self.workload, self.seed, self.set)


def _listify(v: Any) -> list:
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _stem(value: Any) -> str:
    """A parameter value as it appears in a run's name: a path's file name without its
    extension, a dict or TOML text as `inline-` and a hash of its content, else the value."""
    if isinstance(value, Mapping) or (isinstance(value, str) and "\n" in value):
        text = json.dumps(value, sort_keys=True)
        return "inline-" + hashlib.sha256(text.encode()).hexdigest()[:12]
    if isinstance(value, str) and ("/" in value or value.endswith((".toml", ".trace", ".csv"))):
        value = pathlib.PurePath(value).name
        for ext in (".toml", ".trace", ".csv", ".gz"):
            value = value.removesuffix(ext)
    text = json.dumps(value) if not isinstance(value, str) else value
    return re.sub(r"[^A-Za-z0-9._+-]", "_", text)


def load_grid(grid: Mapping[str, Any] | str | os.PathLike) -> tuple[dict[str, Any], pathlib.Path | None]:
    """The grid as a dict, and the folder relative paths are taken from (a file's)."""
    if isinstance(grid, Mapping):
        return dict(grid), None
    path = pathlib.Path(grid)
    with open(path, "rb") as f:
        try:
            data = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ValueError(f"{path}: {e}") from None
    return data, path.parent


def _resolve(value: str, base: pathlib.Path | None) -> str:
    if base is None or not isinstance(value, str) or os.path.isabs(value) or "\n" in value:
        return value
    there = base / value
    return os.path.normpath(there) if there.exists() else value


def expand(grid: Mapping[str, Any] | str | os.PathLike) -> list[Run]:
    """The grid's runs, in order, each with a unique name built from its parameters."""
    data, base = load_grid(grid)
    unknown = set(data) - {"config", "workload", "seed", "set"}
    if unknown:
        raise ValueError(f"sweep grid: unknown keys {sorted(unknown)}; known: config, workload, seed, set")
    for key in ("config", "workload"):
        if key not in data:
            raise ValueError(f"sweep grid: `{key}` is required")
    configs = [(c, _resolve(c, base)) for c in _listify(data["config"])]
    workloads = [(w, _resolve(w, base)) for w in _listify(data["workload"])]
    seeds = _listify(data.get("seed", [None]))
    sets = data.get("set", {})
    if not isinstance(sets, Mapping):
        raise ValueError("sweep grid: `set` must be a table of key = [values]")
    keys = list(sets)
    values = [_listify(sets[k]) for k in keys]
    for name, lst in [("config", configs), ("workload", workloads), ("seed", seeds)] + list(zip(keys, values)):
        if not lst:
            raise ValueError(f"sweep grid: `{name}` has no values")
    runs: list[Run] = []
    names: dict[str, Run] = {}
    for c, w, s, combo in itertools.product(configs, workloads, seeds, itertools.product(*values)):
        over = dict(zip(keys, combo))
        parts = [_stem(c[0]), _stem(w[0])]
        if s is not None:
            parts.append(f"seed-{s}")
        parts += [f"{k}-{_stem(v)}" for k, v in over.items()]
        name = "__".join(parts)
        if name in names:
            raise ValueError(f"sweep grid: two runs would both be named `{name}` "
                             "(configs or workloads of the same file name in different folders?)")
        run_ = Run(c, w, s, over, name)
        names[name] = run_
        runs.append(run_)
    return runs


def _run_task(task: tuple) -> tuple[bool, str]:
    """One simulation in a worker: (True, the report's JSON text), or (False, the message)
    for bad input, so that one bad run does not stop the others on any backend."""
    config, workload, seed, over = task
    try:
        return True, run(config, workload, seed=seed, set=over).to_json()
    except SsdlabError as e:
        return False, str(e)


class SweepError(ValueError):
    """Runs that failed on bad input (a workload or trace): ``failed`` maps each one's name to
    its message. The others' reports are kept; a sweep started again retries only these."""

    def __init__(self, failed: dict[str, str]):
        self.failed = failed
        lines = [f"{name}: {message}" for name, message in failed.items()]
        super().__init__(f"{len(failed)} runs failed:\n  " + "\n  ".join(lines))


def _write_atomic(path: pathlib.Path, text: str | bytes) -> None:
    """Write to a temporary file beside `path`, flush it to disk, rename it over `path`."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(text.encode() if isinstance(text, str) else text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _local(tasks: list[tuple[str, tuple]], workers: int | None) -> Iterable[tuple[str, tuple[bool, str]]]:
    """(name, what `_run_task` returned) as each run finishes, on a process pool."""
    workers = workers or os.cpu_count() or 1
    with ProcessPoolExecutor(max_workers=min(workers, max(len(tasks), 1))) as pool:
        futures = {pool.submit(_run_task, t): name for name, t in tasks}
        for fut in as_completed(futures):
            yield futures[fut], fut.result()


def _ray(
    tasks: list[tuple[str, tuple]], address: str | None, workers: int | None
) -> Iterable[tuple[str, tuple[bool, str]]]:
    """(name, what `_run_task` returned) as each Ray task finishes. Without an address, a local Ray instance
    with `workers` CPUs (default: all) is started for the sweep and stopped after it."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("backend \"ray\" needs Ray: pip install './python[ray]'") from None
    started = not ray.is_initialized()
    if started:
        if address is None:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1)(_run_task)
        pending = {remote.remote(t): name for name, t in tasks}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                yield pending.pop(ref), ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def sweep(
    grid: Mapping[str, Any] | str | os.PathLike,
    backend: str = "local",
    out: str | os.PathLike = "sweep-out",
    *,
    address: str | None = None,
    workers: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> "SweepTable":
    """Run every run of `grid` not already finished under `out`, then build the table.

    Returns the :class:`SweepTable`, also written to ``OUT/results.csv`` and
    ``OUT/results.parquet``: one row per run in grid order, the parameter columns (``run``,
    ``config``, ``workload``, ``seed``, each ``set`` key) then the report's summary
    (:attr:`Report.summary`) without ``wall_s``, so that the same grid gives the same table
    on every backend. Progress (one line per finished run) goes to `progress`, default
    stderr. Runs that fail on bad input raise :class:`SweepError` once every run has ended,
    the others' reports kept; bad configs and overrides raise before any run starts.
    """
    say = progress or (lambda line: print(line, file=sys.stderr, flush=True))
    runs = expand(grid)
    out = pathlib.Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    for stale in (out / "runs").glob(".*.tmp-*"):
        stale.unlink()  # a killed sweep's half-written report
    todo = [r for r in runs if not (out / "runs" / f"{r.name}.json").exists()]
    if len(todo) < len(runs):
        say(f"sweep: {len(runs) - len(todo)} of {len(runs)} runs already done in {out}; running {len(todo)}")
    else:
        say(f"sweep: {len(runs)} runs, backend {backend}")
    # Bad configs and overrides fail here, at once, not in a worker after minutes.
    for config, over in {(r.config, json.dumps(r.set, sort_keys=True)) for r in todo}:
        resolve_config(config, json.loads(over))
    tasks = [(r.name, r.task()) for r in todo]
    if backend == "local":
        finished = _local(tasks, workers)
    elif backend == "ray":
        finished = _ray(tasks, address, workers)
    else:
        raise ValueError(f"sweep: unknown backend `{backend}`; known: local, ray")
    start = time.perf_counter()
    failed: dict[str, str] = {}
    for k, (name, (ok, text)) in enumerate(finished, 1):
        if ok:
            _write_atomic(out / "runs" / f"{name}.json", text)
            say(f"  [{k}/{len(todo)}] {name} ({time.perf_counter() - start:.1f} s)")
        else:
            failed[name] = text
            say(f"  [{k}/{len(todo)}] {name} FAILED: {text}")
    if failed:
        raise SweepError(failed)
    table = SweepTable.from_reports(runs, out)
    _write_atomic(out / "results.csv", table.df.to_csv(index=False))
    _write_atomic(out / "results.parquet", table.df.to_parquet(index=False))
    return table


class SweepTable:
    """A sweep's results: :attr:`df`, one row per run, and :meth:`plot`."""

    def __init__(self, df: pd.DataFrame):
        self.df = df

    @classmethod
    def from_reports(cls, runs: list[Run], out: pathlib.Path) -> "SweepTable":
        rows = []
        for r in runs:
            report = Report((out / "runs" / f"{r.name}.json").read_text())
            summary = report.summary
            summary.pop("wall_s")
            summary.pop("seed")  # the run's seed column is what the grid asked for
            row = r.params()
            row["seed"] = report.data["seed"]
            row.update(summary)
            rows.append(row)
        return cls(pd.DataFrame(rows))

    @classmethod
    def read(cls, out: str | os.PathLike) -> "SweepTable":
        """A finished sweep's table, from ``OUT/results.parquet``."""
        return cls(pd.read_parquet(pathlib.Path(out) / "results.parquet"))

    def plot(self, x: str, y: str, hue: str | None = None, ax=None, **kwargs):
        """`y` against `x`, one line per value of `hue` (matplotlib); returns the Axes."""
        from .plot import sweep_lines

        return sweep_lines(self.df, x, y, hue, ax=ax, **kwargs)

    def __len__(self) -> int:
        return len(self.df)

    def __repr__(self) -> str:
        return f"<ssdlab.SweepTable {len(self.df)} runs>\n{self.df!r}"
