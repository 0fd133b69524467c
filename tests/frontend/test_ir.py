"""What the frontend lowers: symbolic shapes stay symbolic and become runtime checks,
literal shapes are checked on entry, and the spec's worked values come out right.

The assertions look for a few stable facts in ``--dump-ir`` output, not its layout."""
from __future__ import annotations

import re
import textwrap
from helpers.corpus import CORPUS

CASES = CORPUS / "spec"


def dump_ir(croktilec, path) -> str:
    r = croktilec("--dump-ir", path)
    assert r.rc == 0, r.err
    assert r.err == ""
    return r.out


def check_lines(ir_text: str):
    return [line for line in ir_text.splitlines() if re.match(r"\s*\d*\s+check\b", line)]


def function_ir(ir_text: str, name: str) -> str:
    """The dump of one function: from its `func` line to the next one."""
    parts = re.split(r"(?m)^(?=func )", ir_text)
    for part in parts:
        if part.startswith(f"func {name}("):
            return part
    raise AssertionError(f"no function {name} in:\n{ir_text}")


def test_symbolic_divisibility_becomes_a_runtime_check(tmp_path, croktilec):
    src = tmp_path / "sym.co.cpp"
    src.write_text(textwrap.dedent("""
        __co__ void tiles(s32 [M, N] a, s32 [M, 16] b) {
          parallel p by 4 {
            x = dma.copy a.chunkat(p, _) => local;
            y = dma.copy b.chunkat(p, _) => local;
          }
        }
        """))
    out = dump_ir(croktilec, src)
    checks = check_lines(out)
    # M % 4 == 0 cannot be proved: it is checked at run time, naming the data
    divisibility = [c for c in checks if re.search(r"\bM % 4\b", c) and "== 0" in c]
    assert divisibility, out
    assert any("of 'a'" in c for c in divisibility) and any("of 'b'" in c for c in divisibility), out
    # the literal dimension of 'b' is checked on entry; 'M' binds both parameters' dim 0
    assert any(re.search(r"\bb__dim1 == 16\b", c) for c in checks), out
    assert any(re.search(r"\bb__dim0 == M\b|\bM == b__dim0\b", c) for c in checks), out
    # the chunk shape stays symbolic
    assert re.search(r"buffer local s32 \[\(M / 4\), N\]", out), out
    # checks on host-known values come before the launch
    first_parallel = out.index("parallel p by 4")
    assert all(out.index(c) < first_parallel for c in checks), out


def test_literal_shapes_need_only_entry_checks(croktilec):
    out = dump_ir(croktilec, CASES / "spec1_ele_add.co.cpp")
    checks = check_lines(out)
    for param in ("lhs", "rhs"):
        for dim, size in enumerate((6, 17, 128)):
            assert any(f"{param}__dim{dim} == {size}" in c for c in checks), out
    assert len(checks) == 6, out   # nothing else needs a runtime check: 17/17, 128/4 and 6/6 divide
    # the chunk is 1x1x32 (spec 1: "the data chunk size is 1x1x32")
    assert "local s32 [1, 1, 32] lhs_load_buf" in out
    assert "call kernel(&lhs_load_buf, &rhs_load_buf, &l1_out, 32)" in out


def test_spec2_values(croktilec):
    out = dump_ir(croktilec, CASES / "spec2_mdspan_dims.co.cpp")
    assert re.search(r"\bint b = 15\b", out), out          # sp(0) + sp(1) == 7 + 8

    out = dump_ir(croktilec, CASES / "spec2_tuple_span_ops.co.cpp")
    div = function_ir(out, "tuple_span_div")
    assert "global s32 [2, 4] tiles" in div                 # [6, 8] / {3, 2}
    ops = function_ir(out, "tuple_span_ops")
    for shape, name in (("[10, 11]", "a"), ("[2, 2]", "b"), ("[24, 24]", "c"), ("[2, 5]", "d")):
        assert f"global s32 {shape} {name} " in ops, ops


def test_spec2_mdspan_derivations(tmp_path, croktilec):
    # both spellings of spec 2's derivation give [1, 3, 2]
    src = tmp_path / "derive.co.cpp"
    src.write_text(textwrap.dedent("""
        __co__ void by_dims() {
          sp : [6, 8];
          spn : [1, sp(0)/2, sp(1)/4];
          s32 [spn] d;
        }
        __co__ void by_sugar() {
          sp : [6, 8];
          spn : sp [1, (0)/2, (1)/4];
          s32 [spn] d;
        }
        """))
    out = dump_ir(croktilec, src)
    assert out.count("global s32 [1, 3, 2] d ") == 2, out


def test_spec3_matmul_template_arguments(croktilec):
    out = dump_ir(croktilec, CASES / "spec3_matmul_template.co.cpp")
    assert "shared s32 [16, 4] buffer" in out                # output.span / #p
    assert "call matmul_kernel<16, 4, 72>(" in out           # "matmul<16, 4, 72>"
    assert re.search(r"func matmul\(.*\) -> s32 \[96, 24\]", out), out   # auto return type


def test_where_binding_of_runtime_bounds_is_checked(croktilec):
    out = dump_ir(croktilec, CASES / "spec4_where_binding.co.cpp")
    assert any(re.search(r"\bN_P == N\b|\bN == N_P\b", c) for c in check_lines(out)), out


def test_masking_lowers_to_if(croktilec):
    out = dump_ir(croktilec, CASES / "spec4_explicit_masking.co.cpp")
    assert re.search(r"if \(+p == 0\)+", out), out
    out = dump_ir(croktilec, CASES / "spec4_implicit_masking.co.cpp")
    assert "level 1" in out and "level 2" in out
