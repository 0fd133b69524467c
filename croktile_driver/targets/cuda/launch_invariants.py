"""Values that are the same for every thread of a launch, computed once on the host.

Sema keeps a host-level `int per = cdiv(tiles, want);` as its defining expression, so a
kernel that uses `per` reads `((SK + 63) / 64 + ...) / ...` wherever it appears. nvcc does
not share those 64-bit divisions between their uses (each has its own division routine):
flash-decoding's kernel held 2,600 of them, its loop ran at a fraction of the memory's
speed and ptxas took half a minute over it. Here every such subexpression of the launch's
host values is a kernel parameter instead, computed by the host at the launch: a constant
bank read on the device, as a hand-written kernel would pass it.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Set, Tuple

from ...ir.symbolic import Atom, Sym, atoms_written_by


def _divides_at_run_time(atom: Atom) -> bool:
    """A division or remainder by a value known only at run time, anywhere in the atom."""
    if atom.op in ("/", "%") and not atom.args[1].is_const:
        return True
    return any(_divides_at_run_time(a) for arg in atom.args for mono in arg.terms for a in mono
               if a.op != "var")


def _quiet_division(atom: Atom, name: Callable[[str], str]):
    """Host text of a division that a guard in the kernel may keep from running (a divisor
    of 0, or -1 of the most negative value): computed up front, it must not trap."""
    if atom.op in ("/", "%"):
        fn = "croktile_quiet_div" if atom.op == "/" else "croktile_quiet_mod"
        return f"{fn}({atom.args[0].to_c(name)}, {atom.args[1].to_c(name)})"
    return None


class LaunchInvariants:
    """Names the run-time divisions over a kernel's host values while its body is written
    (``naming()``), then gives the kernel's extra parameters and the launch's arguments."""

    def __init__(self, host_values: Set[str], prefix: str = "croktile_inv"):
        self.host_values = set(host_values)
        self.prefix = prefix
        self.named: Dict[str, Tuple[str, Atom]] = {}   # atom key -> (parameter, atom)

    def _hook(self, atom: Atom, name: Callable[[str], str]):
        if not _divides_at_run_time(atom):
            return None
        if not Sym({(atom,): 1}).variables() <= self.host_values:
            return None
        entry = self.named.get(atom.key)
        if entry is None:
            entry = self.named[atom.key] = (f"{self.prefix}{len(self.named)}", atom)
        return entry[0]

    def naming(self):
        """A context in which the kernel's expressions use the parameters."""
        return atoms_written_by(self._hook)

    def params(self) -> List[str]:
        return [f"long long {param}" for param, _ in self.named.values()]

    def host_args(self, host_expr: Callable[[Sym], str]) -> List[str]:
        """The launch's argument for each parameter: the expression over the host's values,
        written by `host_expr` (the host emitter's), its divisions quiet."""
        with atoms_written_by(_quiet_division):
            return [f"(long long)({host_expr(Sym({(atom,): 1}))})" for _, atom in self.named.values()]
