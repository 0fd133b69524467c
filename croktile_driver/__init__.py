"""croktilec, the compiler of Croktile (a C++-embedded language for data movement on
accelerators), and the layers it is built of: see ``docs/development.md``."""

__version__ = "0.1.0"

# first of all: croktilec's signal handler goes in before any other module of ours is
# read (a ^C while `cli` loads would otherwise be a KeyboardInterrupt traceback)
from .driver import interrupts as _interrupts  # noqa: E402,F401
