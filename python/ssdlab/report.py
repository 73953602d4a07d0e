"""One simulation: :func:`run` and its :class:`Report`."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

import pandas as pd

from . import _ssdlab
from ._values import overrides_arg, plain, seed_arg, set_list

#: A config or workload as :func:`run` takes it.
Source = "str | os.PathLike | Mapping[str, Any]"


def _source(value: Any, what: str) -> tuple[str, str]:
    """(kind, text) for the extension: a path, TOML text or a dict.

    A ``pathlib.Path`` (any ``os.PathLike``) is a path. A dict is the TOML document's tables
    as a dict (``{"nand": {"channels": 16}}``). A ``str`` is a path if such a file exists,
    else TOML text if it holds a newline or an ``=``, else a path (whose absence the
    library then reports, as the CLI would).
    """
    if isinstance(value, os.PathLike):
        return "path", os.fspath(value)
    if isinstance(value, Mapping):
        return "json", json.dumps(plain(value, what))
    if isinstance(value, str):
        if os.path.exists(value) or not ("\n" in value or "=" in value):
            return "path", value
        return "toml", value
    raise TypeError(f"{what}: expected a path, a TOML string or a dict, not {type(value).__name__}")


def run(
    config: Any,
    workload: Any,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    check: bool = False,
    fairness: bool = False,
    max_memory: int | str | None = None,
    set: Mapping[str, Any] | None = None,
) -> "Report":
    """Run one simulation, as ``ssdlab run --config CONFIG --workload WORKLOAD``.

    ``config`` and ``workload`` are each a path, a TOML string or a dict; a workload file
    that is not ``.toml`` is a trace replayed at its timestamps as one flow. ``seed``
    replaces the workload's seed (``--seed``; docs/workload.md, "Seeds"); ``overrides``
    overrides config keys (``{"hil.scheduler": "spk3"}`` is ``--set hil.scheduler=spk3``);
    ``check`` and ``fairness`` are ``--check`` and ``--fairness``. ``set=`` is the
    deprecated name of ``overrides`` (it shadows the builtin): it still works, with a
    DeprecationWarning. Bad input raises :class:`SsdlabError` with the message the CLI prints
    after ``error:``; a bad ``seed`` or ``overrides`` type raises TypeError or ValueError
    naming it. A run whose memory estimate (``ssdlab validate``) is above what the process
    may still take, or above ``max_memory`` (bytes, or a size such as ``"8G"``, like
    ``--max-memory``), raises :class:`MemoryLimitError` (an :class:`SsdlabError`) before it
    starts, naming the estimate and the limit. The simulation releases the GIL.
    """
    overrides = overrides_arg(overrides, set)
    seed = seed_arg(seed)
    ck, cv = _source(config, "config")
    wk, wv = _source(workload, "workload")
    limit = None if max_memory is None else str(max_memory)
    text = _ssdlab.run_json(ck, cv, wk, wv, seed, set_list(overrides), check, fairness, limit)
    return Report(text)


def resolve_config(
    config: Any, overrides: Mapping[str, Any] | None = None, *, set: Mapping[str, Any] | None = None
) -> str:
    """The fully resolved config as TOML (``ssdlab validate --print``); raises on bad input.
    ``set=`` is the deprecated name of ``overrides``."""
    overrides = overrides_arg(overrides, set)
    kind, value = _source(config, "config")
    return _ssdlab.resolve_config(kind, value, set_list(overrides))


class Report:
    """A simulation's report: the JSON ``ssdlab run --out`` writes, and views of it.

    - ``data``: the whole report as a dict (README, "Reading the report").
    - ``summary``: a flat dict of the main numbers (see :meth:`summary`).
    - ``latency``: one row per request class (``all``, ``read``, ``write``); columns
      ``count``, ``mean``, ``p50``, ``p99``, ``p999``, ``max``, in µs (``sim.latency_us``).
    - ``latency_cdf``: each class's distribution, one row per point (``class``,
      ``fraction``, ``latency_us``).
    - ``flows``: one row per flow (``sim.flows``), its ``latency_us`` spread into
      ``latency_{mean,p50,p99,p999,max}_us`` and ``latency_count``.
    - ``time_series``: one row per ``stats.interval_us`` sample (``sim.time_series``).
    """

    def __init__(self, text: str):
        self._text = text
        self.data: dict[str, Any] = json.loads(text)

    def to_json(self) -> str:
        """The report's JSON text, byte for byte what ``ssdlab run --out`` writes."""
        return self._text

    @property
    def summary(self) -> dict[str, Any]:
        """The main numbers, flat.

        ``requests_completed``, ``iops``, ``bandwidth_mb_s``, ``read_bandwidth_mb_s``,
        ``write_bandwidth_mb_s``, ``host_wait_us_mean``, ``device_us_mean``,
        ``queue_stall_s`` (``sim.host``); ``sim_time_s``; ``latency_{mean,p50,p99,p999,max}_us``
        and ``read_latency_…``, ``write_latency_…`` (``sim.latency_us``);
        ``chip_utilization``, ``plane_utilization``, ``inter_chip_idleness``,
        ``intra_chip_idleness``, ``transaction_reduction`` (``sim.flash``); ``waf``,
        ``gc_invocations``, ``gc_pages_moved``, ``gc_erases`` (``sim.gc``);
        ``cache_hit_ratio``; ``scheduler``, ``tsu``, ``seed``; ``wall_s``. Defined once, in
        the library (``ssdlab_lab::sweep::table::summary``), for the sweep table too.
        """
        return dict(json.loads(_ssdlab.summary(self._text)))

    @property
    def latency(self) -> pd.DataFrame:
        lat = self.data["sim"]["latency_us"]
        rows = {cls: {k: v for k, v in q.items() if k != "cdf"} for cls, q in lat.items()}
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("class")

    @property
    def latency_cdf(self) -> pd.DataFrame:
        """One row per point of each class's CDF: ``class``, ``fraction`` (of requests at or
        below), ``latency_us``; no rows for a class without requests."""
        rows = [{"class": cls, "fraction": f, "latency_us": us}
                for cls, q in self.data["sim"]["latency_us"].items() for us, f in q.get("cdf", [])]
        return pd.DataFrame(rows, columns=["class", "fraction", "latency_us"])

    @property
    def flows(self) -> pd.DataFrame:
        rows = []
        for f in self.data["sim"]["flows"]:
            row = {k: v for k, v in f.items() if k != "latency_us"}
            for k, v in f["latency_us"].items():
                row["latency_count" if k == "count" else f"latency_{k}_us"] = v
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def time_series(self) -> pd.DataFrame:
        return pd.DataFrame(self.data["sim"]["time_series"])

    def plot_latency_cdf(self, classes=("all", "read", "write"), ax=None):
        """The latency distribution, its tail on a log scale (see
        :func:`ssdlab.plot.latency_cdf`); returns the matplotlib Axes."""
        from .plot import latency_cdf

        return latency_cdf(self.data, classes, ax=ax)

    def __repr__(self) -> str:
        s = self.summary
        return (f"<ssdlab.Report {s['requests_completed']} requests, {s['iops']:.0f} IOPS, "
                f"mean latency {s['latency_mean_us']:.1f} us>")
