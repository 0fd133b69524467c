"""scripts/ref_gpu_run.py's FileCheck subset: what output satisfies which CHECK lines."""
import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ref_gpu_run.py"
spec = importlib.util.spec_from_file_location("ref_gpu_run", SCRIPT)
ref_gpu_run = importlib.util.module_from_spec(spec)
sys.modules["ref_gpu_run"] = ref_gpu_run   # dataclasses look their module up
spec.loader.exec_module(ref_gpu_run)


def check(output: str, checks: str, full_line: bool = False):
    return ref_gpu_run.check_output(output, ref_gpu_run.directives(checks), full_line)


def test_check_in_order():
    assert check("a\nTest 1 Passed\nx\nTest Passed\n", "// CHECK: Test 1 Passed\n// CHECK: Test Passed") is None
    assert "not found" in check("Test Passed\nTest 1 Passed\n", "// CHECK: Test 1 Passed\n// CHECK: Test Passed")


def test_full_lines_and_substrings():
    assert check("  Test Passed \n", "// CHECK: Test Passed", full_line=True) is None
    assert check("Test Passed!\n", "// CHECK: Test Passed") is None
    assert "not found" in check("Test Passed!\n", "// CHECK: Test Passed", full_line=True)


def test_dag_next_not_count_and_regex():
    assert check("101\n100\nTest Passed\n", "// CHECK-DAG: 100\n// CHECK-DAG: 101\n// CHECK: Test Passed") is None
    assert "CHECK-DAG" in check("100\n", "// CHECK-DAG: 100\n// CHECK-DAG: 101")
    assert check("a\nb\n", "// CHECK: a\n// CHECK-NEXT: b") is None
    assert "next line" in check("a\nx\nb\n", "// CHECK: a\n// CHECK-NEXT: b")
    assert "CHECK-NOT" in check("a\nerror\nb\n", "// CHECK: a\n// CHECK-NOT: error\n// CHECK: b")
    assert check("ok 1\nok 2\n", "// CHECK-COUNT-2: ok {{[0-9]+}}") is None
    assert "fewer" in check("ok 1\n", "// CHECK-COUNT-2: ok {{[0-9]+}}")


def test_other_prefixes_are_not_checks():
    assert check("Test Passed\n", "// CHECK1: Test f6 Passed\n// CHECK: Test Passed") is None
