"""Secrets by a maintained list: a credential planted at every ``~/`` location of
``CREDENTIAL_LOCATIONS`` (in a fake HOME) stays out of the sandbox, the read tool and the shell
policy, file by file."""

from __future__ import annotations

import inspect
import shlex
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prism.coding_security import (
    DEFAULT_DENY_READ,
    BubblewrapSandbox,
    CodingApprovalPolicy,
    check_path,
)
from prism.coding_security._credentials import CREDENTIAL_LOCATIONS, credential_reason
from prism.coding_tools import ExecResult, create_coding_tools
from prism.core import AbortController, ExecutionAction, ExecutionDecision, ToolExecutionContext
from prism.core.testing import scaled

RunSandbox = Callable[..., Awaitable[tuple[ExecResult, str]]]
pytestmark = pytest.mark.anyio

NAMED_BY_THE_ISSUE = (
    "~/.git-credentials",
    "~/.config/gh/hosts.yml",
    "~/.npmrc",
    "~/.pypirc",
    "~/.vault-token",
    "~/.cargo/credentials.toml",
    "~/.docker/config.json",
    "~/.kube",
    "~/.config/gcloud",
    "~/.azure",
    "~/.netrc",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
)
HOME_ENTRIES = [e.path for e in CREDENTIAL_LOCATIONS if e.path.startswith("~/")]


def _secret(index: int) -> str:
    return f"prism-cred-{index:02d}-9d2f"


def _file_for(home: Path, location: str) -> Path:
    """The file planted for ``location``: itself, or a file inside it for directories."""
    relative = location[2:]
    known_files = (".json", ".yml", ".toml", "rc", "token", "credentials", "pass", ".cnf", "cfg")
    if relative.endswith(known_files) or relative.rsplit("/", 1)[-1].startswith(".git-"):
        return home / relative
    return home / relative / "secret-file"


@pytest.fixture
def home(host_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake HOME with a distinct secret at every credential location."""
    home = host_dir / "home"
    for index, path in enumerate(_planted(home).values()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{_secret(index)}\n")
    monkeypatch.setenv("HOME", str(home))
    return home


def _planted(home: Path) -> dict[str, Path]:
    """Location -> the file planted for it, in list order."""
    return {location: _file_for(home, location) for location in HOME_ENTRIES}


def test_the_list_covers_every_location_the_issue_names() -> None:
    assert set(NAMED_BY_THE_ISSUE) <= set(DEFAULT_DENY_READ)
    assert all(len(entry.holds) > 10 for entry in CREDENTIAL_LOCATIONS)
    assert len({entry.path for entry in CREDENTIAL_LOCATIONS}) == len(CREDENTIAL_LOCATIONS)


def test_docs_list_every_location_with_what_it_holds() -> None:
    page = (Path(__file__).resolve().parents[3] / "docs" / "security.md").read_text()
    for entry in CREDENTIAL_LOCATIONS:
        assert f"| `{entry.path}` | {entry.holds} |" in page, entry.path


@pytest.mark.usefixtures("bwrap_ready")
async def test_no_credential_file_is_readable_in_the_sandbox(
    home: Path, run_sandboxed: RunSandbox
) -> None:
    root = home.parent / "ws"
    root.mkdir()
    files = " ".join(shlex.quote(str(p)) for p in _planted(home).values())
    script = f"cat {files} 2>&1; grep -rh prism-cred ~ 2>&1; base64 {files} 2>&1; true"
    result, output = await run_sandboxed(BubblewrapSandbox(root=root), script, root)
    assert result.exit_code == 0
    for index, location in enumerate(HOME_ENTRIES):
        assert _secret(index) not in output, location


async def test_the_read_tool_refuses_every_credential_file_even_with_home_as_root(
    home: Path,
) -> None:
    root = home
    policy = CodingApprovalPolicy(roots=[root])
    read = next(t for t in create_coding_tools(root, execution_policy=policy) if t.name == "read")
    context = ToolExecutionContext(
        session_id="s", run_id="r", tool_call_id="c", signal=AbortController().signal
    )
    for index, (location, path) in enumerate(_planted(home).items()):
        for spelling in (str(path), "~/" + str(path.relative_to(root))):
            with anyio.fail_after(scaled(30)):
                result = await read.execute({"path": spelling}, context)
            assert result.error is not None, (location, spelling)
            assert "credentials" in result.error.message
            assert _secret(index) not in str(result.content)
    (root / "notes.txt").write_text("plain\n")
    ok = await read.execute({"path": "notes.txt"}, context)
    assert ok.error is None


def test_a_symlink_to_a_credential_file_is_refused(home: Path) -> None:
    root = home.parent / "ws-links"
    root.mkdir()
    (root / "innocent.txt").symlink_to(_planted(home)["~/.npmrc"])
    reason = check_path("innocent.txt", cwd=str(root), roots=[str(root), "/"], mutating=False)
    assert reason is not None and "credentials" in reason


@pytest.mark.parametrize("location", HOME_ENTRIES)
def test_the_shell_policy_does_not_allow_reading_a_credential(home: Path, location: str) -> None:
    root, path = home, _planted(home)[location]
    policy = CodingApprovalPolicy(roots=[root])
    command = f"cat {shlex.quote(str(path))}"
    action = ExecutionAction(
        kind="shell", operation="execute", command=command, cwd=str(root), paths=(str(root),)
    )
    decision = policy.check(action)
    if inspect.iscoroutine(decision):
        decision.close()  # needs approval: not allowed on its own
    else:
        assert isinstance(decision, ExecutionDecision) and not decision.allowed, location
    read = ExecutionAction(kind="read", operation="read", paths=(str(path),))
    verdict = policy.check(read)
    assert isinstance(verdict, ExecutionDecision) and not verdict.allowed, location


_COMPONENT = st.text(alphabet="abcXYZ09._-", min_size=1, max_size=8).filter(
    lambda part: part not in (".", "..")
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    index=st.integers(0, len(HOME_ENTRIES) - 1),
    below=st.lists(_COMPONENT, max_size=3),
    suffix=_COMPONENT,
)
def test_below_a_location_is_refused_and_a_look_alike_sibling_is_not(
    index: int, below: list[str], suffix: str
) -> None:
    home = "/home/prism-user"
    location = home + HOME_ENTRIES[index][1:]
    inside = "/".join([location, *below])
    assert credential_reason(inside, home=home, resolved=inside) is not None
    sibling = location + suffix
    if not any(sibling == home + other[1:] or sibling.startswith(home + other[1:] + "/")
               for other in HOME_ENTRIES):  # fmt: skip
        assert credential_reason(sibling, home=home, resolved=sibling) is None
