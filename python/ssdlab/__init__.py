"""ssdlab from Python: run the simulator and get its report as pandas DataFrames.

    >>> import ssdlab
    >>> r = ssdlab.run("presets/mqsim-default.toml", "traces/mqsim/tpcc-small.trace")
    >>> r.summary["requests_completed"]
    6999

The simulation itself is the Rust library (``crates/ssdlab``), reached through the
``ssdlab._ssdlab`` extension module; this package turns its JSON report into DataFrames.
Start reading at :func:`run` and :class:`Report` (``report.py``).
"""

from __future__ import annotations

from ._ssdlab import MemoryLimitError, SsdlabError, __version__
from .report import Report, resolve_config, run
from .reproduce import Reproduction, reproduce
from .sweep import SweepError, SweepTable, sweep

__all__ = ["run", "sweep", "reproduce", "resolve_config", "Report", "Reproduction", "SweepTable", "SweepError",
           "SsdlabError", "MemoryLimitError", "__version__"]
