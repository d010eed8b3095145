"""ssdlab: an SSD simulator and review lab.

The simulator itself is Rust (``ssdlab._native``); this package is the front end: the
``ssdlab`` command line, the :class:`Drive` API with results as pandas objects, and (later) the
review suites, reports and sweeps.
"""

from ssdlab.drive import Drive, RunResult
from ssdlab.errors import ConfigError, RequestError, SsdlabError, WorkloadError

__all__ = ["Drive", "RunResult", "SsdlabError", "ConfigError", "WorkloadError", "RequestError", "__version__"]
__version__ = "0.1.0"
