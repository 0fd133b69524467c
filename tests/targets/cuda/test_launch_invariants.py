"""A launch's run-time divisions over host values are kernel parameters the host computes
(targets/cuda/launch_invariants.py): the kernel reads them, it does not divide at each use.
Without a GPU: the generated kernel's parameters, its body and the launch's arguments. The
corpus case parallel/run_launch_invariants runs the same forms (a zero divisor under the
kernel's own `if` too) on every target."""
from __future__ import annotations

import re
import threading
from pathlib import Path

from helpers.croktilec import run_croktilec
from helpers.paths import REPO

SOURCE = """\
__co__ s32 [64] spread(s32 [64] a, int k) {
  s32 [a.span] out{0};
  int per = cdiv(64, k);
  parallel p by k : block {
    parallel t by 1 : thread {
      foreach i in [per] {
        if (p * per + i < 64) {
          out.at(p * per + i) = a.at(p * per + i) + per + 64 % k;
        }
      }
    }
  }
  return out;
}
"""


def _kernel_and_host(text: str):
    start = text.index("__global__")
    end = text.index("\n}\n", start)
    return text[start:end], text[end:]


def _generate(tmp_path: Path, source: str, *flags: str) -> str:
    src = tmp_path / "spread.co.cpp"
    src.write_text(source)
    res = run_croktilec("-t", "cuda", *flags, "-S", src, "-o", "-", cwd=tmp_path)
    assert res.rc == 0, res
    return res.out


def test_divisions_over_host_values_are_parameters(tmp_path):
    kernel, host = _kernel_and_host(_generate(tmp_path, SOURCE))
    params = kernel[:kernel.index("{")]
    names = re.findall(r"long long (croktile_inv\d+)", params)
    assert names, params
    body = kernel[kernel.index("{"):]
    # no division or remainder by k is left in the kernel: `per` and `64 % k` are read
    assert not re.search(r"[/%]\s*\(*k\b", body), body
    assert all(n in body for n in names)
    # the host computes them, quietly where the divisor is a run-time value
    launch = host[host.index("CROKTILE_KERNEL("):]
    assert "croktile_quiet_div(" in launch and "croktile_quiet_mod(" in launch


def test_kernels_generated_in_threads_name_their_own(tmp_path):
    """The printer's hook is per thread (a context variable): compiles at once in one
    process each get their own kernel's parameters."""
    from croktile_driver.ir.symbolic import Sym, atoms_written_by

    seen = {}

    def render(tag: str) -> None:
        expr = Sym.var("n").floordiv(Sym.var("k")) + Sym.var("i")
        with atoms_written_by(lambda atom, name: f"{tag}_inv" if atom.op == "/" else None):
            barrier.wait()
            seen[tag] = expr.to_c()

    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=render, args=(tag,)) for tag in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert "a_inv" in seen["a"] and "b_inv" not in seen["a"], seen
    assert "b_inv" in seen["b"] and "a_inv" not in seen["b"], seen
    assert "/" in Sym.var("n").floordiv(Sym.var("k")).to_c()   # outside any hook: the division


def test_the_decode_sample_keeps_few_divisions(tmp_path):
    """Flash-decoding's kernel had thousands of 64-bit divisions (its host-level split
    sizes, re-evaluated at every use: 1,854 in its text); now only those over a block's own
    values are left (52: the pipeline's first stages of the block's count of key tiles)."""
    res = run_croktilec("-t", "cuda", "-arch=sm_90a", "-S", REPO / "samples" / "attention" / "decode.co.cpp",
                        "-o", "-", cwd=tmp_path, timeout=300)
    assert res.rc == 0, res
    kernel, _ = _kernel_and_host(res.out)
    divisions = re.findall(r"[/%] \(+[A-Za-z]", kernel)
    assert len(divisions) < 100, len(divisions)
