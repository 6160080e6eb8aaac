"""scripts/release-check refuses a distribution without LICENSE, author, project URLs or doc links.

Real wheels and sdists are built with ``uv build``; the failing cases are those archives with one
piece taken out, so every check is shown to fail on exactly what it guards.
"""

from __future__ import annotations

import email
import importlib.machinery
import importlib.util
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "release-check"
DISTRIBUTIONS = {
    "prism-core": ROOT / "packages" / "prism-core",
    "prism-jsonschema": ROOT / "packages" / "prism-jsonschema",
    "prism-mcp": ROOT / "packages" / "prism-mcp",
    "prism-coding-tools": ROOT / "packages" / "prism-coding-tools",
    "prism-coding-security": ROOT / "packages" / "prism-coding-security",
    "prism-conformance": ROOT / "conformance",
}


def _load() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("release_check", str(SCRIPT))
    spec = importlib.util.spec_from_loader("release_check", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


release_check = _load()


# One xdist worker runs the whole module: the wheel and sdist (``built``) are built once.
pytestmark = pytest.mark.xdist_group("release-check")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The real prism-core wheel and sdist, built from this checkout."""
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        ["uv", "build", "--package", "prism-core", "-o", str(out)],
        cwd=ROOT, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return next(out.glob("*.whl")), next(out.glob("*.tar.gz"))


def _rewrite_wheel(
    wheel: Path, target: Path, *, drop: str = "", edit: Callable[[str], str] | None = None
) -> Path:
    """A copy of ``wheel`` without members ending in ``drop``, METADATA passed to ``edit``."""
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(target, "w") as copy:
        for item in source.infolist():
            if drop and item.filename.endswith(drop):
                continue
            data = source.read(item)
            if edit is not None and item.filename.endswith(".dist-info/METADATA"):
                data = edit(data.decode()).encode()
            copy.writestr(item, data)
    return target


def _check(wheel: Path) -> list[str]:
    problems: list[str] = release_check.check_wheel("prism-core", "0.1.0", wheel, {})
    return problems


def _without_field(field: str, value_start: str = "") -> Callable[[str], str]:
    def edit(text: str) -> str:
        meta = email.message_from_string(text)
        kept = [v for v in meta.get_all(field) or [] if not v.startswith(value_start)]
        del meta[field]
        for value in kept if value_start else []:
            meta[field] = value
        return meta.as_string()

    return edit


def test_the_real_wheel_and_sdist_pass(built: tuple[Path, Path]) -> None:
    wheel, sdist = built
    assert _check(wheel) == []
    assert release_check.check_sdist("prism-core", sdist) == []


@pytest.mark.parametrize(
    ("drop", "edit", "complaint"),
    [
        ("licenses/LICENSE", None, "LICENSE is the repository's failed"),
        ("", _without_field("License-File"), "ships LICENSE (License-File) failed"),
        ("", _without_field("Author"), "has an author failed"),
        ("", _without_field("Project-URL", "Issues"), "has Project-URL Issues failed"),
        ("", _without_field("Project-URL", "Changelog"), "has Project-URL Changelog failed"),
        ("", _without_field("Project-URL", "Repository"), "has Project-URL Repository failed"),
        ("", _without_field("Project-URL", "Documentation"), "has Project-URL Documentation"),
        (
            "",
            lambda text: text.replace(release_check.DOCS_URL, "docs/"),
            "readme links its docs by URL failed",
        ),
    ],
)
def test_a_missing_piece_fails_the_wheel(
    built: tuple[Path, Path],
    tmp_path: Path,
    drop: str,
    edit: Callable[[str], str] | None,
    complaint: str,
) -> None:
    broken = _rewrite_wheel(built[0], tmp_path / built[0].name, drop=drop, edit=edit)
    problems = _check(broken)
    assert any(complaint in problem for problem in problems), problems


def test_an_sdist_without_license_fails(built: tuple[Path, Path], tmp_path: Path) -> None:
    broken = tmp_path / built[1].name
    with tarfile.open(built[1]) as source, tarfile.open(broken, "w:gz") as copy:
        for member in source.getmembers():
            if Path(member.name).name != "LICENSE":
                copy.addfile(member, source.extractfile(member) if member.isfile() else None)
    assert release_check.check_sdist("prism-core", broken) == ["prism-core: sdist lacks LICENSE"]


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_every_distribution_carries_the_repository_license(name: str) -> None:
    """uv_build only packs files inside the project, so each one holds a copy of the root file."""
    copy = DISTRIBUTIONS[name] / "LICENSE"
    assert copy.is_file(), f"{copy} is missing"
    assert copy.read_bytes() == (ROOT / "LICENSE").read_bytes(), f"{copy} differs from LICENSE"


def test_the_script_exits_one_when_a_package_lacks_its_license(tmp_path: Path) -> None:
    """End to end on a copy of the checkout: the whole gate fails, naming the distribution."""
    files = (
        subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True, timeout=60
        )
        .stdout.decode()
        .split("\0")
    )
    clone = tmp_path / "clone"
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    (clone / "packages" / "prism-mcp" / "LICENSE").unlink()
    done = subprocess.run(
        [sys.executable, str(clone / "scripts" / "release-check"), "--skip-install"],
        cwd=clone, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "prism-mcp" in done.stdout + done.stderr
