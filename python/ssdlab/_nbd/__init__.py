"""The nbdkit plugin of ssdlab (``libssdlab_nbd.so``), built with the package and started by
``ssdlab serve``."""

from pathlib import Path

#: Where the plugin is inside the installed package.
PLUGIN = Path(__file__).with_name("libssdlab_nbd.so")
