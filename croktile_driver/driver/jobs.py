"""The compilation: inputs and flags become a plan of jobs, which run or are printed.

Like clang's driver: each ``.co.cpp`` input is transpiled (in process) by its
target's toolchain, every source is compiled, and the objects are linked. ``-###``
prints the jobs, shell-quoted, and runs none; outputs are renamed into place only
when every job succeeded.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Callable, List, Optional

from . import interrupts
from .cxx_messages import remapping_runner
from .atomic import is_special, write_atomic, write_stdout
from .timing import timed, with_phase_report
from ..cstrings import escaped
from ..diagnostics import Diagnostics
from .inputs import CO_SUFFIXES, frontend_options, macro_flags, read_source
from .options import ParsedArgs, optional_warnings
from .profiles import ProfileError, cross_target, host_arch, load_profiles, select_profile

CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++", ".C", ".c", ".cu")
OBJ_SUFFIXES = (".o", ".a", ".so", ".obj", ".lo")


@dataclass
class Job:
    argv: List[str]
    kind: str                        # transpile, compile, link
    source: str = ""
    output: str = ""
    depfile: Optional[str] = None
    dep_source: Optional[str] = None  # the .co.cpp to name in place of the generated file
    tmp_dep: Optional[str] = None     # the depfile the compiler writes (in the work dir)
    dep_targets: List[str] = field(default_factory=list)
    extra_deps: List[str] = field(default_factory=list)  # more files the output depends on (profiles)
    copy_to: Optional[str] = None     # transpile: also write the generated sources here (to scan them)
    text: Optional[str] = None        # transpile: the source, read once (a FIFO or /dev/stdin gives it once)
    runner: Optional[Callable[..., int]] = None   # runs argv (with env=) in place of run_child


@dataclass
class Plan:
    jobs: List[Job] = field(default_factory=list)
    final_output: Optional[str] = None      # what -o names
    staged_output: Optional[str] = None     # the temporary it is written to first


def output_stem(path: str) -> str:
    base = os.path.basename(path)
    for suf in CO_SUFFIXES + CXX_SUFFIXES:
        if base.endswith(suf):
            return base[: -len(suf)]
    return os.path.splitext(base)[0]


def _is_co(path: str) -> bool:
    return path.endswith(CO_SUFFIXES)


def info_command(args: ParsedArgs) -> int:
    """--cmake-dir and --print-toolchains: facts about this installation, for people and build systems."""
    from ..paths import cmake_dir
    if args.cmake_dir:
        print(cmake_dir())
        return 0
    fmt = args.print_format or "text"
    if fmt not in ("text", "json"):
        print(f"croktilec: error: unknown --format '{fmt}' (text or json)", file=sys.stderr)
        return 1
    try:
        profiles = load_profiles([args.toolchain_file] if args.toolchain_file else [])
        if args.target or args.profile:   # only the profile a build with these flags would use
            names = [select_profile(profiles, args.target, args.profile)["name"]]
        else:
            names = sorted(profiles["profiles"])
        described = [_describe_profile(select_profile(profiles, None, name), profiles["default"],
                                       profiles["profiles"][name]) for name in names]
    except ProfileError as exc:
        print(f"croktilec: error: {exc}", file=sys.stderr)
        return 1
    # the device architectures a build with these flags is for (its profile's, or -arch's)
    toolchain = _toolchain_of(select_profile(profiles, args.target, args.profile), args)
    problem = toolchain.option_problem() if toolchain is not None else None
    if problem:
        print(f"croktilec: error: {problem}", file=sys.stderr)
        return 1
    archs = toolchain.device_archs() if toolchain is not None else []
    if fmt == "json":
        import json
        print(json.dumps({"default": profiles["default"], "files": profiles["files"],
                          "selected": names[0] if (args.target or args.profile) else None,
                          "archs": archs, "profiles": {d["name"]: d for d in described}}, indent=2))
        return 0
    rows = [("profile", "target", "compilers", "limits")]
    for d in described:
        compilers = []
        for role in ("cxx", "device_cc"):
            if d.get(role):
                where = d[role + "_path"] or "NOT FOUND"
                compilers.append(f"{'device ' if role == 'device_cc' else ''}{d[role]} [{where}]")
        if d.get("arch"):
            compilers.append(f"arch {d['arch']}")
        if d.get("triple"):
            compilers.append(f"triple {d['triple']}")
        if d.get("sysroot"):
            compilers.append(f"sysroot {d['sysroot']}" + ("" if d["sysroot_found"] else " [NOT FOUND]"))
        limits = " ".join(f"{k}={v}" for k, v in sorted(d["limits"].items())) or "-"
        target = d["target"] + ("" if d["supported"] else " (no code generator yet)")
        rows.append((d["name"] + (" *" if d["default"] else ""), target, ", ".join(compilers), limits))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[3])
    for d in described:
        if d["missing"]:
            hint = f" (a GNU cross toolchain for {d['triple']}; Debian: g++-{d['triple']})" if d.get("triple") else ""
            print(f"{d['name']}: missing {', '.join(d['missing'])}{hint}")
    print(f"(* the default; from {', '.join(profiles['files'])})")
    return 0


def _toolchain_of(profile: dict, args: ParsedArgs):
    """The profile's toolchain with these options, or None for a target without a code generator."""
    from ..targets import toolchain_for
    try:
        return toolchain_for(profile["target"])(profile, args)
    except KeyError:
        return None


def _describe_profile(prof: dict, default: str, given: dict) -> dict:
    """What build systems ask about a profile (``prof`` resolved, ``given`` as its files
    say it): resolved compilers, whether they, the sysroot and the target's code generator
    exist, what is missing, the suffix of the generated source."""
    from ..targets import toolchain_for
    try:
        tc_class = toolchain_for(prof["target"])
    except KeyError:
        tc_class = None
    out = {"name": prof["name"], "default": prof["name"] == default, "target": prof["target"],
           "supported": tc_class is not None,
           "source_suffix": tc_class.source_suffix if tc_class is not None else None}
    from .toolchain import ToolChain
    for role in ("cxx", "device_cc"):
        command = prof.get(role)
        out[role] = command
        # the target knows where its device compiler is (opencl: the newest clang-NN)
        find = tc_class.find_program if tc_class is not None and role == "device_cc" else ToolChain.find_program
        out[role + "_path"] = find(command) if command and command.strip() else None
    # CMake builds a default device module with its own C++ compiler (a cross one in a cross build)
    out["device_cc_given"] = bool(given.get("device_cc"))
    out["arch"] = prof.get("arch")
    out["triple"] = prof.get("triple")
    out["sysroot"] = prof.get("sysroot")
    out["sysroot_found"] = os.path.isdir(prof["sysroot"]) if prof.get("sysroot") else None
    out["missing"] = [out[role] for role in ("cxx", "device_cc")
                      if out[role] and out[role].strip() and not out[role + "_path"]]
    if out["sysroot_found"] is False:
        out["missing"].append("sysroot " + prof["sysroot"])
    for key in ("flags", "link_flags", "libs"):
        out[key] = list(prof.get(key, []))
    out["limits"] = dict(prof.get("limits", {}))
    return out


def compile_command(args: ParsedArgs, diag: Diagnostics) -> int:
    try:
        profiles = load_profiles([args.toolchain_file] if args.toolchain_file else [])
        profile = select_profile(profiles, args.target, args.profile)
    except ProfileError as exc:
        print(f"croktilec: error: {exc}", file=sys.stderr)
        return 1
    from ..targets import toolchain_for
    try:
        tc_class = toolchain_for(profile["target"])
    except KeyError:
        print(f"croktilec: error: target '{profile['target']}' is not supported yet", file=sys.stderr)
        return 1
    toolchain = tc_class(profile, args)
    problem = toolchain.option_problem()
    if problem:
        print(f"croktilec: error: {problem}", file=sys.stderr)
        return 1
    for path in args.inputs:
        if not (_is_co(path) or path.endswith(CXX_SUFFIXES) or path.endswith(OBJ_SUFFIXES)):
            print(f"croktilec: error: {path}: file format not recognized", file=sys.stderr)
            return 1
        if not os.path.exists(path):
            print(f"croktilec: error: {path}: No such file or directory", file=sys.stderr)
            return 1
    stop_source = args.stage_source
    stop_object = args.stage_compile
    outputs_multi = len([p for p in args.inputs if not p.endswith(OBJ_SUFFIXES)]) > 1
    if args.output and (stop_source or stop_object) and outputs_multi:
        print("croktilec: fatal error: cannot specify '-o' with '-c' or '-S' with multiple files", file=sys.stderr)
        return 1
    if args.python_module and (stop_source or stop_object):
        print("croktilec: error: --python-module builds a module and cannot be combined with -c or -S "
              "(-S --emit-python-bindings FILE writes the module's source)", file=sys.stderr)
        return 1
    crossing = cross_target(profile) if args.python_module else None
    if crossing:
        print(f"croktilec: error: --python-module (and croktile.load) build an extension module for the running "
              f"Python, on {host_arch()}; profile '{profile['name']}' cross-compiles for {crossing}: build the "
              "module on that machine, or with croktile_add_python_module in a CMake project that finds its "
              "Python", file=sys.stderr)
        return 1
    workdir = None

    def work() -> str:
        """The run's work directory, made when a job first needs it (-S needs none)."""
        nonlocal workdir
        if workdir is None:
            with interrupts.deferred():   # a work directory is never left unrecorded
                workdir = tempfile.mkdtemp(prefix="croktile-")
        return workdir

    try:
        return _run(args, diag, toolchain, work, profiles["files"])
    finally:
        with interrupts.deferred():
            if workdir is not None:
                shutil.rmtree(workdir, ignore_errors=True)


def _compile_flags(args: ParsedArgs, toolchain) -> List[str]:
    prof = toolchain.profile
    flags = list(prof.get("flags", []))
    if args.opt_level is not None:
        flags = [f for f in flags if not f.startswith("-O")] + [f"-O{args.opt_level}"]
    if args.std:
        flags = [f for f in flags if not f.startswith("-std=")] + [f"-std={args.std}"]
    if args.debug_info:
        flags.append("-g")
    if args.no_warnings:
        flags.append("-w")
    for d in args.include_dirs:
        flags.append(f"-I{d}")
    flags.extend(macro_flags(args))
    flags.append(f"-I{toolchain.runtime_include_dir()}")
    flags.extend(toolchain.target_flags())
    host = (["-Werror"] if args.werror else []) + [f"-W{w}" for w in args.warning_flags]
    flags.extend(toolchain.host_flags(host + _codegen_flags(args) + list(args.xcompiler)))
    return flags


def _codegen_flags(args: ParsedArgs) -> List[str]:
    """-f/-m flags matter to both the compiler and the linker (-fsanitize, -fopenmp)."""
    return [f"-f{f}" for f in args.f_flags] + [f"-m{m}" for m in args.m_flags] + \
        (["-pthread"] if args.pthread else [])


def _run(args: ParsedArgs, diag: Diagnostics, toolchain, work: Callable[[], str], profile_files: List[str]) -> int:
    """``work()``: the work directory (made by the first call)."""
    keep = args.save_temps

    def temp_dir() -> str:
        return os.getcwd() if keep else work()
    flags = _compile_flags(args, toolchain)
    if args.python_module:   # every object goes into a shared library that exports only PyInit_*
        flags += toolchain.host_flags(["-fPIC", "-fvisibility=hidden"])
    cxx = toolchain.compiler()
    objects: List[str] = []
    jobs: List[Job] = []
    want_dep = args.dep_md or args.dep_mmd
    used_stems: set = set()

    def temp_stem(stem: str) -> str:
        # a/x.co.cpp and b/x.cpp must not share temporaries (x.gen.cpp, x.o, x.d); in the
        # work folder control characters become '_' (a newline in the name of the file gcc
        # compiles breaks its assembler's .file line); --save-temps keeps the user's name
        if not keep:
            stem = re.sub(r"[\x00-\x1f\x7f]", "_", stem)
        name, n = stem, 1
        while name in used_stems:
            n += 1
            name = f"{stem}-{n}"
        used_stems.add(name)
        return name

    for path in args.inputs:
        if path.endswith(OBJ_SUFFIXES):
            objects.append(path)
            continue
        stem = output_stem(path)
        tstem = temp_stem(stem)
        source = path
        if _is_co(path):
            text = read_source(path, diag)
            if text is None:
                return 1
            gen_suffix = ".gen" + toolchain.source_suffix
            if args.stage_source:
                gen_path = args.output or (stem + gen_suffix)
            else:
                gen_path = os.path.join(temp_dir(), tstem + gen_suffix)
            jobs.append(Job(["croktilec", "-S", "-t", toolchain.target, "--profile", toolchain.profile["name"]]
                            + (["--toolchain-file", args.toolchain_file] if args.toolchain_file else [])
                            + (["-w"] if args.no_warnings else []) + (["-Werror"] if args.werror else [])
                            + [f"-W{w}" for w in optional_warnings(args)]
                            + (["-kt"] if args.kernel_templates else [])
                            + ([f"-arch={args.arch}"] if args.arch else [])
                            + macro_flags(args)
                            + [f"-I{d}" for d in args.include_dirs] + ["-o", gen_path, path],
                            "transpile", path, gen_path, text=text))
            source = gen_path
            transpile = jobs[-1]
            if args.stage_source:
                if want_dep:
                    jobs.append(_dep_scan_job(args, transpile, cxx, flags, work(), tstem + ".scan" + gen_suffix,
                                              stem, profile_files))
                check_copy = tstem + ".check" + gen_suffix
                _device_check(jobs, toolchain, transpile, lambda: os.path.join(work(), check_copy))
                continue
            _device_check(jobs, toolchain, transpile, None)
        elif args.stage_source:
            continue
        if stop := args.stage_compile:
            obj = args.output or (stem + ".o")
        else:
            obj = os.path.join(temp_dir(), tstem + ".o")
        del stop
        compile_argv = [*cxx, *flags]
        if source != path:
            # the generated source lives elsewhere: #include "x.h" must still find the x.h
            # that sits beside the .co.cpp, as it would for the compiler's own input
            compile_argv += toolchain.quote_include(os.path.dirname(path) or ".")
            compile_argv += _device_build(jobs, toolchain, source, flags, path)
        compile_argv += ["-c", source, "-o", obj]
        # the compiler's columns in generated code are the generated text's: told without them
        job = Job(compile_argv, "compile", source, obj, runner=toolchain.compile_runner(source) if source != path else None)
        if want_dep:
            if args.stage_compile:
                depfile = args.dep_file or os.path.splitext(obj)[0] + ".d"
                targets = list(args.dep_target) or [obj]
            else:   # one depfile for the executable, listing what every source read
                out = args.output or "a.out"
                depfile = args.dep_file or os.path.splitext(out)[0] + ".d"
                targets = list(args.dep_target) or [out]
            tmp_dep = os.path.join(work(), tstem + ".d")
            job.argv += ["-MMD" if args.dep_mmd else "-MD", "-MF", tmp_dep]
            job.depfile = depfile
            job.dep_source = path
            job.tmp_dep = tmp_dep
            job.dep_targets = targets
            _device_deps(jobs, job, "-MMD" if args.dep_mmd else "-MD")
        jobs.append(job)
        objects.append(obj)
    if args.python_module:
        rc = _python_module_jobs(args, toolchain, jobs, objects, cxx, flags, work())
        if rc:
            return rc
    if not args.stage_source and not args.stage_compile:
        out = args.output or "a.out"
        link = [*cxx, *(["-shared"] if args.python_module else []), *objects, "-o", out]
        link += [f"-L{d}" for d in args.lib_dirs] + [f"-l{lib}" for lib in args.libs]
        link += toolchain.target_flags() + toolchain.host_flags(_codegen_flags(args))
        link += toolchain.linker_flags(args.wl, args.xlinker)
        link += list(toolchain.profile.get("link_flags", []))
        link += [f"-l{lib}" for lib in toolchain.profile.get("libs", [])]
        link += [f for f in toolchain.profile.get("flags", []) if f == "-pthread"]
        jobs.append(Job(link, "link", "", out))

    if args.dry_run:
        for job in jobs:
            print(" ".join(shlex.quote(a) for a in job.argv), file=sys.stderr)
        return 0

    staged: List[tuple] = []   # (temp path, final path)
    try:
        rc = _run_jobs(jobs, args, diag, toolchain, work, staged)
        if rc == 0:
            _commit(staged)
    finally:
        with interrupts.deferred():
            _discard(staged)   # a failure, an exception or a signal: no output, no temporaries
    return rc


def _python_module_jobs(args: ParsedArgs, toolchain, jobs: List[Job], objects: List[str], cxx: List[str],
                        flags: List[str], workdir: str) -> int:
    """--python-module: the bindings' source (written from the IR once the inputs are
    transpiled), its compile, and nanobind's library (built once into the cache); the link
    makes them a shared library named as Python expects (-o NAME.cpython-...so)."""
    from . import python_bindings as pb
    co_inputs = [p for p in args.inputs if _is_co(p)]
    if not co_inputs:
        print("croktilec: error: --python-module needs a .co.cpp input", file=sys.stderr)
        return 1
    if not args.output:
        args.values["output"] = output_stem(co_inputs[0]) + pb.extension_suffix()
    name = args.python_name or pb.module_name_of(args.output)
    if not pb.valid_module_name(name):
        print(f"croktilec: error: '{escaped(name)}' is not a valid Python module name (from '-o "
              f"{escaped(args.output)}'; the name is the file name up to the first dot, or --python-name)",
              file=sys.stderr)
        return 1
    args.values["python_name"] = name
    try:
        root, includes = pb.nanobind_dirs()
    except pb.NanobindMissing as exc:
        print(f"croktilec: error: {exc}", file=sys.stderr)
        return 1
    source = os.path.join(workdir, name + ".bindings.cpp")
    jobs.append(Job(["croktilec", "--emit-python-bindings", source, "--python-name", name, *co_inputs],
                    "bindings", "", source))
    obj = os.path.join(workdir, name + ".bindings.o")
    jobs.append(Job([*cxx, *flags, *[a for d in includes for a in ("-isystem", d)], *pb.module_defines(),
                     "-c", source, "-o", obj], "compile", source, obj, runner=toolchain.host_compile_runner(source)))
    lib_flags = [f for f in toolchain.profile.get("flags", []) if f.startswith(("-O", "-std="))]
    lib_flags += toolchain.target_flags() + toolchain.host_flags(["-fPIC", "-fvisibility=hidden", "-fno-strict-aliasing"])
    library, argv = pb.library_plan(cxx, lib_flags)
    jobs.append(Job(argv, "library", argv[-3], library, runner=pb.build_library))
    objects += [obj, library]
    return 0


def _commit(staged: List[tuple]) -> None:
    """Renames every output into place. A signal that comes meanwhile waits until all of
    them are and then is too late: the build is complete, so the run ends as finished,
    as if the signal had come just after it (an interrupted run never leaves outputs)."""
    with interrupts.deferred():
        interrupts.check()
        while staged:
            tmp, final = staged[0]
            os.replace(tmp, final)
            staged.pop(0)
        interrupts.ignore_from_now()


def _device_build(jobs: List[Job], toolchain, generated: str, flags: List[str], co_source: str) -> List[str]:
    """Adds the job that builds the target's device module from the generated sources, if
    it has one (factor); returns what the compile of the host source then needs."""
    build = toolchain.device_build(generated, flags, os.path.dirname(co_source) or ".")
    if build is None:
        return []
    jobs.append(Job(build.argv, "device", build.source, build.output, runner=remapping_runner(build.source)))
    return build.host_flags


def _device_check(jobs: List[Job], toolchain, transpile: Job, copy: Optional[Callable[[], str]]) -> None:
    """Adds the job that checks the generated device program, if the target has one
    (opencl). -S writing files checks too (build systems compile what it writes
    themselves); it checks a copy in the work directory (`copy()`), the outputs being
    renamed into place only at the end (-S -o /dev/null: only the checks). -S to
    stdout only shows the program."""
    if not toolchain.checks_device:
        return
    generated = transpile.output
    if copy is not None:
        if generated == "-":
            return
        transpile.copy_to = transpile.copy_to or copy()
        generated = transpile.copy_to
    check = toolchain.device_check(generated)
    if check is not None:
        jobs.append(Job(check.argv, "check", check.source, check.output, runner=check.runner))


def _device_deps(jobs: List[Job], compile_job: Job, flag: str) -> None:
    """-MD/-MMD: the device module's compile lists the headers of the __cok__ code into the
    depfile of the host compile it precedes."""
    device = jobs[-1] if jobs and jobs[-1].kind == "device" else None
    if device is None:
        return
    device.tmp_dep = os.path.splitext(compile_job.tmp_dep)[0] + ".device.d"
    device.argv += [flag, "-MF", device.tmp_dep]
    device.depfile = compile_job.depfile
    device.dep_source = compile_job.dep_source
    device.dep_targets = compile_job.dep_targets


def _run_jobs(jobs: List[Job], args: ParsedArgs, diag: Diagnostics, toolchain, work: Callable[[], str],
              staged) -> int:
    dep_rules: dict = {}   # depfile -> [(targets, deps)]
    declarations: List[str] = []   # for --emit-header
    functions: list = []            # the IR of every __co__ function, for the Python bindings
    side = _SideBySide()
    try:
        return _run_jobs_in(jobs, args, diag, toolchain, work, staged, dep_rules, declarations, functions, side)
    except BaseException:
        interrupts.stop_children()   # what other threads started (a signal unwinds only this one)
        raise


def _run_jobs_in(jobs: List[Job], args: ParsedArgs, diag: Diagnostics, toolchain, work: Callable[[], str],
                 staged, dep_rules: dict, declarations: List[str], functions: list, side: "_SideBySide") -> int:
    for job in jobs:
        if args.verbose:
            print(" ".join(shlex.quote(a) for a in job.argv), file=sys.stderr)
        if job.kind == "transpile":
            with timed(f"transpile {job.source}", args.time_report):
                rc = _transpile(job, args, diag, toolchain, staged, declarations, functions)
            if rc:
                return rc
            continue
        if job.kind == "bindings":
            from .python_bindings import bindings_source
            write_atomic(job.output, bindings_source(functions, args.python_name, toolchain, args.inputs))
            continue
        final = job.output
        is_final = (job.kind == "link") or (job.kind == "compile" and args.stage_compile)
        if is_final and is_special(final):   # -o /dev/null: the compiler writes it directly
            argv = job.argv
        elif is_final:
            out_dir = os.path.dirname(os.path.abspath(final))
            if not os.path.isdir(out_dir):
                print(f"croktilec: error: cannot write '{final}': No such file or directory", file=sys.stderr)
                return 1
            tmp_out = os.path.join(out_dir, f".croktile-{os.getpid()}-{os.path.basename(final)}")
            o_index = len(job.argv) - 1 - job.argv[::-1].index("-o")
            argv = list(job.argv)
            argv[o_index + 1] = tmp_out
            staged.append((tmp_out, final))   # removed again unless every job succeeds
        else:
            argv = job.argv
        phases = None
        if args.time_report:
            argv, phases = with_phase_report(argv, work())
        if job.kind == "link" and not side.wait():
            return 1
        run = _job_run(job, argv, phases, args, toolchain, work())
        if job.kind in ("compile", "library"):   # independent of each other: side by side
            side.start(job, run)
            continue
        if not run() or not side.wait():
            return 1
    if not side.wait():
        return 1
    for job in jobs:
        if job.depfile:
            _collect_deps(job, dep_rules)
    for depfile, rules in dep_rules.items():
        unnamable = next((f for targets, deps in rules for f in targets + deps if "\n" in f), None)
        if unnamable is not None:
            print(f"croktilec: error: cannot write '{depfile}': make has no spelling for the newline "
                  f"in the file name '{escaped(unnamable)}'", file=sys.stderr)
            return 1
        text = "".join(_format_rule(t, d) for t, d in rules).encode("utf-8", "surrogateescape")
        if is_special(depfile):
            write_atomic(depfile, text)
            continue
        tmp = os.path.join(os.path.dirname(os.path.abspath(depfile)),
                           f".croktile-{os.getpid()}-{os.path.basename(depfile)}")
        if not os.path.isdir(os.path.dirname(tmp)):
            print(f"croktilec: error: cannot write '{depfile}': No such file or directory", file=sys.stderr)
            return 1
        staged.append((tmp, depfile))
        write_atomic(tmp, text)
    if args.emit_python_bindings or args.emit_python_stub:
        from . import python_bindings as pb
        name = args.python_name or pb.module_name_of(args.emit_python_bindings or args.emit_python_stub)
        if not pb.valid_module_name(name):
            print(f"croktilec: error: '{escaped(name)}' is not a valid Python module name (give --python-name)",
                  file=sys.stderr)
            return 1
        for path, text in ((args.emit_python_bindings, pb.bindings_source), (args.emit_python_stub, pb.stub_source)):
            if path and _write_generated(path, text(functions, name, toolchain, args.inputs), staged):
                return 1
    if args.emit_header:
        return _write_header(args, declarations, toolchain, staged)
    return 0


def _job_run(job: Job, argv: List[str], phases, args: ParsedArgs, toolchain, workdir: str) -> Callable[[], bool]:
    """The job's run: True when it succeeded (else its failure is printed)."""
    def run() -> bool:
        try:
            with timed(f"{os.path.basename(argv[0])} ({job.kind})", args.time_report, phases):
                rc = (job.runner or interrupts.run_child)(argv, env=_child_env(workdir))
        except OSError as exc:
            print(f"croktilec: error: cannot run '{argv[0]}': {exc.strerror} "
                  f"(profile '{toolchain.profile['name']}')", file=sys.stderr)
            return False
        if rc != 0:
            if not interrupts.state.received:   # else the signal's line says why (a job of a thread)
                print(f"croktilec: error: {failure(argv[0], rc)}", file=sys.stderr)
            return False
        return True
    return run


class _SideBySide:
    """Jobs that need nothing of each other (the compiles of a build's sources, its Python
    bindings, nanobind's library) run at once, each in a thread of its own waiting on its
    compiler; the next job that needs them (the link) waits for all."""

    def __init__(self):
        self.running: list = []   # (thread, result)

    def start(self, job: Job, run: Callable[[], bool]) -> None:
        import threading
        result = [False]

        def body() -> None:
            try:
                result[0] = run()
            except BaseException:   # interrupted: the main thread reports the signal
                result[0] = False
        thread = threading.Thread(target=body, name=f"croktilec {job.kind}", daemon=True)
        thread.start()
        self.running.append((thread, result))

    def wait(self) -> bool:
        """Waits for every running job; whether all of them succeeded."""
        ok = True
        while self.running:
            thread, result = self.running.pop(0)
            while thread.is_alive():
                thread.join(0.05)   # a signal still reaches the main thread meanwhile
            ok = ok and result[0]
        return ok


def _write_generated(path: str, text: str, staged) -> int:
    """Writes a further generated file (bindings, stub), renamed into place with the other outputs."""
    if is_special(path):
        write_atomic(path, text)
        return 0
    out_dir = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(out_dir):
        print(f"croktilec: error: cannot write '{path}': No such file or directory", file=sys.stderr)
        return 1
    tmp = os.path.join(out_dir, f".croktile-{os.getpid()}-{os.path.basename(path)}")
    staged.append((tmp, path))
    write_atomic(tmp, text)
    return 0


def _child_env(workdir: str) -> dict:
    """The compilers' own temporaries go into the work directory, removed with it even
    when a signal kills them before they clean up."""
    return dict(os.environ, TMPDIR=workdir)


def failure(program: str, status: int) -> str:
    """How a job ended, for a compiler that may have said nothing (a crash, a silent exit)."""
    if status >= 0:
        return f"{program} exited with status {status}"
    signum = -status
    try:
        name = signal.strsignal(signum) or signal.Signals(signum).name
    except ValueError:
        name = "unknown signal"
    return f"{program} was killed by signal {signum} ({name})"


def _dep_scan_job(args: ParsedArgs, transpile: Job, cxx: List[str], flags: List[str], workdir: str,
                  scan_name: str, stem: str, profile_files: List[str]) -> Job:
    """-S with -MD/-MMD: the target compiler lists what the generated source reads (the
    .co.cpp's headers, whose macros the transpile saw, and the runtime headers); the
    depfile names the .co.cpp in its place, and the profile files the transpile read."""
    gen_path = transpile.output
    scan = os.path.join(workdir, scan_name)
    transpile.copy_to = scan
    tmp_dep = scan + ".d"
    # -I, not -iquote (nvcc lacks it): at worst a <header> beside the source is listed too
    argv = [*cxx, *flags, "-I" + (os.path.dirname(transpile.source) or "."),
            "-MM" if args.dep_mmd else "-M", "-MF", tmp_dep, scan]
    written = gen_path != "-" and not is_special(gen_path)
    depfile = args.dep_file or (os.path.splitext(gen_path)[0] if written else stem) + ".d"
    from ..paths import toolchains_file
    builtin = os.path.abspath(toolchains_file())   # -MMD: the built-in file is a "system" one
    extra = [f for f in profile_files if args.dep_md or os.path.abspath(f) != builtin]
    return Job(argv, "deps", scan, "", depfile=depfile, dep_source=transpile.source, tmp_dep=tmp_dep,
               dep_targets=list(args.dep_target) or [gen_path], extra_deps=extra)


def _write_header(args: ParsedArgs, declarations: List[str], toolchain, staged) -> int:
    """--emit-header: what host code needs to call the __co__ functions of the inputs.

    An unchanged header is left alone (its time stamp too), so the host code that includes
    it is not recompiled when only a kernel's body changed; build systems list it as a
    byproduct (CMake BYPRODUCTS, ninja restat)."""
    sources = ", ".join(os.path.basename(p) for p in args.inputs if _is_co(p))
    text = "\n".join([f"// Generated by croktilec from {sources} (target {toolchain.target}). Do not edit.",
                      "#pragma once", '#include "croktile.h"', f'#include "{toolchain.runtime_header}"', ""] +
                     declarations) + "\n"
    path = args.emit_header
    if not is_special(path):
        try:
            with open(path, encoding="utf-8", newline="") as fh:
                if fh.read() == text:
                    return 0
        except (OSError, UnicodeDecodeError):
            pass
    return _write_generated(path, text, staged)


def _discard(staged) -> None:
    for tmp, _ in staged:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _transpile(job: Job, args: ParsedArgs, diag: Diagnostics, toolchain, staged,
               declarations: List[str], functions: list) -> int:
    text = job.text if job.text is not None else read_source(job.source, diag)
    if text is None:
        return 1
    from ..compiler import compile_source
    compiled = compile_source(text, job.source, diag, toolchain, frontend_options(args),
                              memory_report=bool(getattr(args, "memory_report", False)))
    if compiled is None:
        _discard(staged)
        return 1
    files = compiled.files
    from ..codegen.signatures import device_prototype, has_device_form, signature
    functions.extend(compiled.functions)
    for fn in compiled.functions:
        declarations.append(signature(fn) + ";")
        if has_device_form(fn):
            declarations.append(device_prototype(fn, toolchain.device_api))
    main_suffix = toolchain.source_suffix
    for suffix, content in files.items():
        if job.copy_to:
            write_atomic(job.copy_to[: -len(main_suffix)] + suffix, content)
        path = job.output if suffix == main_suffix else _secondary_path(job.output, main_suffix, suffix)
        if path is None:   # -o - or a device file: the main source embeds what this one holds
            continue
        if args.stage_source and path == "-":
            write_stdout(content)
        elif args.stage_source and is_special(path):
            write_atomic(path, content)
        elif args.stage_source:
            if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
                print(f"croktilec: error: cannot write '{path}': No such file or directory", file=sys.stderr)
                return 1
            tmp = os.path.join(os.path.dirname(os.path.abspath(path)), f".croktile-{os.getpid()}-{os.path.basename(path)}")
            staged.append((tmp, path))
            write_atomic(tmp, content)
        else:
            write_atomic(path, content)
    return 0


def _secondary_path(main: str, main_suffix: str, suffix: str) -> Optional[str]:
    """Where a further generated file (opencl: the .cl) goes: beside the main one, x.gen.cpp -> x.gen.cl."""
    if main == "-" or is_special(main):
        return None
    return (main[: -len(main_suffix)] if main.endswith(main_suffix) else main) + suffix


# A make rule's words, as gcc writes them: a blank after 2N+1 backslashes is N backslashes
# and the blank, after 2N backslashes N backslashes and the word's end; '\\#' is '#', '$$' '$'
_MAKE_TOKEN = re.compile(r"(\\+)([ \t])|(\\+)\n|\\#|\$\$|([ \t\n]+)|(.)", re.S)


def make_words(text: str) -> List[str]:
    """The file names of a make rule (the target keeps its ':')."""
    words: List[str] = []
    cur: List[str] = []
    for m in _MAKE_TOKEN.finditer(text):
        backslashes, blank, continued, separator, other = m.groups()
        if backslashes:
            cur.extend("\\" * (len(backslashes) // 2))
            if len(backslashes) % 2:
                cur.append(blank)
                continue
        elif continued:   # a line continuation (any further backslashes end the word)
            cur.extend("\\" * (len(continued) - 1))
        elif other is not None:
            cur.append(other)
            continue
        elif not separator:
            cur.append(m[0][-1])   # \# or $$
            continue
        if cur:
            words.append("".join(cur))
            cur = []
    if cur:
        words.append("".join(cur))
    return words


def make_escape(path: str) -> str:
    """A file name as a make word (the inverse of make_words; a newline has no spelling)."""
    path = re.sub(r"(\\*)([ \t])", lambda m: m[1] * 2 + "\\" + m[2], path)
    path = re.sub(r"(\\+)$", lambda m: m[1] * 2, path)   # before the blank that ends the word
    return path.replace("$", "$$").replace("#", "\\#")


def _collect_deps(job: Job, dep_rules: dict) -> None:
    """Reads the compiler's depfile; the .co.cpp takes the place of the generated file."""
    try:
        with open(job.tmp_dep, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
    except OSError:
        text = ""
    deps = []
    for rule in _make_rules(text):   # one per compile (a split cuda build writes one per half)
        words = make_words(rule)
        # "target: dep dep ..." (the target word ends with ':')
        colon = next((i for i, w in enumerate(words) if w.endswith(":")), None)
        deps += words[colon + 1:] if colon is not None else []
    gen = os.path.abspath(job.source)
    deps = [job.dep_source] + [d for d in deps if os.path.abspath(d) != gen] + job.extra_deps
    rules = dep_rules.setdefault(job.depfile, [])
    if rules and rules[-1][0] == job.dep_targets:   # one executable: one rule for all sources
        rules[-1][1].extend(d for d in deps if d not in rules[-1][1])
    else:
        rules.append((job.dep_targets, list(dict.fromkeys(deps))))


def _make_rules(text: str) -> List[str]:
    """A depfile's rules, each with its continuation lines (a line ending in an odd number of
    backslashes goes on)."""
    rules: List[str] = []
    continued = False
    for line in text.splitlines(keepends=True):
        if continued and rules:
            rules[-1] += line
        elif line.strip():
            rules.append(line)
        stripped = line.rstrip("\r\n")
        continued = (len(stripped) - len(stripped.rstrip("\\"))) % 2 == 1
    return rules


def _format_rule(targets: List[str], deps: List[str]) -> str:
    lines = [" ".join(make_escape(t) for t in targets) + ":"]
    lines += [f"  {make_escape(d)}" for d in deps]
    return " \\\n".join(lines) + "\n"
