"""Containment rules beyond the corpus: symlink escapes, new paths, magic links, git metadata."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.coding_security import canonicalize_roots, check_path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    real = tmp_path.resolve() / "root"
    (real / "src").mkdir(parents=True)
    (real / "src" / "app.py").write_text("x\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret").write_text("s\n")
    return real


def _check(root: Path, path: str, *, mutating: bool = True, cwd: Path | None = None) -> str | None:
    return check_path(path, cwd=str(cwd or root), roots=(str(root),), mutating=mutating)


def test_deep_new_path_inside_the_root_is_allowed(root: Path) -> None:
    assert _check(root, "a/b/c/d.txt") is None
    assert _check(root, str(root / "new" / "deeper" / "x.py")) is None


def test_dot_dot_below_a_missing_directory_is_denied(root: Path) -> None:
    reason = _check(root, "missing/../../outside/secret")
    assert reason is not None
    assert "does not exist" in reason
    assert _check(root, "missing/../src/app.py") is not None


def test_symlinked_directory_pointing_outside_is_outside(root: Path) -> None:
    (root / "linkdir").symlink_to(root.parent / "outside")
    assert _check(root, "linkdir/secret", mutating=False) is not None
    assert _check(root, "linkdir/new/file.txt") is not None


def test_dangling_symlink_chain_is_followed(root: Path) -> None:
    (root / "hop1").symlink_to("hop2")
    (root / "hop2").symlink_to(root.parent / "outside" / "created-later")
    reason = _check(root, "hop1")
    assert reason is not None
    assert "outside the workspace" in reason
    assert not (root.parent / "outside" / "created-later").exists()


def test_dangling_symlink_inside_the_root_is_allowed(root: Path) -> None:
    (root / "later").symlink_to("src/not-yet.py")
    assert _check(root, "later") is None


def test_symlink_within_the_root_is_allowed(root: Path) -> None:
    (root / "alias").symlink_to(root / "src")
    assert _check(root, "alias/app.py") is None


def test_relative_paths_use_the_given_cwd_not_the_process_cwd(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(root)
    outside_cwd = root.parent / "outside"
    assert _check(root, "src/app.py", cwd=outside_cwd) is not None
    assert _check(root, "app.py", cwd=root / "src") is None
    reason = check_path("src/app.py", cwd="relative/cwd", roots=(str(root),), mutating=False)
    assert reason is not None
    assert "not an absolute path" in reason


@pytest.mark.parametrize(
    "path",
    ["/proc/self/cwd/src/app.py", "/proc/self/fd/0", "/proc/thread-self/root/etc", "/dev/stdin"],
)
def test_proc_magic_links_are_denied_even_when_they_point_inside(
    root: Path, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(root)  # /proc/self/cwd now points into the root
    reason = check_path(path, cwd=str(root), roots=(str(root),), mutating=False)
    assert reason is not None


def test_proc_self_cwd_into_root_names_the_magic_link(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(root)
    reason = check_path(
        f"/proc/{os.getpid()}/cwd/src/app.py", cwd=str(root), roots=(str(root),), mutating=False
    )
    assert reason is not None
    assert "magic link" in reason


@pytest.mark.parametrize(
    "path",
    [
        ".git/hooks",
        ".git/hooks/pre-commit",
        ".git/config",
        "sub/repo/.git/config",
        "a/.git/modules/lib/hooks/post-merge",
        ".GIT/Hooks/pre-push",
    ],
)
def test_git_metadata_is_protected_for_writes_only(root: Path, path: str) -> None:
    reason = _check(root, path)
    assert reason is not None
    assert "git metadata" in reason
    assert _check(root, path, mutating=False) is None


def test_names_like_git_files_outside_git_metadata_stay_writable(root: Path) -> None:
    assert _check(root, ".git/info/exclude") is not None  # all of .git is protected
    assert _check(root, "config/settings.toml") is None
    assert _check(root, "hooks/pre-commit") is None


def test_symlink_into_git_hooks_is_protected(root: Path) -> None:
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "innocent.sh").symlink_to(root / ".git" / "hooks" / "pre-commit")
    assert _check(root, "innocent.sh") is not None


def test_git_hooks_redirected_by_symlink_still_protected(root: Path) -> None:
    (root / "tools").mkdir()
    (root / ".git").mkdir()
    (root / ".git" / "hooks").symlink_to(root / "tools")
    assert _check(root, ".git/hooks/pre-commit") is not None


def test_hard_linked_files_are_refused_for_writes(root: Path) -> None:
    os.link(root.parent / "outside" / "secret", root / "alias-of-secret")
    reason = _check(root, "alias-of-secret")
    assert reason is not None
    assert "hard-linked" in reason


def test_no_roots_denies(root: Path) -> None:
    reason = check_path("src/app.py", cwd=str(root), roots=(), mutating=False)
    assert reason is not None
    assert "no workspace roots" in reason


def test_filesystem_root_as_a_root_contains_everything(root: Path) -> None:
    assert check_path("/etc/hostname", cwd="/", roots=("/",), mutating=False) is None


def test_over_long_total_path_is_denied(root: Path) -> None:
    reason = _check(root, "/".join(["d" * 200] * 25))
    assert reason is not None
    assert "too long" in reason


def test_reasons_escape_control_characters(root: Path) -> None:
    reason = _check(root, "../x\ny")
    assert reason is not None
    assert "\n" not in reason
    assert "x\\ny" in reason


def test_canonicalize_roots_validates() -> None:
    with pytest.raises(ValueError, match="roots\\[0\\] must be an absolute path"):
        canonicalize_roots(["relative"])
    with pytest.raises(ValueError, match="must be an existing directory"):
        canonicalize_roots(["/definitely/not/here"])
    with pytest.raises(TypeError, match="roots must be a sequence of directories"):
        canonicalize_roots("/tmp")
    with pytest.raises(ValueError, match="must be a directory, got"):
        canonicalize_roots(["/etc/hostname"])
    assert canonicalize_roots([]) == ()


_SEGMENT = st.sampled_from(["src", "sub", "..", ".", "new", "a b", "x\ny", "é", "", "app.py"])


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(_SEGMENT, min_size=1, max_size=8))
def test_lexical_paths_without_symlinks_match_normpath(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str]
) -> None:
    """Without symlinks, containment agrees with lexical normalization (or denies more)."""
    root = tmp_path_factory.getbasetemp().resolve() / "prop-root"
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "sub").mkdir(exist_ok=True)
    path = "/".join(parts)
    if not path:
        return
    lexical = os.path.normpath(os.path.join(str(root), path))
    inside = lexical == str(root) or lexical.startswith(str(root) + "/")
    reason = check_path(path, cwd=str(root), roots=(str(root),), mutating=False)
    if not inside:
        assert reason is not None, f"{path!r} resolves outside ({lexical}) but was allowed"
