"""Typed exceptions raised by ssdlab.

Every error a user can cause derives from :class:`SsdlabError`; its message is one line saying
what is wrong and where (file, line, field or option).
"""

from ssdlab._native import ConfigError, InputOutputError, RequestError, SsdlabError, WorkloadError

# The extension names its module `_native`, which pickle cannot import: an error raised in a
# review's worker process came back as a PicklingError traceback instead of its message.
# Naming this module makes them pickle (and print) as ssdlab.errors.*.
for _error in (SsdlabError, ConfigError, WorkloadError, RequestError, InputOutputError):
    _error.__module__ = __name__

__all__ = ["SsdlabError", "ConfigError", "WorkloadError", "RequestError", "InputOutputError"]
