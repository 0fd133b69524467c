"""The exceptions every croktile module raises (kept tiny: extension modules import it)."""


class Error(RuntimeError):
    """A croktile failure: a failed runtime check of generated code, a CUDA or OpenCL
    error, or a build that failed (its message is the compiler's diagnostics). Messages
    name the .co.cpp file and line."""


class ArgumentError(Error, ValueError):
    """An argument that does not fit its parameter (dtype, rank, device, strides, not an
    array); the message names the parameter and the .co.cpp line where it is declared."""


class BuildError(Error):
    """croktile.load could not build the module; the message holds the diagnostics."""
