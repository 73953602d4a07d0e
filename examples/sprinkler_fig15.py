"""Sprinkler (Jung & Kandemir, HPCA 2014), Figure 15 at 64 chips, from Python: plane-weighted
chip utilization against transfer size under the five device-level schedulers (VAS, PAS,
SPK1, SPK2, SPK3), 50 % random reads, on the paper's 64-chip drive.

The same grid as `ssdlab reproduce sprinkler --quick`'s Figure 15 (its transfer sizes, its
48 MiB moved per run, its host queue of 1024 requests), and the same numbers: every
utilization here equals that run's results.csv to its four decimals (checked by hand when
this was written). Run from the repository root after `pip install ./python`:

    python examples/sprinkler_fig15.py --out out/fig15        # 25 runs, all cores
    python examples/sprinkler_fig15.py --out out/fig15 --backend ray

It writes OUT/runs/*.json, OUT/results.csv and .parquet (the sweep) and OUT/fig15_64chips.png.
Run again, it only redraws: every run is already there.
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import ssdlab  # noqa: E402
from ssdlab.sweep import sweep  # noqa: E402

SCHEDULERS = ["vas", "pas", "spk1", "spk2", "spk3"]
SIZES_KIB = [4, 32, 256, 1024, 4096]
MOVED_BYTES = 48 << 20  # per run, as the quick reproduction


def workload_file(folder: pathlib.Path, size_kib: int) -> pathlib.Path:
    """A closed-loop flow of random requests of one size, half of them reads."""
    size = size_kib << 10
    requests = min(max(MOVED_BYTES // size, 96), 8000)
    path = folder / f"random-{size_kib}k.toml"
    path.write_text(
        "[[flows]]\n"
        f'name = "random-{size_kib}k"\ntype = "synthetic"\nread_ratio = 0.5\naddress = "uniform"\n'
        f"request_bytes = {size}\nqueue_depth = 1024\nrequests = {requests}\n"
    )
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out/fig15")
    ap.add_argument("--backend", default="local", choices=["local", "ray"])
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    (out / "workloads").mkdir(parents=True, exist_ok=True)
    workloads = [workload_file(out / "workloads", k) for k in SIZES_KIB]
    grid = {
        "config": "presets/sprinkler-64chip.toml",
        "workload": [str(w) for w in workloads],
        "set": {"hil.scheduler": SCHEDULERS},
    }
    table = sweep(grid, backend=args.backend, out=out, workers=args.workers)
    df = table.df
    df["transfer_kib"] = df["workload"].map(lambda w: int(pathlib.Path(w).stem.split("-")[1].rstrip("k")))
    df["scheduler"] = df["hil.scheduler"].str.upper()
    ax = ssdlab.SweepTable(df).plot(x="transfer_kib", y="plane_utilization", hue="scheduler")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("transfer size (KiB)")
    ax.set_ylabel("plane-weighted chip utilization")
    ax.set_title("Sprinkler Fig. 15: chip utilization, 64 chips")
    png = out / "fig15_64chips.png"
    plt.savefig(png, dpi=120, bbox_inches="tight")
    print(df.pivot(index="transfer_kib", columns="scheduler", values="plane_utilization").round(3))
    print(f"figure: {png}")


if __name__ == "__main__":
    main()
