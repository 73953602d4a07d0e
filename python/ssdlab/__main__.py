"""``python -m ssdlab sweep GRID.toml --out DIR [--backend local|ray] [--address ADDR]
[--workers N]``: what ``ssdlab sweep`` (the Rust CLI) runs. Exit code 2 on bad input, as the
CLI's."""

from __future__ import annotations

import argparse
import sys

from . import SsdlabError
from .sweep import sweep


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of parallel runs, at least 1")
    return n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ssdlab")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sweep", help="run a grid of simulations (experiments/*.toml)")
    p.add_argument("grid", help="the grid: a TOML file (see ssdlab.sweep)")
    p.add_argument("--out", required=True, help="folder for runs/*.json, results.csv and results.parquet")
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--address", default=None,
                   help="Ray cluster: auto or HEAD:6379 on a node of it, ray://HEAD:10001 from elsewhere (Ray Client, "
                        "needs ray[client]); default: a local instance")
    p.add_argument("--workers", type=_positive, default=None, help="parallel runs (default: all cores)")
    args = parser.parse_args(argv)
    try:
        table = sweep(args.grid, backend=args.backend, out=args.out, address=args.address, workers=args.workers)
    except (SsdlabError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: the runs that ended are kept in {args.out}/runs; run again to resume", file=sys.stderr)
        return 130
    print(f"{len(table)} runs; results in {args.out}: results.csv, results.parquet, runs/*.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
