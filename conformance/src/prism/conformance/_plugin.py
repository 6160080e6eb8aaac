"""pytest plugin (filled in by the conformance issue)."""
