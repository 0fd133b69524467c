"""The driver's view of a target: its flags, compilers and jobs (``ToolChain``), and the
device module some targets build before the host source (``DeviceBuild``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from ..frontend.pipeline import TranslationUnit


@dataclass
class DeviceBuild:
    """A device module that must be built from the generated sources before the host source
    compiles (factor: a shared object the host object embeds)."""
    argv: List[str]          # the job that builds it
    source: str              # the generated device source it compiles
    output: str              # the file it writes
    host_flags: List[str]    # what the compile of the host source then needs
    runner: Optional[Callable[..., int]] = None   # runs argv in place of the driver (a check: rewords diagnostics)


class ToolChain:
    """Target knowledge lives in subclasses; the driver only asks these questions."""

    target = ""
    source_suffix = ".cpp"      # suffix of the generated host source
    runtime_header = ""         # the target's runtime header: device views, streams, launches
    device_api = "croktile::host"   # the namespace of its device views and streams
    checks_device = False       # device_check may give a job: -S then checks a copy of its output
    rules_in_generation = False  # some target rules are the generator's: -fsyntax-only runs it too

    def __init__(self, profile: Dict, options):
        self.profile = profile
        self.options = options

    def option_problem(self) -> Optional[str]:
        """What makes the options unbuildable for this target, as one line (cuda: an -arch
        list with an unknown name, -arch=native without a GPU), or None."""
        return None

    def device_archs(self) -> List[str]:
        """The device architectures a build is for (cuda: -arch's, resolved), for build
        systems (--print-toolchains --format=json); empty where the target has none."""
        return []

    def limits(self) -> Dict[str, int]:
        """The limits this run plans with (``shared_bytes``, ``local_bytes``): the profile's,
        where an option does not set one (cuda's ``-arch`` of another GPU)."""
        return dict(self.profile.get("limits", {}))

    def limit_set_by(self, key: str) -> Optional[str]:
        """The option that set ``limits()[key]``, as messages name it ("-arch=sm_90a");
        None where the profile's ``limits`` did."""
        return None

    def setting(self) -> str:
        """What the run is built for, as headers name it: the profile, then the options
        that override part of it (cuda: "profile 'cuda-sm80', -arch=sm_90a")."""
        return f"profile '{self.profile['name']}'"

    def check(self, module, diag) -> None:
        """The target's own rules on a checked program (e.g. cuda's threads per block);
        run by every build and by `-fsyntax-only` when a target is named."""

    def generate(self, tu: TranslationUnit, diag) -> Dict[str, str]:
        """Returns generated files: suffix -> text (the host source under source_suffix)."""
        raise NotImplementedError

    def runtime_include_dir(self) -> str:
        from ..paths import runtime_dir
        return runtime_dir()

    # How the generic flags reach this target's compiler; gcc and clang take them as they are.
    def target_flags(self) -> List[str]:
        """Flags every compile and link job of this target gets (e.g. nvcc's -arch); a
        profile's sysroot (cross-compiling) is one."""
        sysroot = self.profile.get("sysroot")
        return [f"--sysroot={sysroot}"] if sysroot else []

    def host_flags(self, flags: List[str]) -> List[str]:
        """Warning, code-generation and -Xcompiler flags, meant for the host C++ compiler."""
        return flags

    def linker_flags(self, wl: List[str], xlinker: List[str]) -> List[str]:
        """-Wl,ARGS and -Xlinker ARG, for the linker."""
        return [f"-Wl,{w}" for w in wl] + [a for f in xlinker for a in ("-Xlinker", f)]

    def quote_include(self, directory: str) -> List[str]:
        """Makes #include "x.h" find headers beside the .co.cpp when compiling its generated source."""
        return ["-iquote", directory]

    @staticmethod
    def find_program(command: str) -> Optional[str]:
        """Where a profile's compiler command (cxx, device_cc) is, for --print-toolchains."""
        import shlex
        import shutil
        words = shlex.split(command)
        return shutil.which(words[0]) if words else None

    def compiler(self) -> List[str]:
        """The profile's compiler; $CXX/$NVCC were applied when the profile was resolved."""
        return [self.profile.get("cxx", "c++")]

    def compile_runner(self, generated: str) -> Callable[..., int]:
        """The runner (jobs.Job.runner) of the job that compiles the generated source: the
        compiler's messages reworded for the .co.cpp (remapped)."""
        from .cxx_messages import remapper_for, remapping_runner
        return self.compile_runner_of(generated, remapping_runner(generated), remapper_for(generated))

    def compile_runner_of(self, generated: str, runner: Callable[..., int],
                          remap: Callable[[str], str]) -> Callable[..., int]:
        """A target's own way to run that job (cuda: in two halves), given the plain
        `runner` and `remap`, which rewords a compiler's messages."""
        return runner

    def host_compile_runner(self, source: str) -> Optional[Callable[..., int]]:
        """The runner of a compile of plain host C++ written for this target (the Python
        bindings), or None: the compiler() runs it as it is."""
        return None

    def device_build(self, generated: str, flags: List[str], source_dir: str) -> Optional[DeviceBuild]:
        """The device module built from the sources generated at `generated` (compiled with
        `flags`; `source_dir` holds the .co.cpp), or None where the host source is all."""
        return None

    def device_check(self, generated: str) -> Optional[DeviceBuild]:
        """The job that checks the device program generated beside `generated` before
        anything is compiled (opencl: an OpenCL C compiler), or None."""
        return None
