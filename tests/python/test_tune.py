"""croktile.autotune and python -m croktile.tune (issue #39) on the cpu target: the search
picks the fastest variant under a replaced timer, skips (with a warning) a variant that
fails to build, raises or fails the check, times again for a new key, keeps its choice on
disk for another process (which builds and times nothing), and the command line writes
the choices and shares them with Python. tests/python/kernels/tiles.co.cpp: rows doubled,
split in TILE parts; TILE 3 does not build, TILE 4 fails on 6 rows."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import croktile

pytestmark = pytest.mark.python

ROOT = Path(__file__).resolve().parents[2]
TILES = Path(__file__).resolve().parent / "kernels" / "tiles.co.cpp"
SPACE = {"TILE": [1, 2, 3, 4]}
FAKE_TIMES = {1: 3.0, 2: 1.0, 4: 2.0}   # TILE -> "seconds": TILE 2 is the fastest


class FakeTimer:
    """A deterministic timer keyed on the variant's defines; records what it timed and runs
    each variant once (so a variant that cannot run is still caught)."""

    def __init__(self, times=FAKE_TIMES):
        self.times, self.timed = times, []

    def __call__(self, run, config):
        run()
        self.timed.append(config["TILE"])
        return self.times[config["TILE"]]


def fresh(space=SPACE, **kwargs) -> croktile.Tuned:
    """An autotuner with no choice on disk yet (the variants' builds stay in the cache)."""
    tuned = croktile.autotune(TILES, space, target="cpu", **kwargs)
    if os.path.exists(tuned.cache_file):
        os.remove(tuned.cache_file)
    return tuned


def rows(n: int, cols: int = 5) -> np.ndarray:
    return np.arange(n * cols, dtype=np.int32).reshape(n, cols)


@pytest.fixture(scope="module")
def tuned_8_rows():
    """The four variants searched once for 8 rows (TILE 3 fails to build: its warning)."""
    timer = FakeTimer()
    tuned = fresh(timer=timer)
    with pytest.warns(UserWarning) as caught:
        out = tuned.twice(rows(8))
    return tuned, timer, out, [str(w.message) for w in caught]


def test_search_picks_the_fastest_under_a_replaced_timer(tuned_8_rows):
    tuned, timer, out, _ = tuned_8_rows
    np.testing.assert_array_equal(out, 2 * rows(8))
    assert sorted(timer.timed) == [1, 2, 4]   # every variant that builds, once
    choice = tuned.choice("twice", rows(8))
    assert choice.config == {"TILE": 2} and choice.defines == ["-DTILE=2"] and not choice.cached
    assert choice.key == "a=8x5:s32"
    assert choice.times == {"TILE=1": 3.0, "TILE=2": 1.0, "TILE=4": 2.0}
    timer.timed.clear()
    np.testing.assert_array_equal(tuned.twice(rows(8)), 2 * rows(8))   # the same key: no timing
    assert timer.timed == []


def test_a_variant_that_does_not_build_is_skipped_with_a_warning(tuned_8_rows):
    tuned, _, _, warned = tuned_8_rows
    line = next(n for n, text in enumerate(TILES.read_text().splitlines(), 1) if text.startswith("static_assert("))
    (note,) = [w for w in warned if "TILE=3" in w]
    assert "variant TILE=3 skipped: failed to build" in note
    assert f"{TILES}:{line}: error: static assertion failed: TILE must be a power of two" in note
    assert "\n" not in note   # the first line of the diagnostics only
    assert "TILE=3" in tuned.choice("twice", rows(8)).skipped


def test_a_new_key_times_again_and_a_variant_that_raises_is_skipped(tuned_8_rows):
    tuned, timer, _, _ = tuned_8_rows
    timer.timed.clear()
    with pytest.warns(UserWarning, match=r"twice \[a=6x5:s32\]: variant TILE=4 skipped: raised Error: .*"
                                         r"tiles.co.cpp:\d+:\d+: runtime check failed: dimension 0 of 'a' \(6\) "
                                         r"is not divisible by the bound of 'p' \(4\)"):
        out = tuned.twice(rows(6))
    np.testing.assert_array_equal(out, 2 * rows(6))
    assert sorted(timer.timed) == [1, 2]   # TILE 4 raised before its timing
    choice = tuned.choice("twice", rows(6))
    assert choice.config == {"TILE": 2} and set(choice.skipped) == {"TILE=3", "TILE=4"}
    on_disk = json.loads(Path(tuned.cache_file).read_text())
    (per_key,) = on_disk["choices"].values()   # one device model
    assert set(per_key["twice"]) == {"a=8x5:s32", "a=6x5:s32"}
    assert on_disk["params"] == {"twice": [["a", "s32"]]}


def test_a_variant_that_fails_the_check_is_never_chosen(tuned_8_rows):
    seen = []

    def check(result, a):
        seen.append(result)
        return len(seen) != 2   # the second variant run (TILE 2, the fastest) gives a "wrong" result

    timer = FakeTimer()
    tuned = fresh(space={"TILE": [1, 2, 4]}, timer=timer, check=check)
    with pytest.warns(UserWarning, match=r"variant TILE=2 skipped: failed the check"):
        tuned.twice(rows(8))
    assert tuned.choice("twice", rows(8)).config == {"TILE": 4} and sorted(timer.timed) == [1, 4]


def test_every_variant_failing_raises_a_build_error_listing_them(tuned_8_rows):
    tuned = fresh(space={"TILE": [1, 2]}, timer=FakeTimer(), check=lambda result, a: False)
    with pytest.warns(UserWarning), pytest.raises(croktile.BuildError) as err:
        tuned.twice(rows(8))
    assert "every variant of twice failed for a=8x5:s32" in str(err.value)
    assert "TILE=1: failed the check" in str(err.value) and "TILE=2: failed the check" in str(err.value)


def test_key_names_what_the_choice_depends_on(tuned_8_rows):
    """key=["a"] is the default's key; a callable key (rows only) shares a choice across columns."""
    timer = FakeTimer()
    by_rows = fresh(space={"TILE": [1, 2]}, timer=timer, key=lambda a: f"rows={a.shape[0]}")
    by_rows.twice(rows(8, 3))
    by_rows.twice(rows(8, 7))   # the same key: not timed again
    assert sorted(timer.timed) == [1, 2] and by_rows.choice("twice", rows(8, 9)).key == "rows=8"
    named = croktile.autotune(TILES, {"TILE": [1, 2]}, target="cpu", key=["a"], timer=FakeTimer())
    assert named.choice("twice", rows(8)).key == "a=8x5:s32"
    bad = croktile.autotune(TILES, {"TILE": [1, 2]}, target="cpu", key=["b"])
    with pytest.raises(TypeError, match=r"key names 'b', which is not a parameter of twice\(\)"):
        bad.twice(rows(8))
    with pytest.raises(AttributeError, match=r"tiles.co.cpp has no host-callable __co__ function 'thrice'"):
        named.thrice(rows(8))


def test_variants_build_at_once(monkeypatch, tuned_8_rows):
    """`jobs` loads run together (each a croktilec process: threads suffice); the builds are
    cached here, so each load is slowed to show the overlap."""
    import threading
    import time
    import croktile._tune as tune_module
    real, lock, running = tune_module.load, threading.Lock(), {"now": 0, "most": 0}

    def slow_load(*args, **kwargs):
        with lock:
            running["now"] += 1
            running["most"] = max(running["most"], running["now"])
        time.sleep(0.3)
        try:
            return real(*args, **kwargs)
        finally:
            with lock:
                running["now"] -= 1

    monkeypatch.setattr(tune_module, "load", slow_load)
    fresh(space={"TILE": [1, 2, 4]}, timer=FakeTimer(), jobs=3).twice(rows(8))
    assert running["most"] == 3


def test_another_process_takes_the_cached_choice_without_building_or_timing(tuned_8_rows):
    script = textwrap.dedent("""
        import json, sys, time
        import numpy as np
        import croktile, croktile._load

        def no_build(*args):
            raise AssertionError("built a variant")

        def no_timing(run, config):
            raise AssertionError("timed a variant")

        croktile._load._build = no_build
        tuned = croktile.autotune(sys.argv[1], {"TILE": [1, 2, 3, 4]}, target="cpu", timer=no_timing)
        a = np.arange(40, dtype=np.int32).reshape(8, 5)
        start = time.perf_counter()
        out = tuned.twice(a)
        took = time.perf_counter() - start
        choice = tuned.choice("twice", a)
        print(json.dumps({"right": (out == 2 * a).all().item(), "config": choice.config,
                          "cached": choice.cached, "seconds": took}))
    """)
    proc = subprocess.run([sys.executable, "-c", script, str(TILES)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["right"] and got["cached"] and got["config"] == {"TILE": 2}
    assert got["seconds"] < 0.5, got   # a cached load (about 10 ms) and a JSON read


# ---------------------------------------------------------------------------
# python -m croktile.tune
# ---------------------------------------------------------------------------

def _cli(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "croktile.tune", *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=cwd, env=env)


def test_cli_writes_the_choices_and_shares_them_with_python(tmp_path, tuned_8_rows):
    fresh(space={"TILE": [1, 2, 4]})   # no choice on disk for this space
    out = tmp_path / "tiles.json"
    proc = _cli(TILES, "-t", "cpu", "--space", "TILE=1,2,4", "--function", "twice", "--shape", "a=8x64",
                "--shape", "a=6x64:s32", "--reps", "3", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "variant TILE=4 skipped: raised Error" in proc.stderr and "Traceback" not in proc.stderr
    report = json.loads(out.read_text())
    assert report["function"] == "twice" and report["target"] == "cpu"
    first, second = report["choices"]
    assert first["key"] == "a=8x64:s32" and set(first["times"]) == {"TILE=1", "TILE=2", "TILE=4"}
    assert second["key"] == "a=6x64:s32" and set(second["times"]) == {"TILE=1", "TILE=2"}
    assert second["config"]["TILE"] in (1, 2) and "TILE=4" in second["skipped"]
    for row in (first, second):
        assert row["defines"] == [f"-DTILE={row['config']['TILE']}"]
        assert row["compile_definitions"] == [f"TILE={row['config']['TILE']}"]
        assert f"{row['shape']}: {row['defines'][0]}" in proc.stdout
    # Python with the same space and arguments takes the command line's choice, timing nothing
    def no_timing(run, config):
        raise AssertionError("timed a variant")
    tuned = croktile.autotune(TILES, {"TILE": [1, 2, 4]}, target="cpu", timer=no_timing)
    choice = tuned.choice("twice", np.zeros((8, 64), np.int32))
    assert choice.cached and choice.config == first["config"]
    # and a second run of the command line times nothing either
    again = _cli(TILES, "-t", "cpu", "--space", "TILE=1,2,4", "--shape", "a=8x64", "-o", tmp_path / "again.json")
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "again.json").read_text())["choices"][0]["cached"] is True


@pytest.mark.parametrize("args, message", [
    (["--space", "TILE", "--shape", "a=8x4"], "--space 'TILE': expected NAME=VALUE,VALUE,..."),
    (["--space", "TILE=1,2"], "no --shape given"),
    (["--space", "TILE=1,2", "--shape", "b=8x4"], "--shape 'b=8x4': twice has no parameter 'b' (its parameters: a)"),
    (["--space", "TILE=1,2", "--shape", "a=8xq"], "a's dimensions '8xq' are not numbers"),
    (["--space", "TILE=1,2", "--shape", "a=8x4:f32"], "a is declared s32, not f32"),
    (["--space", "TILE=1,2", "--shape", "a=8x4:f99"], "unknown element type 'f99'"),
    (["--space", "TILE=1,2", "--shape", "a=8x4", "--function", "thrice"],
     "has no host-callable __co__ function 'thrice' (it has: twice)"),
    (["--space", "TILE=1,2", "--shape", "a=8x4", "--key", "b"], "key names 'b', which is not a parameter"),
    (["--space", "TILE=1,2", "--shape", "a=8x4", "--reps", "0"], "--reps must be at least 1"),
    (["--space", "TILE=1,2", "--shape", "a=8x4", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_cli_errors(args, message, tuned_8_rows):
    proc = _cli(TILES, "-t", "cpu", *args)
    assert proc.returncode == 1
    assert proc.stderr.startswith("croktile.tune: error: ") and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_missing_file(tmp_path):
    proc = _cli(tmp_path / "none.co.cpp", "--space", "A=1", "--shape", "a=1")
    assert proc.returncode == 1 and "croktile.tune: error: " in proc.stderr and "none.co.cpp: No such file" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_key_dtype_names_cover_the_bindings():
    """Every element type a parameter can declare has its name in the key's table."""
    from croktile._tune_keys import DTYPES
    from croktile_driver.driver.python_bindings import DTYPE_NAMES
    assert {k: DTYPES[k] for k in DTYPE_NAMES} == DTYPE_NAMES
