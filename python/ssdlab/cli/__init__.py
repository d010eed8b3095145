"""The ``ssdlab`` command line: one module per command or group of commands.

- ``app``: the command group, the entry point :func:`main` (every failure is one line on standard
  error, exit status 2), path checks and options the commands share;
- ``profiles``: ``profiles``, ``profile show``;
- ``run``: ``run`` (fio options or a job file);
- ``lab``: ``review``, ``pts``, ``compare``, ``calibrate``;
- ``trace``: ``trace stats``, ``trace generate``, ``trace replay``;
- ``serving``: ``serve``, ``stats``, ``ctl``;
- ``sweep``: ``sweep``.
"""

from ssdlab.cli import lab, profiles, run, serving, sweep, trace  # noqa: F401  (each module adds its commands to the group)
from ssdlab.cli.app import cli, main

__all__ = ["cli", "main"]
