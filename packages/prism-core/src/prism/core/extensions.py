"""Extensions: packaged contributions (tools, middleware, permissions) loaded into a kernel."""

from __future__ import annotations

from ._extensions import (
    Extension,
    ExtensionAPI,
    ExtensionContributions,
    ExtensionDescriptor,
    ExtensionKernel,
    ExtensionPermissionError,
    discover_extensions,
)

__all__ = [
    "Extension",
    "ExtensionAPI",
    "ExtensionContributions",
    "ExtensionDescriptor",
    "ExtensionKernel",
    "ExtensionPermissionError",
    "discover_extensions",
]
