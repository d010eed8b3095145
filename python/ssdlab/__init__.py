"""ssdlab: an SSD simulator and review lab.

The simulator itself is Rust (``ssdlab._native``, a thin binding over the core crates); this
package is the front end:

* :class:`Drive` (``ssdlab.drive``): a simulated drive driven from Python; runs and trace
  replays return :class:`RunResult` (summary dict, per-second series as a pandas frame);
* ``ssdlab.cli``: the ``ssdlab`` command line, one module per command group (``run``,
  ``review``, ``pts``, ``compare``, ``calibrate``, ``trace``, ``serve``, ``stats``, ``ctl``,
  ``sweep``, ``profile``);
* ``ssdlab.lab``: the review lab: one module per test of the articles (``lab.suites``), charts,
  the HTML report, the SQLite results database, calibration against published figures;
* ``ssdlab.traces``: trace statistics and generated Storage Bench workloads.
"""

from ssdlab.drive import Drive, RunResult
from ssdlab.errors import ConfigError, RequestError, SsdlabError, WorkloadError

__all__ = ["Drive", "RunResult", "SsdlabError", "ConfigError", "WorkloadError", "RequestError", "__version__"]
__version__ = "0.1.0"
