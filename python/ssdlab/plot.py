"""Plots with matplotlib: a report's latency CDF and a sweep table's lines. matplotlib is
imported when a plot is drawn, not with the package."""

from __future__ import annotations

from typing import Any

import pandas as pd

#: The quantiles a report keeps (``sim.latency_us``): name and fraction of requests.
QUANTILES = (("p50", 0.5), ("p99", 0.99), ("p999", 0.999), ("max", 1.0))


def latency_cdf(data: dict[str, Any], classes=("all", "read", "write"), ax=None):
    """The latency CDF of a report (``Report.data``) from the quantiles it keeps (p50, p99,
    p99.9, max), one line per request class that has requests. The y axis is the tail, log
    scaled (1 − fraction: 0.5, 0.01, 0.001), where SSD latencies differ. Returns the Axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots()
    lat = data["sim"]["latency_us"]
    for cls in classes:
        q = lat[cls]
        if q["count"] == 0:
            continue
        xs = [q[name] for name, _ in QUANTILES[:-1]]
        # The maximum is one request: plotted at 1 / count of the tail.
        tail = [1 - f for _, f in QUANTILES[:-1]]
        xs.append(q["max"])
        tail.append(1 / q["count"])
        ax.plot(xs, tail, marker="o", label=f"{cls} ({q['count']} requests)")
    ax.set_yscale("log")
    ax.invert_yaxis()
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
