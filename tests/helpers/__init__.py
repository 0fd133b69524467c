"""What the tests share, in one importable package (``tests/`` is on ``sys.path``: pytest puts
the root ``conftest.py``'s folder there), so that no test imports another test folder.

- ``paths``: the checkout's folders (``REPO``, ``SAMPLES``, ``RUNTIME``, ``TESTS``).
- ``croktilec``: ``croktilec`` as a user runs it, in a subprocess (``run_croktilec``, ``ok``,
  ``fails``), and what its ``-###`` prints.
- ``inprocess``: ``croktile_driver.cli.main`` in this process, and its diagnostics parsed
  (the ``croktilec`` fixture of ``tests/conftest.py`` runs it).
- ``processes``: the processes a test starts and signals: default signal dispositions
  for them (a suite under ``nohup`` passes its ignored signals on), which are running,
  which hold a pipe.
- ``programs``: small programs several folders build (``ADD_PROGRAM``).
- ``platforms``: what this machine can run: OpenCL (PoCL), nvcc, a GPU, each with why not.
- ``shared_builds``: builds made once per test session, for both xdist workers.
- ``targets``: one program built for every runnable portable target (cpu, factor, opencl).
- ``corpus``: the ``.co.cpp`` corpus's markers and the diagnostics check (tests/language).
- ``cross``: the aarch64 and riscv64 cross toolchains and qemu-user.
- ``mma_harness``: the tensor-core instruction table's harness (tests/runtime/mma).
"""
