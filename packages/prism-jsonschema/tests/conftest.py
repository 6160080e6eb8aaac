"""Shared fixtures: every validator test runs once per engine; realistic cases by name."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from prism.jsonschema import JsonSchemaArgumentValidator, JsonSchemaValidatorOptions

ENGINES = ("fastjsonschema", "jsonschema-rs")


def _load(name: str) -> ModuleType:
    unique = f"prism_jsonschema_tests_{name}"
    if unique in sys.modules:
        return sys.modules[unique]
    spec = importlib.util.spec_from_file_location(unique, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[unique] = module
    spec.loader.exec_module(module)
    return module


realistic = _load("realistic_schemas")
attacks = _load("attacks")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``case`` parametrizes over the realistic schemas."""
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", realistic.CASES, ids=[c.name for c in realistic.CASES])


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """Each engine in turn: the suite must pass on both."""
    return str(request.param)


@pytest.fixture
def validator(engine: str) -> JsonSchemaArgumentValidator:
    """A validator with default options on the current engine."""
    return JsonSchemaArgumentValidator(options=JsonSchemaValidatorOptions(engine=engine))
