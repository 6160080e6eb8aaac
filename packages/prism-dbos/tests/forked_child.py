"""Bootstrap of one scenario child forked from the preloaded fork server (see ``conftest``).

Run with ``runpy.run_path`` and the global ``BOOT`` (``argv``, ``env``, ``out``, ``err``): it
becomes a session leader (so the test can ``kill -9`` it whole), sends its output to the given
files, takes the given environment and arguments, then runs the scenario app as ``__main__``
exactly as ``python scenario_app.py ...`` would, minus the seconds of importing DBOS again.
"""

import os
import runpy
import sys
from typing import Any

boot: dict[str, Any] = globals()["BOOT"]
os.setsid()
for fd, name in ((1, boot["out"]), (2, boot["err"])):
    opened = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(opened, fd)
    os.close(opened)
os.environ.clear()
os.environ.update(boot["env"])
sys.argv = list(boot["argv"])
runpy.run_path(sys.argv[0], run_name="__main__")
