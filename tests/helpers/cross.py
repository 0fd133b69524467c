"""What the cross tests share: the two target machines, their GNU cross toolchains
(Debian's g++-<triple>, which scripts/test.sh installs), and qemu-user to run what they build.

An architecture whose tools are missing skips its tests and says which; with
CROKTILE_REQUIRE_CROSS=1 (scripts/test.sh sets it once it installed them) that is a failure.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional

import pytest


@dataclass(frozen=True)
class Arch:
    name: str          # aarch64, riscv64
    triple: str        # aarch64-linux-gnu: the built-in profiles' and the compilers' prefix
    elf_machine: int   # e_machine of the ELF files built for it

    @property
    def tools(self):
        return (f"{self.triple}-g++", f"{self.triple}-gcc", f"qemu-{self.name}")

    @property
    def root(self) -> str:
        """Where Debian's cross packages put the target's libraries (qemu's -L)."""
        return f"/usr/{self.triple}"

    def missing(self) -> Optional[str]:
        absent = [t for t in self.tools if shutil.which(t) is None]
        if absent:
            return (f"{', '.join(absent)} not installed (Debian: g++-{self.triple} qemu-user; "
                    "scripts/test.sh installs them)")
        return None

    def need(self) -> None:
        why = self.missing()
        if why:
            if os.environ.get("CROKTILE_REQUIRE_CROSS"):
                pytest.fail(f"CROKTILE_REQUIRE_CROSS is set, but {why}")
            pytest.skip(why)

    def run(self, exe: Path, env: Optional[Dict[str, str]] = None, cwd: Optional[Path] = None):
        """Runs a program built for this machine under qemu-user."""
        full = dict(os.environ, QEMU_LD_PREFIX=self.root, **(env or {}))
        return subprocess.run([f"qemu-{self.name}", str(exe)], cwd=str(cwd or exe.parent), env=full,
                              capture_output=True, text=True, timeout=120)


ARCHS = [Arch("aarch64", "aarch64-linux-gnu", 183), Arch("riscv64", "riscv64-linux-gnu", 243)]


def elf_machine(path: Path) -> int:
    """The e_machine field of a little-endian ELF file (62: x86-64)."""
    head = path.read_bytes()[:20]
    assert head[:4] == b"\x7fELF", f"{path} is not an ELF file"
    return int.from_bytes(head[18:20], "little")
