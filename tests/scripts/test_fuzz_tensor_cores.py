"""scripts/fuzz_tensor_cores.py runs a (tiny) campaign and prints its summary."""
import importlib.util

from helpers.paths import REPO

SCRIPT = REPO / "scripts" / "fuzz_tensor_cores.py"


def test_a_campaign_of_three_mutants(capsys):
    spec = importlib.util.spec_from_file_location("fuzz_tensor_cores", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    status = script.main(["--seed", "5", "--count", "3", "--minimize-budget", "0"])
    out = capsys.readouterr().out
    assert out.startswith("3 mutants of ") and "(seed 5) in " in out, out
    assert status == (1 if "=== [1]" in out else 0), out
