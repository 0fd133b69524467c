"""The installed package ships generated parser tables and never writes any at run time."""
import os
import subprocess
import sys

import pytest

import croktile_driver
from croktile_driver.frontend import parser

INSTALLED = "site-packages" in croktile_driver.__file__ or "dist-packages" in croktile_driver.__file__

ELE = """
#define ROWS 6
__device__ void kernel(int *a, int *b, int *c, int n) { for (int i = 0; i < n; ++i) c[i] = a[i] + b[i]; }
__co__ s32 [ROWS, 16] add(s32 [ROWS, 16] lhs, s32 [6, 16] rhs) {
  s32 [lhs.span] out;
  parallel p by 6 {
    a = dma.copy lhs.chunkat(p, _) => local;
    b = dma.copy rhs.chunkat(p, _) => local;
    local s32 [a.span] c;
    call kernel(a.data, b.data, c, |a.span|);
    dma.copy c => out.chunkat(p, _);
  }
  return out;
}
"""


@pytest.mark.skipif(not INSTALLED, reason="runs against the installed package (scripts/test.sh)")
def test_installed_tables_match_grammar():
    assert parser.tables_are_current(), (
        "the shipped _parsetab.py is stale; rebuild with `pip install .` "
        "(regenerate by hand: python -m croktile_driver.frontend.parser --write-tables DIR)")


def _tree_listing(root):
    out = set()
    for base, _, files in os.walk(root):
        out.update(os.path.join(base, f) for f in files if not f.endswith(".pyc"))
    return out


def test_a_run_writes_no_tables(tmp_path):
    """Also with macros, i.e. with pcpp (which bundles a PLY of its own) in the process."""
    import pcpp
    src = tmp_path / "add.co.cpp"
    src.write_text(ELE)
    pkg = os.path.dirname(croktile_driver.__file__)
    pcpp_dir = os.path.dirname(pcpp.__file__)
    before = _tree_listing(pkg)
    pcpp_before = _tree_listing(pcpp_dir)
    cwd_before = set(os.listdir(tmp_path))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(pkg))
    rc = subprocess.call([sys.executable, "-m", "croktile_driver", "-fsyntax-only", str(src)], cwd=tmp_path, env=env)
    assert rc == 0
    assert set(os.listdir(tmp_path)) == cwd_before
    assert _tree_listing(pkg) == before
    assert _tree_listing(pcpp_dir) == pcpp_before
    assert not any(n in ("parser.out", "parsetab.py") for n in os.listdir(tmp_path))


def test_regenerated_tables_are_current(tmp_path):
    """The build's generator writes tables stamped with this grammar's signature."""
    import runpy
    parser.write_tables(str(tmp_path))
    tables = runpy.run_path(str(tmp_path / "_parsetab.py"))
    assert tables["_lr_signature"] == parser.grammar_signature()
    assert tables["_lr_action"] and tables["_lr_productions"]
