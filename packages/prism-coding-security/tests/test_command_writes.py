"""Write targets (redirects, tee, cp/mv/install/ln, sed, dd, …) are checked against the roots.

Real directories and real symlinks: a target outside the roots, into ``.git/hooks`` or
``.git/config``, onto a device or a persistence file is denied; one inside needs approval.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from prism.coding_security._analysis._commands import analyze_command


class Workspace:
    def __init__(self, base: Path) -> None:
        self.root = base / "root"
        self.home = base / "home"
        self.outside = base / "outside"
        for path in (self.root / "src", self.root / ".git" / "hooks", self.home, self.outside):
            path.mkdir(parents=True)
        (self.root / "src" / "app.py").write_text("x\n")
        (self.outside / "secret").write_text("s\n")

    def decide(self, command: str, *, strict: bool = True) -> str:
        return self.verdict(command, strict=strict).decision

    def verdict(self, command: str, *, strict: bool = True):  # type: ignore[no-untyped-def]
        root = str(self.root)
        return analyze_command(
            command, cwd=root, roots=[root], home=str(self.home), deny_metacharacters=strict
        )


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path.resolve())


OUTSIDE_WRITES = [
    "echo x > {out}/f",
    "echo x >> {out}/f",
    "echo x &> {out}/f",
    "echo x >| {out}/f",
    "echo x 2> {out}/f",
    "echo x | tee {out}/f",
    "echo x | tee -a src/ok {out}/f",
    "cp src/app.py {out}/",
    "cp -t {out} src/app.py",
    "cp --target-directory={out} src/app.py",
    "mv src/app.py {out}/",
    "mv {out}/secret src/",
    "install src/app.py {out}/f",
    "ln -s src/app.py {out}/l",
    "sed -i s/a/b/ {out}/secret",
    "sed --in-place=.bak s/a/b/ {out}/secret",
    "sed -n '1w {out}/f' src/app.py",
    "sed 's/a/b/w {out}/f' src/app.py",
    "dd if=src/app.py of={out}/f",
    "truncate -s 0 {out}/secret",
    "touch {out}/f",
    "mkdir -p {out}/d",
    "chmod 644 {out}/secret",
    "chown me {out}/secret",
    "rm {out}/secret",
    "rm -rf ../outside",
    "find {out} -delete",
    "find . -fprint {out}/f",
    "git diff --output={out}/f",
    "curl -o {out}/f https://example.com",
    "wget -O {out}/f https://example.com",
    "sort -o {out}/f src/app.py",
    "tar -czf {out}/a.tgz src",
    "tar -xf a.tar -C {out}",
    "unzip a.zip -d {out}",
    "rsync -a src/ {out}/",
    "cd {out} && touch f",
    "shred {out}/secret",
]


@pytest.mark.parametrize("template", OUTSIDE_WRITES)
def test_a_write_outside_the_roots_is_denied(ws: Workspace, template: str) -> None:
    command = template.format(out=ws.outside)
    verdict = ws.verdict(command)
    assert verdict.decision == "deny", f"{command}: {verdict.reason}"


@pytest.mark.parametrize(
    "command",
    [
        "echo x > src/new.txt",
        "echo x | tee src/new.txt",
        "cp src/app.py src/copy.py",
        "mv src/app.py src/moved.py",
        "mkdir -p a/b/c/d",
        "touch a/b/c/new.txt",
        "sed -i s/x/y/ src/app.py",
        "rm -rf ./build",
        "find . -name '*.pyc' -delete",
        "dd if=/dev/zero of=src/zeros bs=1 count=1",
    ],
)
def test_a_write_inside_the_roots_needs_approval(ws: Workspace, command: str) -> None:
    assert ws.decide(command) == "needs-approval", command


@pytest.mark.parametrize(
    "command",
    [
        "echo x > .git/hooks/pre-commit",
        "echo x > .git/config",
        "cp evil .git/hooks/",
        "tee .git/hooks/post-checkout",
        "echo x > sub/.git/hooks/pre-push",
        "ln -s /tmp/hooks .git/hooks/x",
        "sed -i s/a/b/ .git/config",
        "git config core.hooksPath /tmp/h",
        "git config --local core.fsmonitor evil",
    ],
)
def test_git_hooks_and_config_are_protected(ws: Workspace, command: str) -> None:
    assert ws.decide(command) == "deny", command


@pytest.mark.parametrize(
    ("command", "fragment"),
    [
        ("dd if=/dev/zero of=/dev/sda", "device"),
        ("cat x > /dev/nvme0n1", "device"),
        ("echo 1 > /proc/sys/kernel/sysrq", "kernel"),
        ("echo x > ~/.bashrc", "start-up"),
        ("echo x >> ~/.profile", "start-up"),
        ("cat key.pub >> ~/.ssh/authorized_keys", "SSH"),
        ("echo x > /etc/cron.d/job", "cron"),
        ("echo x >> /etc/sudoers", "sudoers"),
        ("echo x > /etc/ld.so.preload", "system configuration"),
    ],
)
def test_device_and_persistence_targets_are_denied_with_a_reason(
    ws: Workspace, command: str, fragment: str
) -> None:
    verdict = ws.verdict(command)
    assert verdict.decision == "deny"
    assert fragment in verdict.reason


def test_null_devices_are_not_writes(ws: Workspace) -> None:
    assert ws.decide("ls -la > /dev/null") == "allow"
    assert ws.decide("grep -r x . 2>/dev/null") == "allow"
    assert ws.decide("cat src/app.py >&2") == "allow"
    assert ws.decide("cat src/app.py 2>&1 | wc -l") == "allow"


def test_a_symlink_inside_the_root_pointing_outside_is_outside(ws: Workspace) -> None:
    (ws.root / "out").symlink_to(ws.outside)
    (ws.root / "dangling").symlink_to(ws.outside / "not-yet")
    assert ws.decide("echo x > out/f") == "deny"
    assert ws.decide("echo x > dangling") == "deny"
    assert ws.decide("cp src/app.py dangling") == "deny"
    assert ws.decide("cat out/secret") == "needs-approval"  # a read outside: approval


def test_removing_a_symlink_removes_the_link_not_its_target(ws: Workspace) -> None:
    (ws.root / "out").symlink_to(ws.outside)
    assert ws.decide("rm out") == "needs-approval"
    assert ws.decide("rm -rf out/") == "deny"  # a trailing slash follows the link


def test_a_symlink_created_by_the_same_command_is_followed(ws: Workspace) -> None:
    assert ws.decide(f"ln -s {ws.outside}/secret ./p && echo x >> ./p") == "deny"
    assert ws.decide(f"ln -sf {ws.outside} ./d; cp src/app.py d/") == "deny"
    assert ws.decide("ln -s src/app.py ./p && echo x >> ./p") == "needs-approval"


def test_a_hard_link_to_a_file_outside_is_denied(ws: Workspace) -> None:
    assert ws.decide(f"ln {ws.outside}/secret ./s") == "deny"


def test_a_hard_linked_file_is_not_written(ws: Workspace) -> None:
    os.link(ws.root / "src" / "app.py", ws.root / "twin.py")
    assert ws.decide("echo x > src/app.py") == "deny"


def test_write_targets_with_unknown_values_need_approval(ws: Workspace) -> None:
    assert ws.decide("echo x > $TARGET") == "needs-approval"
    assert ws.decide("rm -rf $DIR") == "needs-approval"
    assert ws.decide("cd $X && rm -rf *") == "needs-approval"


def test_a_glob_is_expanded_against_the_file_system(ws: Workspace) -> None:
    (ws.root / "link").symlink_to(ws.outside / "secret")
    assert ws.decide("chmod 600 *") == "deny"  # `link` resolves outside
    assert ws.decide("chmod 600 src/*") == "needs-approval"


def test_without_deny_metacharacters_a_contained_redirect_is_allowed(ws: Workspace) -> None:
    assert ws.decide("echo hi > ./out.txt", strict=True) == "needs-approval"
    assert ws.decide("echo hi > ./out.txt", strict=False) == "allow"
    assert ws.decide(f"echo hi > {ws.outside}/f", strict=False) == "deny"
    assert ws.decide("echo hi > .git/hooks/x", strict=False) == "deny"


def test_setuid_modes_are_denied(ws: Workspace) -> None:
    for command in (
        "chmod 4755 src/app.py",
        "chmod u+s src/app.py",
        "chmod g=rxs x",
        "chmod +s x",
        "install -m 6755 a b",
        "chmod 02755 x",
    ):
        assert ws.decide(command) == "deny", command
    assert ws.decide("chmod 755 src/app.py") == "needs-approval"
    assert ws.decide("chmod -w src/app.py") == "needs-approval"
