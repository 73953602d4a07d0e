"""Sweeps: a grid of runs (config × workload × seed × ``set`` overrides), each run's report
written atomically under an output folder and named by its parameters, a results table
(CSV and Parquet) built from those reports, resumable after an interruption.

The engine is the library's (``crates/ssdlab-lab/src/sweep``), the one ``ssdlab reproduce``
runs on: the grid's runs and names, the store of reports, the local backend and the table
(results.csv and results.parquet, written by the same code as ``ssdlab sweep``'s) are Rust;
this module adds the Ray backend and the DataFrame.

The grid is a dict, or a TOML file (``experiments/*.toml``) of the same shape::

    config = ["presets/mqsim-default.toml"]        # a value or a list of values
    workload = ["examples/read-qd16.toml"]
    seed = [1, 2, 3]                                # optional (default: the workload's)
    [set]                                           # optional: config keys, each a list
    "hil.scheduler" = ["direct", "spk3"]
    "nand.channels" = [4, 8]

A config or workload is a path, or inline: a dict (a table) or TOML text (a string with a
newline), named ``inline-<hash>``. Relative paths in a grid file are taken from the file's
folder when they exist there, else from the working directory (as a workload's trace paths
are).

The runs are the product of the lists, in the order above with ``set`` keys in the grid's
order, the last varying fastest. A run's report goes to ``OUT/runs/<name>.json``, written to
a temporary file and renamed, so a report present is a run finished; a sweep started again
reuses those made from the same config, workload and seed, and runs the rest. Only the
process that calls :func:`sweep` writes under ``OUT``: Ray tasks return the report's text.
Every config and workload is read before any run starts, so bad input fails at once.

Backends: ``local`` runs on all cores (``workers`` to choose) on the library's thread pool,
the GIL released; Ctrl-C lets the runs under way finish and be stored, then raises
``KeyboardInterrupt``. ``ray`` runs each simulation as a Ray task on the cluster at
``address`` (``None``: a local Ray instance, started and stopped here). On a cluster, the
nodes need this package installed and the grid's config, workload and trace paths readable
where the tasks run (a shared file system); the reports come back to the caller, which
alone writes ``OUT``. A task whose worker or node dies is run again elsewhere, up to
:data:`RAY_MAX_RETRIES` times; a run lost more often fails alone (:class:`SweepError`) and
runs again when the sweep is started again. One sweep at a time per ``OUT``.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
import time
from typing import Any, Callable, Iterable, Mapping

import pandas as pd

from . import _ssdlab
from ._ssdlab import SsdlabError
from ._values import flat, plain

#: A grid as :func:`sweep` takes it.
Grid = "Mapping[str, Any] | str | os.PathLike"

#: How many times Ray runs a task again after its worker process or its node died (Ray's
#: ``max_retries``, its default made explicit). A run is deterministic and its task writes
#: nothing, so running it again gives the same report, stored once by the caller. Past the
#: limit (or if Ray loses the task's result) the run fails alone: its name and Ray's error are
#: in :class:`SweepError`, and the next start of the sweep runs it again.
RAY_MAX_RETRIES = 3


class Run:
    """One point of the grid: its name, parameters and inputs (as the engine resolved them)."""

    def __init__(self, entry: dict[str, Any]):
        self.name: str = entry["name"]
        self.config_label: str = entry["config_label"]
        self.workload_label: str = entry["workload_label"]
        self.seed: int | None = entry["seed"]
        self.set: dict[str, Any] = dict(entry["set"])
        self.done: bool = entry["done"]
        self._task = (*entry["config"], *entry["workload"], self.seed, entry["overrides"])

    def task(self) -> tuple:
        """What a Ray task needs to run it (picklable, small): `_ssdlab.run_json`'s arguments."""
        return self._task

    def __repr__(self) -> str:
        return f"<ssdlab.sweep.Run {self.name}>"


def _grid_source(grid: Grid) -> tuple[str, str]:
    """("path", a grid file) or ("json", a dict's JSON: paths as text, numpy values as
    Python's, nested ``set`` dicts as dotted keys in order)."""
    if isinstance(grid, Mapping):
        data = {k: plain(v, k) for k, v in grid.items() if k != "set"}
        if "set" in grid:
            if not isinstance(grid["set"], Mapping):
                raise ValueError("set: a dict of config keys, each a value or a list of values")
            data["set"] = {k: plain(v, f"set.{k}") for k, v in flat(grid["set"], "").items()}
        return "json", json.dumps(data)
    if isinstance(grid, (str, os.PathLike)):
        return "path", os.fspath(grid)
    raise TypeError(f"sweep grid: expected a dict or a path, not {type(grid).__name__}")


def expand(grid: Grid, out: str | os.PathLike | None = None) -> list[Run]:
    """The grid's runs, in order, each with a unique name built from its parameters; with
    `out`, whether each one's report is already stored there. Reads every config and
    workload: bad input raises :class:`SsdlabError` here."""
    kind, value = _grid_source(grid)
    plan = _ssdlab.sweep_plan(kind, value, None if out is None else os.fspath(out))
    return [Run(e) for e in json.loads(plan)]


def _run_task(task: tuple) -> tuple[bool, str]:
    """One simulation in a Ray task: (True, the report's JSON text), or (False, the message)
    for bad input found while running or a broken invariant (a panic), so that one bad run
    does not stop the others."""
    try:
        return True, _ssdlab.run_json(*task)
    except SsdlabError as e:
        return False, str(e)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # pyo3's PanicException is a BaseException
        return False, f"internal error (a bug in ssdlab; please report it): {e}"


class SweepError(ValueError):
    """Runs that failed on bad input found while running (a trace's bad line), or, on Ray,
    that Ray gave up on (:data:`RAY_MAX_RETRIES`): ``failed`` maps each one's name to its
    message. The others' reports are kept; a sweep started again retries only these."""

    def __init__(self, failed: dict[str, str]):
        self.failed = failed
        lines = [f"{name}: {message}" for name, message in failed.items()]
        super().__init__(f"{len(failed)} runs failed:\n  " + "\n  ".join(lines))


def _ray(
    runs: list[Run], grid: tuple[str, str], out: str, address: str | None, workers: int | None,
    say: Callable[[str], None],
) -> dict[str, str]:
    """Each run as a Ray task; each report stored as its task ends. Without an address, a
    local Ray instance with `workers` CPUs (default: all) is started for the sweep and stopped
    after it. Returns the failed runs (name → message)."""
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
    failed: dict[str, str] = {}
    try:
        remote = ray.remote(num_cpus=1, max_retries=RAY_MAX_RETRIES)(_run_task)
        pending = {remote.remote(r.task()): r.name for r in runs}
        start = time.perf_counter()
        for k, (name, (ok, text)) in enumerate(_as_completed(ray, pending), 1):
            if ok:
                _ssdlab.sweep_save(*grid, out, name, text)
                say(f"  [{k}/{len(runs)}] {name} ({time.perf_counter() - start:.1f} s)")
            else:
                failed[name] = text
                say(f"  [{k}/{len(runs)}] {name} FAILED: {text}")
    finally:
        if started:
            ray.shutdown()
    return failed


def _as_completed(ray, pending: dict) -> Iterable[tuple[str, tuple[bool, str]]]:
    """(name, result) of each task as it ends; a task Ray gave up on (its worker or node
    lost more than :data:`RAY_MAX_RETRIES` times, or its result lost) ends as (False, why)."""
    waiting = list(pending)
    while waiting:
        done, waiting = ray.wait(waiting, num_returns=1)
        for ref in done:
            try:
                result = ray.get(ref)
            except ray.exceptions.RayError as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else ""
                result = False, f"Ray gave up on it (max_retries = {RAY_MAX_RETRIES}): {type(e).__name__}: {first}"
            yield pending.pop(ref), result


def sweep(
    grid: Grid,
    backend: str = "local",
    out: str | os.PathLike | None = None,
    *,
    address: str | None = None,
    workers: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> "SweepTable":
    """Run every run of `grid` not already finished under `out`, then build the table.

    `out` is required: the folder (created if missing) for ``runs/*.json``,
    ``results.csv`` and ``results.parquet``. Without it :func:`sweep` raises TypeError
    instead of writing into the working directory.

    `address` (``ray`` only) is the cluster to run on: ``"auto"`` or ``"HEAD:6379"`` from one
    of its machines, ``"ray://HEAD:10001"`` from any other (Ray Client: ``pip install
    'ray[client]'``); ``None`` starts a local Ray instance with `workers` CPUs. If Ray is
    initialised already, its connection is used as it is. The README's "On a Ray cluster"
    says what the nodes need.

    Returns the :class:`SweepTable` read from ``OUT/results.parquet``, which the library
    writes with ``OUT/results.csv`` (the same files ``ssdlab sweep`` writes): one row per run
    in grid order, the parameter columns (``run``, ``config``, ``workload``, ``seed``, each
    ``set`` key) then the report's summary (:attr:`Report.summary`) without ``wall_s``, so
    that the same grid gives the same table on every backend. Each column is typed by its
    values: whole numbers int64 (uint64 above 2^63 − 1), other numbers float64, booleans
    bool, anything else (a ``set`` key mixing numbers and text) text. Progress (one line per finished run) goes to `progress`, default
    stderr. Runs that fail on bad input found while running raise :class:`SweepError` once
    every run has ended, the others' reports kept; bad configs, workloads and overrides raise
    :class:`SsdlabError` before any run starts.
    """
    if out is None:
        raise TypeError(
            "sweep: out= is required: the folder for the runs' reports and the results table "
            "(runs/*.json, results.csv, results.parquet), e.g. sweep(grid, out=\"out/sweep\")"
        )
    if backend not in ("local", "ray"):
        raise ValueError(f"sweep: unknown backend `{backend}`; known: local, ray")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"sweep: workers = {workers!r}: a number of parallel runs, at least 1")
    say = progress or (lambda line: print(line, file=sys.stderr, flush=True))
    kind, value = _grid_source(grid)
    out_text = os.fspath(out)
    runs = expand(grid, out)
    todo = [r for r in runs if not r.done]
    # The table of an earlier sweep in OUT is not this one's: gone until this one is built.
    for old in ("results.csv", "results.parquet"):
        pathlib.Path(out, old).unlink(missing_ok=True)
    if len(todo) < len(runs):
        say(f"sweep: {len(runs) - len(todo)} of {len(runs)} runs already done in {out_text}; running {len(todo)}")
    else:
        say(f"sweep: {len(runs)} runs, backend {backend}")
    if not todo:
        failed = {}
    elif backend == "local":
        pairs = json.loads(_ssdlab.sweep_local(kind, value, out_text, workers or os.cpu_count() or 1, say))
        failed = dict(pairs)
    else:
        failed = _ray(todo, (kind, value), out_text, address, workers, say)
    if failed:
        raise SweepError(failed)
    # Both files come from the library's writer, the one `ssdlab sweep` uses, so the command
    # and this function write the same tables; the DataFrame is the Parquet file's.
    _ssdlab.sweep_write_table(kind, value, out_text)
    return SweepTable.read(out)


class SweepTable:
    """A sweep's results: :attr:`df`, one row per run, and :meth:`plot`."""

    def __init__(self, df: pd.DataFrame):
        self.df = df

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
