"""The shared-memory arena plan (toolchains/memplan.py): every slot lies inside the arena,
also where a buffer's alignment (128 bytes for a TMA box, 8 rows of a swizzle) pads its
offset. A plan whose size left out that padding put the last buffer of tma_v2.co past the
end of the kernel's __shared__ array (compute-sanitizer: invalid __shared__ write)."""
from croktile_driver import ir
from croktile_driver.diagnostics import Loc
from croktile_driver.ir.symbolic import Sym
from croktile_driver.analysis.memplan import align_up, plan_arena


def _buffer(name: str, floats: int, first: int, last: int, align: int) -> ir.Buffer:
    b = ir.Buffer(name, "f32", "shared", [Sym.const(floats)], 1, Loc("t.co.cpp", 1, 1), "decl",
                  first_use=first, last_use=last)
    b.align = align
    return b


def test_every_slot_fits_the_arena_after_alignment_padding():
    # four live-together tiles of 64 floats and a 48-float tile that must start at 128 bytes
    bufs = [_buffer(f"t{i}", 64, 0, 10, 128) for i in range(4)] + [_buffer("out", 48, 1, 10, 128)]
    bufs.insert(1, _buffer("odd", 40, 0, 10, 16))
    plan = plan_arena(bufs, {})
    for slot in plan.slots:
        assert slot.offset % slot.buffer.align == 0, slot
        assert slot.offset + align_up(slot.size) <= plan.static_bytes, (slot, plan.static_bytes)
    spans = sorted((s.offset, s.offset + s.size) for s in plan.slots)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))   # live together: no overlap
