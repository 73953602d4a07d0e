"""ssdlab.run: the report's DataFrames against its JSON, inputs as paths, TOML text and dicts,
errors with the CLI's messages, and the GIL released during the simulation."""

from __future__ import annotations

import json
import subprocess
import threading
import time

import pytest

import ssdlab

PRESET = "presets/mqsim-default.toml"

# A small synthetic workload: mixed reads and writes, so every latency class has requests.
MIXED = {
    "seed": 7,
    "flows": [
        {"name": "a", "type": "synthetic", "read_ratio": 0.7, "address": "uniform",
         "request_bytes": 8192, "queue_depth": 8, "requests": 3000},
        {"name": "b", "type": "synthetic", "read_ratio": 0.2, "address": "uniform",
         "request_bytes": 4096, "queue_depth": 4, "requests": 2000},
    ],
}


def without_run(report_json: str) -> dict:
    """The report minus `run` (wall time, RSS): what depends only on the inputs."""
    d = json.loads(report_json)
    d.pop("run")
    return d


def test_the_readme_command_completes_every_tpcc_request(repo, tpcc, monkeypatch):
    monkeypatch.chdir(repo)
    r = ssdlab.run(PRESET, str(tpcc))
    # The trace's request count (`ssdlab trace info`), all replayed.
    assert r.summary["requests_completed"] == 6999
    assert r.data["sim"]["host"]["requests_completed"] == 6999


def test_dataframes_match_the_json_report(repo, monkeypatch):
    monkeypatch.chdir(repo)
    r = ssdlab.run(PRESET, MIXED, overrides={"stats.interval_us": 2000})
    d = json.loads(r.to_json())
    sim = d["sim"]

    assert list(r.latency.index) == ["all", "read", "write"]
    for cls in ("all", "read", "write"):
        for k, v in sim["latency_us"][cls].items():
            if k != "cdf":  # its points are `latency_cdf`'s rows
                assert r.latency.loc[cls, k] == v
        points = r.latency_cdf[r.latency_cdf["class"] == cls]
        assert [[us, f] for us, f in zip(points["latency_us"], points["fraction"])] == sim["latency_us"][cls]["cdf"]
    assert r.latency.loc["read", "count"] + r.latency.loc["write", "count"] == r.latency.loc["all", "count"]

    assert list(r.flows["name"]) == ["a", "b"]
    for i, f in enumerate(sim["flows"]):
        row = r.flows.iloc[i]
        assert row["requests_completed"] == f["requests_completed"]
        assert row["iops"] == f["iops"]
        assert row["latency_mean_us"] == f["latency_us"]["mean"]
        assert row["latency_p99_us"] == f["latency_us"]["p99"]
        assert row["latency_count"] == f["latency_us"]["count"]
    assert r.flows["requests_completed"].sum() == 5000

    ts = r.time_series
    assert len(ts) == len(sim["time_series"]) > 1
    assert list(ts.columns) == list(sim["time_series"][0].keys())
    for i, sample in enumerate(sim["time_series"]):
        for k, v in sample.items():
            assert ts.iloc[i][k] == v
    # Every request completes in some interval.
    assert ts["requests"].sum() == 5000

    s = r.summary
    assert s["requests_completed"] == sim["host"]["requests_completed"] == 5000
    assert s["latency_p99_us"] == sim["latency_us"]["all"]["p99"]
    assert s["write_latency_mean_us"] == sim["latency_us"]["write"]["mean"]
    assert s["waf"] == sim["gc"]["waf"]
    assert s["sim_time_s"] == sim["sim_time_ps"] / 1e12
    assert s["seed"] == 7


def test_path_toml_text_and_dict_give_the_same_report(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    config_text = (repo / PRESET).read_text()
    workload_text = (repo / "examples" / "read-qd16.toml").read_text().replace("100000", "2000")
    wpath = tmp_path / "w.toml"
    wpath.write_text(workload_text)
    import tomllib

    by_path = ssdlab.run(PRESET, wpath)
    by_text = ssdlab.run(config_text, workload_text)
    by_dict = ssdlab.run(tomllib.loads(config_text), tomllib.loads(workload_text))
    a, b, c = (without_run(r.to_json()) for r in (by_path, by_text, by_dict))
    # Only the workload's name for messages may differ; it is not serialised.
    assert a == b == c
    assert a["sim"]["host"]["requests_completed"] == 4000


def test_seed_and_set_are_the_clis(repo, cli, tpcc, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    out = tmp_path / "cli.json"
    subprocess.run(
        [cli, "run", "--config", PRESET, "--workload", "examples/read-qd16.toml", "--seed", "5",
         "--set", "hil.scheduler=spk3", "--set", "nand.channels=4", "--out", out],
        check=True, capture_output=True,
    )
    workload = (repo / "examples" / "read-qd16.toml")
    r = ssdlab.run(PRESET, workload, seed=5, overrides={"hil.scheduler": "spk3", "nand.channels": 4})
    assert without_run(r.to_json()) == without_run(out.read_text())
    assert r.data["config"]["nand"]["channels"] == 4
    assert r.summary["scheduler"] == "spk3"


def cli_error(cli, *args) -> str:
    """The CLI's message for bad input: its stderr line after `error: `, exit code 2."""
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    line = [l for l in p.stderr.splitlines() if l.startswith("error: ")][-1]
    return line.removeprefix("error: ")


def test_bad_config_raises_with_the_clis_message(repo, cli, tpcc, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    bad = tmp_path / "bad.toml"
    bad.write_text((repo / PRESET).read_text().replace('policy = "ooo"', 'policy = "bogus"', 1))
    assert "bogus" in bad.read_text()
    expected = cli_error(cli, "run", "--config", bad, "--workload", tpcc)
    assert "bogus" in expected and str(bad) in expected
    with pytest.raises(ssdlab.SsdlabError) as e:
        ssdlab.run(bad, tpcc)
    assert str(e.value) == expected

    # An impossible --set value, an unknown key, a missing file: the same message each time.
    cases = [
        (["--set", "nand.channels=0"], {"overrides": {"nand.channels": 0}}, PRESET),
        (["--set", "nand.no_such_key=1"], {"overrides": {"nand.no_such_key": 1}}, PRESET),
        ([], {}, "presets/no-such-preset.toml"),
    ]
    for args, kwargs, config in cases:
        expected = cli_error(cli, "run", "--config", config, "--workload", tpcc, *args)
        with pytest.raises(ssdlab.SsdlabError) as e:
            ssdlab.run(config, tpcc, **kwargs)
        assert str(e.value) == expected


def test_bad_input_without_the_cli(repo, tpcc, monkeypatch):
    monkeypatch.chdir(repo)
    with pytest.raises(ssdlab.SsdlabError, match=r"--set: nand.channels = 0: must be at least 1"):
        ssdlab.run(PRESET, tpcc, overrides={"nand.channels": 0})
    # A bad key in a dict names the key, in TOML text it also names the line.
    with pytest.raises(ssdlab.SsdlabError, match=r"<config>:\d+: .*tsu.policy = \"bogus\""):
        ssdlab.run({"tsu": {"policy": "bogus"}}, tpcc)
    with pytest.raises(ssdlab.SsdlabError, match=r"<workload>:3: flows\[0\]: read_ratio = 2: must be in \[0, 1\]"):
        ssdlab.run(PRESET, '[[flows]]\ntype = "synthetic"\nread_ratio = 2.0\nrequests = 10\n')
    with pytest.raises(ValueError, match=r"config.nand.channels: None is not a value \(TOML has no null\)"):
        ssdlab.run({"nand": {"channels": None}}, tpcc)
    with pytest.raises(ValueError, match="nand.channels: nan is not a finite number"):
        ssdlab.run(PRESET, tpcc, overrides={"nand": {"channels": float("nan")}})
    with pytest.raises(TypeError):
        ssdlab.run(42, tpcc)
    # It is a ValueError, so generic handlers catch it.
    assert issubclass(ssdlab.SsdlabError, ValueError)


def test_the_simulation_releases_the_gil(repo, monkeypatch):
    monkeypatch.chdir(repo)
    big = {"flows": [{"name": "r", "type": "synthetic", "read_ratio": 1.0, "address": "uniform",
                      "request_bytes": 4096, "queue_depth": 32, "requests": 150_000}]}
    ticks = 0
    done = threading.Event()

    def ticker():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    start = time.perf_counter()
    r = ssdlab.run(PRESET, big)
    wall = time.perf_counter() - start
    done.set()
    t.join()
    assert r.summary["requests_completed"] == 150_000
    # Holding the GIL for the whole run would leave the ticker at a tick or two.
    assert wall > 0.05
    assert ticks >= 10, f"{ticks} ticks in {wall:.3f} s"


def test_a_run_above_max_memory_raises_naming_the_estimate(repo, monkeypatch):
    monkeypatch.chdir(repo)
    with pytest.raises(ssdlab.MemoryLimitError, match=r"^this run needs about \S+ \S+ of memory \(estimate\), more than 1\.00 MiB: the limit max_memory sets"):
        ssdlab.run(PRESET, MIXED, max_memory="1M")
    with pytest.raises(ssdlab.MemoryLimitError, match=r"more than 1\.00 MiB"):
        ssdlab.run(PRESET, MIXED, max_memory=1 << 20)
    # A memory refusal is bad input too: existing handlers of SsdlabError catch it.
    assert issubclass(ssdlab.MemoryLimitError, ssdlab.SsdlabError)
    with pytest.raises(ssdlab.SsdlabError, match="max_memory: `lots`: expected a size"):
        ssdlab.run(PRESET, MIXED, max_memory="lots")


def test_check_above_the_address_space_raises_instead_of_killing_the_interpreter(repo):
    """`check=True` on a drive too large for `ulimit -v` used to abort the interpreter; it now
    raises MemoryLimitError before the run starts."""
    code = (
        "import ssdlab\n"
        "wl = {'seed': 1, 'precondition': {'occupancy': 0.9}, 'flows': [{'type': 'synthetic',"
        " 'read_ratio': 0.5, 'request_bytes': 4096, 'requests': 100}]}\n"
        "try:\n"
        f"    ssdlab.run({PRESET!r}, wl, check=True, set={{'nand.blocks_per_plane': 16384}})\n"
        "except ssdlab.MemoryLimitError as e:\n"
        "    print('refused:', e)\n"
    )
    if subprocess.run(["sh", "-c", "ulimit -v 4000000"]).returncode != 0:
        pytest.skip("ulimit -v is not allowed here")
    import sys
    out = subprocess.run(["sh", "-c", f'ulimit -v 4000000; exec "{sys.executable}" -c "$0"', code],
                         cwd=repo, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("refused: this run needs about "), out.stdout + out.stderr
    assert "ulimit -v 4000000" in out.stdout
