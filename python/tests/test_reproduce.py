"""ssdlab.reproduce: the command line's reproduction, on the sweep engine, from Python."""

from __future__ import annotations

import subprocess

import pandas as pd
import pytest

import ssdlab
from conftest import TRACES


def test_a_reproduction_runs_on_the_sweep_engine_and_resumes(repo, cli, tmp_path, monkeypatch):
    if not (TRACES / "msr").exists():
        pytest.skip(f"traces not at {TRACES}")
    monkeypatch.chdir(repo)
    r = ssdlab.reproduce("spd", tmp_path / "py", quick=True, traces=TRACES)
    assert "| s.23 write latency, SPD vs Baseline-D, no GC |" in r.check
    assert len(r.figures) >= 4 and r.report.startswith("#")
    # The ledger's claims: the slides' 14 (s.26's read latency with GC among them) and the
    # s.26 write latency with slots held until programmed, each with the paper's value.
    assert len(r.claims) == 15 and all(c["paper"] == "SPD" for c in r.claims)
    assert r.claims[0]["claim"].startswith("s.23 write latency") and r.claims[0]["paper_value"] == -0.15
    # One stored report per run, each the run of its results row (rows in run order).
    reports = sorted(r.runs.glob("spd-*.json"))
    assert len(reports) == len(r.results) > 100
    first = ssdlab.Report(reports[0].read_text())
    row = r.results.iloc[0]
    assert first.summary["requests_completed"] == row["requests"]
    assert round(first.summary["write_latency_mean_us"], 3) == row["write_us"]
    # results.parquet beside it: the same rows, columns and dtypes as pandas reads the CSV.
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "py" / "results.parquet"), r.results)
    # The command line writes the same table.
    p = subprocess.run([cli, "reproduce", "spd", "--quick", "--traces", TRACES, "--out", tmp_path / "cli"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "cli" / "results.csv").read_bytes() == (tmp_path / "py" / "results.csv").read_bytes()
    # Resumed with every report there: no run again (a report marked by hand comes back), the
    # same table.
    marked = reports[0].read_text().replace('"wall_s": ', '"wall_s": 12345.0, "was": ', 1)
    reports[0].write_text(marked)
    again = ssdlab.reproduce("spd", tmp_path / "py", quick=True, traces=TRACES, resume=True)
    assert ssdlab.Report(reports[0].read_text()).data["run"]["wall_s"] == 12345.0
    assert again.results.equals(r.results)


def test_an_unknown_paper_is_an_error():
    with pytest.raises(ssdlab.SsdlabError, match="unknown paper `nope`; known: sprinkler, flin, fmmu, spd, pacp"):
        ssdlab.reproduce("nope", "unused")


def test_ctrl_c_stops_a_reproduction_and_resume_finishes_it(repo, tmp_path):
    import signal
    import sys
    import time

    if not (TRACES / "msr").exists():
        pytest.skip(f"traces not at {TRACES}")
    out = tmp_path / "spd"
    code = f"import ssdlab; ssdlab.reproduce('spd', {str(out)!r}, quick=True, traces={str(TRACES)!r}, threads=1)"
    p = subprocess.Popen([sys.executable, "-c", code], cwd=repo, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((out / "runs").glob("*.json")):
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode != 0 and "KeyboardInterrupt" in err, err
    kept = len(list((out / "runs").glob("spd-*.json")))
    assert 1 <= kept < 100, kept
    assert not (out / "results.csv").exists()
    r = ssdlab.reproduce("spd", out, quick=True, traces=TRACES, resume=True)
    assert len(list(r.runs.glob("spd-*.json"))) == len(r.results)
