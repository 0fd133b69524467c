"""The installed wheel's kernels against NumPy (run from anywhere but the source tree)."""
import numpy as np
import pytest

import croktile_sample as cs


def test_saxpy():
    x = np.linspace(0, 1, 64, dtype=np.float32)
    y = np.arange(64, dtype=np.float32)
    np.testing.assert_allclose(cs.saxpy(x, y, 3.0), 3 * x + y, rtol=1e-6)


def test_row_sums():
    a = np.arange(15, dtype=np.int32).reshape(5, 3)
    np.testing.assert_array_equal(cs.row_sums(a), a.sum(axis=1, keepdims=True))


def test_errors_name_the_parameter():
    with pytest.raises(cs.ArgumentError, match=r"saxpy\.co\.cpp:\d+:\d+: argument 'y' of 'saxpy'"):
        cs.saxpy(np.ones(8, np.float32), np.ones(8, np.float64), 1.0)
    with pytest.raises(cs.Error, match=r"saxpy\.co\.cpp:\d+:\d+: runtime check failed"):
        cs.saxpy(np.ones(6, np.float32), np.ones(6, np.float32), 1.0)
