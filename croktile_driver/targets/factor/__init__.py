"""factor target: an NPU whose device functions have C linkage (spec 3), run by factor-sim.

One ``.co.cpp`` becomes two sources (separate source, spec 1):

* the **device source** (``x.gen.dev.cpp``): the ``__cok__`` code as written
  (``extern "C"`` functions), with ``-kt`` the explicit instantiation and ``extern "C"``
  wrapper of every function template specialisation that tileflow code calls, and one
  entry point per launch (outermost ``parallel``), ``<function>__launch<k>``, with C
  linkage. The profile's ``device_cc`` compiles it into the device module (a shared
  object for factor-sim);
* the **host source** (``x.gen.cpp``): the host code, and per ``__co__`` function what
  the cpu target does at host level, with each launch handing its arguments to the
  device module's entry point by name. The module itself is embedded in the host
  object (``CROKTILE_FACTOR_EMBED``), so ``-c`` objects, static libraries and
  executables carry it; ``runtime/croktile_factor.h`` loads it at the first launch.

Inside an entry point (one instance of the launch, on one core): deeper ``parallel``
levels are loops; every DMA goes through the core's DMA engine (``.async`` returns a
ticket that ``wait`` waits for); runtime checks report through the runtime and leave.

Scratchpads (checked against the profile's ``limits``): each core has a ``shared``
scratchpad of ``shared_bytes`` and its thread a ``local`` one of ``local_bytes``. Every
buffer an instance holds gets its own 16-byte aligned slot for the whole instance (a
total per instance, not a plan by live ranges): ``shared`` data of the outer level, and
its ``local`` data when an inner level exists (it belongs to the core, as on opencl), go
in the shared scratchpad; ``shared`` data of inner levels too, one slot per inner
instance; other ``local`` data in the thread's local scratchpad. Slots of known size come
first and are checked here; the others are placed, and checked, by the host before the
launch (``croktile::factor::place``), with the same message.

Package interface: ``FactorToolChain``, ``place_static``, ``plan_slots``; the rest of the folder is
this target's own. May import: ir, analysis, codegen, driver.toolchain, frontend (its
splitter and pipeline types), diagnostics, cstrings, and targets.cpu (its host
emitter).
"""
from .toolchain import FactorToolChain
from .memory import place_static, plan_slots   # --visualize draws the scratchpad plan

__all__ = ["FactorToolChain", "place_static", "plan_slots"]
