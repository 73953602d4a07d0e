"""Type stubs of the compiled extension ``ssdlab._ssdlab`` (``python/src/lib.rs`` and
``python/src/sweep.rs``). The package's own modules call these; users call :func:`ssdlab.run`,
:func:`ssdlab.sweep` and :func:`ssdlab.reproduce`. A source kind is ``"path"``, ``"toml"``
(TOML text) or ``"json"`` (a dict serialised as JSON). ``python/tests/test_packaging.py`` checks
that every public name and parameter here is the module's."""

from typing import Callable

__version__: str

class SsdlabError(ValueError):
    """Bad input (a config, workload or trace): the message names the file, line, key and
    value, as the CLI's does."""

class MemoryLimitError(SsdlabError):
    """A run refused because its memory estimate is above a limit, or a table that could not be
    allocated; the message names the estimate (or the table) and the limit."""

def run_json(
    config_kind: str,
    config_value: str,
    workload_kind: str,
    workload_value: str,
    seed: int | None = None,
    overrides: list[str] = ...,
    check: bool = False,
    fairness: bool = False,
    max_memory: str | None = None,
) -> str:
    """Run one simulation (``overrides``: ``--set`` pairs as ``"key=value"``; ``max_memory``:
    ``--max-memory``); the report's JSON text."""

def resolve_config(config_kind: str, config_value: str, overrides: list[str] = ...) -> str:
    """The fully resolved config as TOML (``ssdlab validate --print``)."""

def summary(report_json: str) -> str:
    """A report's main numbers as JSON ``[name, value]`` pairs, in order."""

def reproduce(
    paper: str,
    out: str,
    quick: bool = False,
    traces: str = "traces",
    threads: int | None = None,
    resume: bool = False,
) -> tuple[str, str]:
    """Run a paper's reproduction: (its check table, the line saying where the results are)."""

def sweep_plan(kind: str, value: str, out: str | None = None) -> str:
    """The grid's runs in order as JSON, each with whether its report is stored under ``out``."""

def sweep_local(kind: str, value: str, out: str, workers: int, progress: Callable[[str], object]) -> str:
    """Run the grid's missing runs on ``workers`` threads; the failed runs as JSON
    ``[name, message]`` pairs."""

def sweep_save(kind: str, value: str, out: str, name: str, report_json: str) -> None:
    """Store the report a Ray task made for the run ``name``, after checking it is that run's."""

def sweep_write_table(kind: str, value: str, out: str) -> None:
    """Write ``OUT/results.csv`` and ``OUT/results.parquet`` from the stored reports (the
    writer ``ssdlab sweep`` uses)."""
