"""``python -m prism.conformance``: same as the ``prism-conformance`` script."""

import sys

from ._cli import main

sys.exit(main())
