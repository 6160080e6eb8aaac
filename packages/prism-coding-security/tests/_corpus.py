"""Load the adversarial corpora in ``tests/corpus/`` (the project's own test data).

A missing or empty file is an error, never a skip: the corpora are the acceptance test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"


def load_corpus(name: str) -> list[dict[str, Any]]:
    """The rows of ``corpus/<name>.jsonl``; raises when the file is missing or has no rows."""
    path = CORPUS_DIR / f"{name}.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"corpus file missing: {path} (it ships with the repository)")
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    if not rows:
        raise ValueError(f"corpus file {path} has no rows")
    return rows
