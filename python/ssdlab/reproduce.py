"""Paper reproductions from Python: :func:`reproduce` runs what ``ssdlab reproduce`` runs —
the same grid on the same sweep engine, the same figures drawn by the same (Rust) code — and
hands its results back as a DataFrame."""

from __future__ import annotations

import json
import os
import pathlib

import pandas as pd

from . import _ssdlab

#: The papers there is a reproduction of.
PAPERS = ("sprinkler", "flin", "fmmu", "spd", "pacp")


class Reproduction:
    """What a reproduction wrote under ``out``: ``results`` (results.csv, one row per run or
    case), ``report`` (REPORT.md: each claim beside the paper's number), ``figures`` (the
    PNGs), ``check`` (the table ``ssdlab reproduce`` prints), ``claims`` (claims.json: the
    paper's headline claims beside this run's values, one dict each, as ``ssdlab ledger``
    reads them) and ``runs`` (the folder of each run's JSON report, readable with
    :class:`ssdlab.Report`)."""

    def __init__(self, out: pathlib.Path, check: str):
        self.out = out
        self.check = check
        self.results = pd.read_csv(out / "results.csv")
        self.report = (out / "REPORT.md").read_text()
        self.figures = sorted(out.glob("*.png"))
        self.claims = json.loads((out / "claims.json").read_text())
        self.runs = out / "runs"

    def __repr__(self) -> str:
        return f"<ssdlab.Reproduction {len(self.results)} rows in {self.out}>\n{self.check}"


def reproduce(
    paper: str,
    out: str | os.PathLike,
    *,
    quick: bool = False,
    traces: str | os.PathLike = "traces",
    threads: int | None = None,
    resume: bool = False,
) -> Reproduction:
    """Run the reproduction of `paper` (one of :data:`PAPERS`), as ``ssdlab reproduce PAPER
    --out OUT [--quick] [--traces DIR] [--threads N] [--resume]``, the GIL released. Progress
    goes to stderr. Bad input raises :class:`ssdlab.SsdlabError`.

    ``resume`` reuses a report in ``OUT/runs`` only if it was made from the same config,
    workload and seed by the same simulator source (its ``ssdlab_source``) after its trace
    files last changed; every other run is done again (README, "Reproductions")."""
    check, _ = _ssdlab.reproduce(paper, os.fspath(out), quick, os.fspath(traces), threads, resume)
    return Reproduction(pathlib.Path(out), check)
