"""The compilation: inputs and flags become a plan of jobs, which run or are printed.

Like clang's driver: each ``.co.cpp`` input is transpiled (in process) by its
target's toolchain, every source is compiled, and the objects are linked. ``-###``
prints the jobs, shell-quoted, and runs none; outputs are renamed into place only
when every job succeeded.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import List, Optional

from .atomic import write_atomic
from .cli import CO_SUFFIXES, frontend_options, read_source
from .diagnostics import Diagnostics
from .options import ParsedArgs
from .profiles import ProfileError, load_profiles, select_profile

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


@dataclass
class Plan:
    jobs: List[Job] = field(default_factory=list)
    final_output: Optional[str] = None      # what -o names
    staged_output: Optional[str] = None     # the temporary it is written to first


def _stem(path: str) -> str:
    base = os.path.basename(path)
    for suf in CO_SUFFIXES + CXX_SUFFIXES:
        if base.endswith(suf):
            return base[: -len(suf)]
    return os.path.splitext(base)[0]


def _is_co(path: str) -> bool:
    return path.endswith(CO_SUFFIXES)


def info_command(args: ParsedArgs) -> int:
    from .paths import cmake_dir
    if args.cmake_dir:
        print(cmake_dir())
        return 0
    try:
        profiles = load_profiles([args.toolchain_file] if args.toolchain_file else [])
    except ProfileError as exc:
        print(f"croktilec: {exc}", file=sys.stderr)
        return 1
    for name, prof in sorted(profiles["profiles"].items()):
        cxx = prof.get("cxx", "c++")
        found = "found" if shutil.which(cxx) else "not found"
        mark = " (default)" if name == profiles["default"] else ""
        print(f"{name}{mark}: target={prof.get('target')} cxx={cxx} [{found}] limits={prof.get('limits', {})}")
    return 0


def compile_command(args: ParsedArgs, diag: Diagnostics) -> int:
    try:
        profiles = load_profiles([args.toolchain_file] if args.toolchain_file else [])
        profile = select_profile(profiles, args.target, args.profile)
    except ProfileError as exc:
        print(f"croktilec: error: {exc}", file=sys.stderr)
        return 1
    from .toolchains import toolchain_for
    try:
        tc_class = toolchain_for(profile["target"])
    except KeyError:
        print(f"croktilec: error: target '{profile['target']}' is not supported yet", file=sys.stderr)
        return 1
    toolchain = tc_class(profile, args)
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
    workdir = tempfile.mkdtemp(prefix="croktile-")
    try:
        return _run(args, diag, toolchain, workdir)
    finally:
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
    if args.werror:
        flags.append("-Werror")
    for d in args.include_dirs:
        flags.append(f"-I{d}")
    for d in args.defines:
        flags.append(f"-D{d}")
    for u in args.undefines:
        flags.append(f"-U{u}")
    flags.append(f"-I{toolchain.runtime_include_dir()}")
    flags.extend(args.xcompiler)
    return flags


def _run(args: ParsedArgs, diag: Diagnostics, toolchain, workdir: str) -> int:
    keep = args.save_temps
    temp_dir = os.getcwd() if keep else workdir
    flags = _compile_flags(args, toolchain)
    cxx = toolchain.compiler()
    objects: List[str] = []
    generated: List[tuple] = []   # (final path or None, temp path, text)
    jobs: List[Job] = []
    want_dep = args.dep_md or args.dep_mmd
    for path in args.inputs:
        if path.endswith(OBJ_SUFFIXES):
            objects.append(path)
            continue
        stem = _stem(path)
        source = path
        if _is_co(path):
            text = read_source(path, diag)
            if text is None:
                return 1
            gen_suffix = ".gen" + toolchain.source_suffix
            if args.stage_source:
                gen_path = args.output or (stem + gen_suffix)
            else:
                gen_path = os.path.join(temp_dir, stem + gen_suffix)
            jobs.append(Job(["croktilec", "-S", "-t", toolchain.target, "--profile", toolchain.profile["name"]]
                            + [f"-D{d}" for d in args.defines] + [f"-U{u}" for u in args.undefines]
                            + [f"-I{d}" for d in args.include_dirs] + ["-o", gen_path, path],
                            "transpile", path, gen_path))
            source = gen_path
            if args.stage_source:
                continue
        elif args.stage_source:
            continue
        if stop := args.stage_compile:
            obj = args.output or (stem + ".o")
        else:
            obj = os.path.join(temp_dir, stem + ".o")
        del stop
        compile_argv = [*cxx, *flags, "-c", source, "-o", obj]
        job = Job(compile_argv, "compile", source, obj)
        if want_dep:
            depfile = args.dep_file or (os.path.splitext(args.output or obj)[0] + ".d") if args.stage_compile \
                else (args.dep_file or os.path.splitext(args.output or "a.out")[0] + ".d")
            tmp_dep = os.path.join(workdir, stem + ".d")
            job.argv += ["-MMD" if args.dep_mmd else "-MD", "-MF", tmp_dep]
            job.depfile = depfile
            job.dep_source = path
            job.tmp_dep = tmp_dep
        jobs.append(job)
        objects.append(obj)
    if not args.stage_source and not args.stage_compile:
        out = args.output or "a.out"
        link = [*cxx, *objects, "-o", out]
        link += [f"-L{d}" for d in args.lib_dirs] + [f"-l{lib}" for lib in args.libs]
        link += list(toolchain.profile.get("link_flags", []))
        link += [f"-l{lib}" for lib in toolchain.profile.get("libs", [])]
        link += [f for f in toolchain.profile.get("flags", []) if f == "-pthread"]
        jobs.append(Job(link, "link", "", out))

    if args.dry_run:
        for job in jobs:
            print(" ".join(shlex.quote(a) for a in job.argv), file=sys.stderr)
        return 0

    staged: List[tuple] = []   # (temp path, final path)
    for job in jobs:
        if args.verbose:
            print(" ".join(shlex.quote(a) for a in job.argv), file=sys.stderr)
        if job.kind == "transpile":
            rc = _transpile(job, args, diag, toolchain, workdir, staged)
            if rc:
                return rc
            continue
        final = job.output
        is_final = (job.kind == "link") or (job.kind == "compile" and args.stage_compile)
        if is_final:
            tmp_out = os.path.join(os.path.dirname(os.path.abspath(final)) or ".",
                                   f".croktile-{os.getpid()}-{os.path.basename(final)}")
            argv = [tmp_out if a == final and i == job.argv.index("-o") + 1 else a
                    for i, a in enumerate(job.argv)]
        else:
            tmp_out, argv = final, job.argv
        try:
            rc = subprocess.call(argv)
        except FileNotFoundError:
            print(f"croktilec: error: cannot run '{argv[0]}': not found (profile '{toolchain.profile['name']}')",
                  file=sys.stderr)
            _discard(staged)
            return 1
        if rc != 0:
            if is_final and os.path.exists(tmp_out):
                os.unlink(tmp_out)
            _discard(staged)
            return 1
        if is_final:
            staged.append((tmp_out, final))
        if job.depfile:
            _write_depfile(job, args, staged, workdir)
    for tmp, final in staged:
        os.replace(tmp, final)
    return 0


def _discard(staged) -> None:
    for tmp, _ in staged:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _transpile(job: Job, args: ParsedArgs, diag: Diagnostics, toolchain, workdir: str, staged) -> int:
    from .frontend.pipeline import run_frontend
    text = read_source(job.source, diag)
    if text is None:
        return 1
    tu = run_frontend(text, job.source, diag, **frontend_options(args))
    if diag.errors:
        _discard(staged)
        return 1
    files = toolchain.generate(tu, diag)
    if diag.errors:
        _discard(staged)
        return 1
    main_suffix = toolchain.source_suffix
    for suffix, content in files.items():
        path = job.output if suffix == main_suffix else job.output[: -len(main_suffix)] + suffix
        if args.stage_source:
            tmp = os.path.join(os.path.dirname(os.path.abspath(path)), f".croktile-{os.getpid()}-{os.path.basename(path)}")
            write_atomic(tmp, content)
            staged.append((tmp, path))
        else:
            write_atomic(path, content)
    return 0


def _write_depfile(job: Job, args: ParsedArgs, staged, workdir: str) -> None:
    """Rewrites the compiler's depfile so it names the .co.cpp and our output."""
    try:
        with open(job.tmp_dep, encoding="utf-8") as fh:
            raw = fh.read()
    except OSError:
        return
    body = raw.replace("\\\n", " ")
    _, _, deps_text = body.partition(": ")
    deps = deps_text.split()
    gen = os.path.abspath(job.source)
    deps = [d for d in deps if os.path.abspath(d) != gen]
    deps.insert(0, job.dep_source)
    targets = args.dep_target or [args.output or job.output]
    lines = [" ".join(targets) + ": \\"]
    lines += [f"  {d} \\" for d in deps[:-1]] + [f"  {deps[-1]}"]
    tmp = job.depfile + f".croktile-{os.getpid()}"
    write_atomic(tmp, "\n".join(lines) + "\n")
    staged.append((tmp, job.depfile))
