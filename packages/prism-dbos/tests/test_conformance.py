"""The threat rows prism-dbos owns (E13–E15), run through the prism-conformance pytest plugin.

Durable execution is asyncio-based: the rows' trio half only reports ``skipped``, which
``conformance/tests/test_rows_dbos.py`` checks; here they run on asyncio against ``DurableAgent``.
"""

import pytest

from prism.conformance import make_conformance_tests

pytestmark = pytest.mark.slow

test_conformance = make_conformance_tests(package="prism-dbos", backends=("asyncio",))
