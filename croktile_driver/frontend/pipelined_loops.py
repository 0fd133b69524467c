"""`foreach k : pipelined(S)`: the compiler writes the multi-buffering a kernel author
otherwise writes by hand (docs/language/pipelining.md).

The loop's body names the tiles of step k with asynchronous copies into a new buffer at its
top level (`a = tma.copy.async x.subspan(..).at(i, k) => shared;`). The loop is rewritten,
before checking, into the form the language already has, so every analysis and target
treats it as the hand-written one:

    a = dma.any; a_1 = dma.any; ... a_next = dma.any;   // a_next: the free buffer
    if (0 < #k) { a = <copy>; b = ... }                 // the prologue: steps 0 .. S - 2
    if (1 < #k) { a_1 = <copy with k + 1 for k>; ... }  // in flight (k is 0 before the loop)
    ...
    foreach k {
      if (k + S - 1 < #k) { a_next = <copy with k = k + S - 1>; ... }   // the refill
      wait a, b;                                        // where the copies stood
      ... the body, reading a.data ...
      rotate(a, a_1, ..., a_next);                      // a_next: step k's buffer
    }

The refill goes into the buffer of step k - 1, whose readers the compiler orders before
it. It comes first in the step (S - 1 steps in flight while the body works: the textbook
pipeline), or with `pipelined(S, end)` after the body's work: a body that leaves
asynchronous multiplies reading its tiles (wgmma) then overlaps them with the copy instead
of waiting for the previous step's before it, with S - 2 steps ahead. The guards make a
loop of fewer than S - 1 steps load only the steps it has. S = 1 is a plain loop that
waits on each copy where it is made.
"""
from __future__ import annotations

import copy
import re
from typing import Iterator, List, Optional, Set

from ..diagnostics import Diagnostics
from . import ast as A

def lower_pipelined_loops(fn: A.CoFunction, diag: Diagnostics) -> None:
    """Rewrites every pipelined `foreach` of ``fn`` in place (innermost first)."""
    if any(isinstance(n, A.ForeachStmt) and n.stages is not None for n in A.walk(fn.body)):
        _lower_in(fn.body, diag, fn.made_up_names)


_STATEMENTS_WITH_BODIES = (A.Block, A.IfStmt, A.WhileStmt, A.ForeachStmt, A.WithStmt, A.ParallelStmt,
                           A.InThreadsStmt)


def _lower_in(node: A.Node, diag: Diagnostics, made_up: Set[str]) -> None:
    for child in list(node.children()):
        if isinstance(child, _STATEMENTS_WITH_BODIES):
            _lower_in(child, diag, made_up)
    for name, value in _node_fields(node):
        if isinstance(value, list):
            out = []
            for item in value:
                out.extend(_lowered(item, diag, made_up) if isinstance(item, A.ForeachStmt) else [item])
            setattr(node, name, out)
        elif isinstance(value, A.ForeachStmt) and value.stages is not None:
            lowered = _lowered(value, diag, made_up)
            setattr(node, name, lowered[0] if len(lowered) == 1 else A.Block(value.loc, lowered))


def _node_fields(node: A.Node):
    for name in vars(node):
        if name != "loc":
            yield name, getattr(node, name)


def stage_buffer(name: str, stage: int) -> str:
    return f"croktile_{name}_stage{stage}"


def free_buffer(name: str) -> str:
    return f"croktile_{name}_next"


def buffer_label(name: str) -> str:
    """How a reader sees a buffer name the lowering made: `a (stage 1)`, `a (next)`."""
    m = re.fullmatch(r"croktile_(\w+)_(stage\d+|next)", name)
    if m is None:
        return name
    return f"{m[1]} ({m[2].replace('stage', 'stage ')})"


class _Load:
    """A copy of the body that the pipeline issues ahead: its future's name, the statement,
    its position, and the names of its buffers (0: the step being worked on, 1 .. S - 2:
    the ones after it, `next`: the free one)."""

    def __init__(self, stmt: A.Assign, index: int, stages: int):
        self.stmt, self.index, self.name = stmt, index, stmt.name.name
        self.buffers = [self.name] + [stage_buffer(self.name, s) for s in range(1, stages - 1)]
        self.free = free_buffer(self.name)

    def into(self, buffer: str, var: str, step: A.Node) -> A.Assign:
        """`buffer = <the copy, with step for the loop's variable>;`"""
        value = _substitute(copy.deepcopy(self.stmt.value), var, step)
        return A.Assign(self.stmt.loc, A.Name(self.stmt.name.loc, buffer), value)


def _lowered(loop: A.ForeachStmt, diag: Diagnostics, made_up: Set[str]) -> List[A.Node]:
    if loop.stages is None:
        return [loop]
    stages = _stages(loop, diag)
    var = _loop_variable(loop, diag)
    loads = _loads(loop, stages or 1, diag)
    if stages is None or var is None or loads is None:
        loop.stages = None
        return [loop]
    loop.stages = None
    body = loop.body.stmts
    if stages == 1:   # each copy waited for where it is made
        for load in reversed(loads):
            body.insert(load.index + 1, _wait(load))
        return [loop]
    at = loop.loc
    for load in loads:
        made_up.update(load.buffers[1:] + [load.free])
    prologue: List[A.Node] = [A.Assign(load.stmt.loc, A.Name(load.stmt.name.loc, buffer), A.DmaAny(load.stmt.loc))
                              for load in loads for buffer in load.buffers + [load.free]]
    for step in range(stages - 1):
        issues = [load.into(load.buffers[step], var, _prologue_step(var, step, at)) for load in loads]
        prologue.append(A.IfStmt(at, _less(A.IntLit(at, step), var, at), A.Block(at, issues), None))
    ahead = A.BinOp(at, "+", A.Name(at, var), A.IntLit(at, stages - 1))
    issues = [load.into(load.free, var, ahead) for load in loads]
    refill = A.IfStmt(at, _less(copy.deepcopy(ahead), var, at), A.Block(at, issues), None)
    new_body = _waits_for_loads(body, loads)
    if loop.refill == "end":
        new_body.append(refill)
    else:
        new_body.insert(0, refill)
    for load in loads:
        names = [A.Name(at, b) for b in load.buffers + [load.free]]
        new_body.append(A.ExprStmt(at, A.Call(at, A.Name(at, "rotate"), names)))
    loop.body = A.Block(loop.body.loc, new_body)
    return [A.Block(at, prologue + [loop])]


def _prologue_step(var: str, step: int, at) -> A.Node:
    """Step ``step`` before the loop, where the variable is 0: `k` and `(k + s) % #k`, which
    keep its bound (docs/language/pipelining.md) and stay inside it where a loop of fewer
    steps than stages never issues the copy (its guard `s < #k` is false)."""
    first = A.Name(at, var, first_value=True)
    if step == 0:
        return first
    ahead = A.BinOp(at, "+", first, A.IntLit(at, step))
    return A.BinOp(at, "%", ahead, A.UpperBound(at, A.Name(at, var)))


def _waits_for_loads(body: List[A.Node], loads: List[_Load]) -> List[A.Node]:
    """The body with its copies replaced by waits: one wait for a run of adjacent copies."""
    by_index = {load.index: load for load in loads}
    out: List[A.Node] = []
    for i, stmt in enumerate(body):
        load = by_index.get(i)
        if load is None:
            out.append(stmt)
        elif i - 1 in by_index:
            out[-1].futures.append(A.Name(load.stmt.name.loc, load.name))
        else:
            out.append(_wait(load))
    return out


def _wait(load: _Load) -> A.WaitStmt:
    return A.WaitStmt(load.stmt.loc, [A.Name(load.stmt.name.loc, load.name)])


def _less(step: A.Node, var: str, at) -> A.BinOp:
    return A.BinOp(at, "<", step, A.UpperBound(at, A.Name(at, var)))


def _stages(loop: A.ForeachStmt, diag: Diagnostics) -> Optional[int]:
    value = _constant(loop.stages)
    if value is None or value < 1:
        diag.error(loop.stages.loc, "the number of stages of a pipelined loop must be an integer constant "
                                    "of at least 1")
        return None
    return value


def _constant(node: A.Node) -> Optional[int]:
    """An integer constant expression of literals (what `STAGES` expands to)."""
    if isinstance(node, A.IntLit):
        return node.value
    if isinstance(node, A.UnOp) and node.op == "-":
        inner = _constant(node.operand)
        return None if inner is None else -inner
    if isinstance(node, A.BinOp) and node.op in ("+", "-", "*", "/", "%"):
        left, right = _constant(node.left), _constant(node.right)
        if left is None or right is None or (node.op in ("/", "%") and right == 0):
            return None
        return {"+": left + right, "-": left - right, "*": left * right,
                "/": int(left / right), "%": left - int(left / right) * right}[node.op]
    return None


def _loop_variable(loop: A.ForeachStmt, diag: Diagnostics) -> Optional[str]:
    ranges = loop.ranges
    if len(ranges) != 1 or ranges[0].ranged:
        diag.error(loop.loc, "a pipelined loop iterates one bounded variable over its whole range: "
                             "'foreach k : pipelined(S)'")
        return None
    if loop.cond is not None:
        diag.error(loop.cond.loc, "a pipelined loop cannot be a masked 'foreach ... if'")
        return None
    return ranges[0].name.name


def _loads(loop: A.ForeachStmt, stages: int, diag: Diagnostics) -> Optional[List[_Load]]:
    """The body's pipelined copies, or None after reporting why the body cannot be pipelined."""
    body = loop.body.stmts
    loads = [_Load(s, i, stages) for i, s in enumerate(body) if _is_load(s)]
    if not loads:
        diag.error(loop.loc, "a pipelined loop needs an asynchronous copy into a new buffer at the top "
                             "level of its body ('f = dma.copy.async src => shared;'), to issue ahead")
        return None
    ok = True
    names = {load.name for load in loads}
    defined: Set[str] = set()
    for i, stmt in enumerate(body):
        load = next((l for l in loads if l.index == i), None)
        if load is not None:
            for use in _names(load.stmt.value):
                if use.name in defined:
                    diag.error(use.loc, f"the copy of a pipelined loop is issued steps ahead, before the body "
                                        f"defines '{use.name}': it may use only the loop's variable and names "
                                        f"from outside the loop")
                    ok = False
            if load.name in defined:
                diag.error(load.stmt.name.loc, f"'{load.name}' is used in the pipelined loop before its copy")
                ok = False
            defined.add(load.name)
            continue
        for use in _names(stmt):
            if use.name in names and use.name not in defined:
                diag.error(use.loc, f"'{use.name}' is used in the pipelined loop before its copy")
                ok = False
        defined |= _defined_names(stmt)
    for jump in _jumps(loop.body):
        diag.error(jump.loc, f"'{'break' if isinstance(jump, A.BreakStmt) else 'continue'}' cannot leave a "
                             f"pipelined loop's step: the copies for later steps are issued at its end")
        ok = False
    return loads if ok else None


def _is_load(stmt: A.Node) -> bool:
    return (isinstance(stmt, A.Assign) and isinstance(stmt.value, A.DmaCopy) and stmt.value.is_async
            and isinstance(stmt.value.dst, A.StorageRef))


def _names(node: A.Node) -> Iterator[A.Name]:
    if isinstance(node, A.Name):
        yield node
    for child in node.children():
        yield from _names(child)


def _defined_names(stmt: A.Node) -> Set[str]:
    if isinstance(stmt, (A.Assign, A.ScalarDecl, A.SpanDef, A.TupleDef, A.FragDecl)):
        return {stmt.name.name}
    if isinstance(stmt, A.DataDecl):
        return {d.name for d in stmt.names}
    return set()


def _jumps(node: A.Node) -> Iterator[A.Node]:
    """`break`/`continue` that would leave this loop's step (not those of loops inside it)."""
    for child in node.children():
        if isinstance(child, (A.BreakStmt, A.ContinueStmt)):
            yield child
        elif not isinstance(child, (A.ForeachStmt, A.WhileStmt)):
            yield from _jumps(child)


def _substitute(node: A.Node, var: str, value: A.Node) -> A.Node:
    """``node`` with each use of ``var`` replaced by a copy of ``value``."""
    if isinstance(node, A.Name) and node.name == var:
        return copy.deepcopy(value)
    for name, field in _node_fields(node):
        if isinstance(field, A.Node):
            setattr(node, name, _substitute(field, var, value))
        elif isinstance(field, list):
            setattr(node, name, [_substitute(x, var, value) if isinstance(x, A.Node) else x for x in field])
    return node
