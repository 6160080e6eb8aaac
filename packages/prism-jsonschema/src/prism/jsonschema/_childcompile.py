"""Parse, check and compile large generated source in a child interpreter, off the GIL.

``ast.parse`` and ``compile`` are single C calls that hold the GIL for their whole run (about
0.2 and 0.1 µs of CPU per source byte measured, 3x that on a loaded machine): a 400 KB validator
stalled every other thread, the event loop included, for 400 ms and delayed an abort by
seconds. Source up to ``IN_PROCESS_SOURCE`` bytes (each step ≲ 10 ms) is compiled here; larger
source goes to a child ``python -I -S`` that runs the same whitelist check (``_codecheck``,
stdlib only) and returns the code object marshalled (``marshal.loads`` runs at GB/s).
"""

from __future__ import annotations

import marshal
import subprocess
import sys
from pathlib import Path
from types import CodeType
from typing import Final

from ._codecheck import GeneratedCodeRejected

__all__ = ["IN_PROCESS_SOURCE", "compile_in_child"]

IN_PROCESS_SOURCE: Final = 16_384
"""Generated source bytes compiled in this process: ~5 ms of GIL-holding C calls on an idle
core (0.3 µs per byte for parse plus compile), 3x under the 50 ms loop-gap budget at 3x load."""

CHILD_SECONDS: Final = 120.0
"""A child that has not answered by then is killed and the schema refused."""

_CHILD: Final = """
import ast, importlib.util, marshal, sys
spec = importlib.util.spec_from_file_location("prism_codecheck", sys.argv[1])
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)
source = sys.stdin.buffer.read().decode("utf-8", "surrogatepass")
try:
    tree = ast.parse(source, mode="exec")
    functions = check.check_generated_code(tree)
    code = compile(tree, "<prism-jsonschema>", "exec")
except (SyntaxError, ValueError, check.GeneratedCodeRejected) as exc:
    answer = (False, str(exc)[:300], None)
else:
    answer = (True, functions, code)
sys.stdout.buffer.write(marshal.dumps(answer))
"""


def compile_in_child(source: str) -> tuple[list[str], CodeType] | None:
    """``(functions, code)`` of the checked source, compiled by a child interpreter; ``None``
    when no child can be started (the caller compiles here). Raises ``GeneratedCodeRejected``
    when the check fails, ``RuntimeError`` when the child fails or times out."""
    if not sys.executable:
        return None
    checker = str(Path(__file__).with_name("_codecheck.py"))
    try:
        done = subprocess.run(  # our own interpreter, a fixed script
            [sys.executable, "-I", "-S", "-c", _CHILD, checker],
            input=source.encode("utf-8", "surrogatepass"),
            capture_output=True,
            timeout=CHILD_SECONDS,
            check=False,
        )
    except OSError:
        return None
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"compiling generated code took over {CHILD_SECONDS:.0f} s") from None
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        raise RuntimeError(f"the compiling child failed: {tail[0][:200] if tail else 'no output'}")
    ok, functions, code = marshal.loads(done.stdout)  # our own child's output
    if not ok:
        raise GeneratedCodeRejected(functions)
    return functions, code
