"""CLI (filled in by the conformance issue)."""


def main() -> int:
    return 0
