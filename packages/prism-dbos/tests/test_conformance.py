"""The threat rows prism-dbos owns (E13–E15: durable execution), against ``DurableAgent``.

Not marked ``slow``: the README's local command (``pytest -m "not slow"``) runs them too.
asyncio only: DBOS drives its workflows on asyncio, and on trio these rows report "skipped"
by design (``conformance/tests/test_rows_dbos.py`` checks that), so they are not collected.
"""

from prism.conformance import make_conformance_tests

test_conformance = make_conformance_tests(package="prism-dbos", backends=("asyncio",))
