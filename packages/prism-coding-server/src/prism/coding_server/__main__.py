"""``python -m prism.coding_server``: the same as the ``prism-coding-server`` script."""

from ._cli import main

main()
