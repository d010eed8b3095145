"""``python -m ssdlab.cli``: the ``ssdlab`` command."""

from ssdlab.cli import main

main()
