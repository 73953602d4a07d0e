"""Plots: what is drawn is the report's and the table's numbers."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import ssdlab  # noqa: E402


def test_latency_cdf_draws_the_reports_distribution(repo, monkeypatch):
    monkeypatch.chdir(repo)
    r = ssdlab.run("presets/mqsim-default.toml", "examples/read-qd16.toml",
                   overrides={"nand.channels": 2}, seed=3)
    ax = r.plot_latency_cdf()
    lines = ax.get_lines()
    # read-qd16 only reads: `all` and `read` are drawn, `write` (no requests) is not.
    assert [l.get_label().split(" ")[0] for l in lines] == ["all", "read"]
    q = r.data["sim"]["latency_us"]["all"]
    cdf = dict((f, us) for us, f in q["cdf"])
    # The CDF agrees with the report's quantiles, read from the same histogram.
    assert (cdf[0.5], cdf[0.99], cdf[0.999], cdf[1.0]) == (q["p50"], q["p99"], q["p999"], q["max"])
    assert len(q["cdf"]) == 104 and q["cdf"][0][1] == 0.0
    assert list(lines[0].get_xdata()) == [us for us, _ in q["cdf"]]
    # The tail: 1 − fraction, down to one request (1 / count).
    n = q["count"]
    assert list(lines[0].get_ydata()) == pytest.approx([max(1 - f, 1 / n) for _, f in q["cdf"]])
    assert list(lines[0].get_ydata())[:3] == pytest.approx([1.0, 0.99, 0.98])
    df = r.latency_cdf
    assert len(df) == 2 * 104 and set(df["class"]) == {"all", "read"}
    assert df[df["class"] == "read"]["latency_us"].is_monotonic_increasing


def test_sweep_table_plot_averages_over_the_other_columns():
    df = pd.DataFrame({
        "x": [1, 1, 2, 2, 1, 2],
        "seed": [1, 2, 1, 2, 1, 1],
        "s": ["a", "a", "a", "a", "b", "b"],
        "y": [1.0, 3.0, 5.0, 7.0, 10.0, 20.0],
    })
    ax = ssdlab.SweepTable(df).plot(x="x", y="y", hue="s")
    lines = {l.get_label(): l for l in ax.get_lines()}
    assert set(lines) == {"s = a", "s = b"}
    assert list(lines["s = a"].get_xdata()) == [1, 2]
    assert list(lines["s = a"].get_ydata()) == [2.0, 6.0]
    assert list(lines["s = b"].get_ydata()) == [10.0, 20.0]
    with pytest.raises(KeyError, match="no column `z`"):
        ssdlab.SweepTable(df).plot(x="x", y="z")


def test_the_sprinkler_example_draws_its_figure(repo, tmp_path):
    import subprocess
    import sys

    out = tmp_path / "fig15"
    p = subprocess.run([sys.executable, "examples/sprinkler_fig15.py", "--out", str(out)],
                       cwd=repo, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (out / "fig15_64chips.png").stat().st_size > 10_000
    table = pd.read_parquet(out / "results.parquet")
    assert len(table) == 25
    # Sprinkler's point: at small transfers, VAS leaves most planes idle and SPK3 does not.
    small = table[table["workload"].str.contains("random-4k")].set_index("hil.scheduler")
    assert small.loc["spk3", "plane_utilization"] > 2 * small.loc["vas", "plane_utilization"]
