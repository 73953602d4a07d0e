"""Plots with matplotlib: a report's latency CDF and a sweep table's lines. matplotlib is
imported when a plot is drawn, not with the package."""

from __future__ import annotations

from typing import Any

import pandas as pd

def latency_cdf(data: dict[str, Any], classes=("all", "read", "write"), ax=None):
    """The latency distribution of a report (``Report.data``), one line per request class
    that has requests, from the CDF the report keeps (``sim.latency_us.<class>.cdf``: the
    smallest latency, every hundredth, 0.999, 0.9999, 0.99999, the largest). The y axis is
    the tail, log scaled (1 − fraction, down to one request: 1 / count), where SSD latencies
    differ. Returns the Axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots()
    lat = data["sim"]["latency_us"]
    for cls in classes:
        q = lat[cls]
        if q["count"] == 0:
            continue
        one = 1 / q["count"]
        xs = [us for us, _ in q["cdf"]]
        tail = [max(1 - f, one) for _, f in q["cdf"]]
        ax.plot(xs, tail, label=f"{cls} ({q['count']} requests)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("response time (µs)")
    ax.set_ylabel("fraction of requests slower (1 − CDF)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return ax


def sweep_lines(df: pd.DataFrame, x: str, y: str, hue: str | None = None, ax=None, **kwargs):
    """`y` against `x`, one line per value of `hue` (all rows one line without it); rows of
    equal `x` (and `hue`) are averaged, e.g. over seeds. Returns the Axes."""
    import matplotlib.pyplot as plt

    for col in (x, y, hue):
        if col is not None and col not in df.columns:
            raise KeyError(f"no column `{col}`; columns: {', '.join(map(str, df.columns))}")
    if ax is None:
        _, ax = plt.subplots()
    groups = df.groupby(hue, sort=False) if hue else [(None, df)]
    for key, part in groups:
        line = part.groupby(x, sort=True)[y].mean()
        label = f"{hue} = {key[0] if isinstance(key, tuple) else key}" if hue else y
        ax.plot(line.index, line.values, marker="o", label=label, **kwargs)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.grid(True, alpha=0.3)
    if hue:
        ax.legend()
    return ax
