"""Host results of element types NumPy lacks (bf16): on cpu a function returning bf16 data
gives a DeviceArray in host memory (DLPack device (1, 0)) that torch.from_dlpack takes,
where NumPy's export used to fail ("Unable to avoid copy"); f32 results stay NumPy arrays."""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import croktile

pytestmark = pytest.mark.python
torch = pytest.importorskip("torch")

SOURCE = textwrap.dedent("""\
    __co__ auto halve(bf16 [M, N] a) {
      bf16 [M, N] out;
      parallel m by M : block {
        parallel n by N : thread {
          float x = a.at(m, n);
          out.at(m, n) = x * 0.5f;
        }
      }
      return out;
    }

    __co__ auto widen(bf16 [M, N] a) {
      f32 [M, N] out;
      parallel m by M : block {
        parallel n by N : thread {
          out.at(m, n) = a.at(m, n);
        }
      }
      return out;
    }
    """)


def test_bf16_result_is_a_host_dlpack_array(tmp_path: Path):
    path = tmp_path / "halve.co.cpp"
    path.write_text(SOURCE)
    mod = croktile.load(str(path), target="cpu")
    a = torch.tensor([[3.0, -1.5, 256.0], [0.25, 1.0, -8.0]], dtype=torch.bfloat16)
    out = mod.halve(a)
    assert type(out).__name__ == "DeviceArray" and out.shape == (2, 3) and out.__dlpack_device__() == (1, 0)
    t = torch.from_dlpack(out)
    assert t.dtype == torch.bfloat16 and torch.equal(t, a * 0.5)
    wide = mod.widen(a)
    assert isinstance(wide, np.ndarray) and np.array_equal(wide, a.float().numpy())
