"""Typed exceptions raised by ssdlab.

Every error a user can cause derives from :class:`SsdlabError`; its message is one line saying
what is wrong and where (file, line, field or option).
"""

from ssdlab._native import ConfigError, InputOutputError, RequestError, SsdlabError, WorkloadError

__all__ = ["SsdlabError", "ConfigError", "WorkloadError", "RequestError", "InputOutputError"]
