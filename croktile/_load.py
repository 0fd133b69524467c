"""croktile.load: a .co.cpp built into an extension module by croktilec, cached by content.

The cache (``cache_dir()``) holds one folder per build request (source file, target,
profile, flags, Python and package versions); its ``manifest.json`` lists every file the
build read (the .co.cpp, each header it includes, from croktilec's depfile, and the
toolchain profile files) with a SHA-256 of its content, and the compilers used (path,
size, time). A load whose files and compilers all match imports the cached module and
runs no compiler; otherwise it rebuilds, under a file lock, so that processes loading the
same source at once build it once.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sys
import sysconfig
from typing import Dict, Iterable, Mapping, Optional

from croktile_driver.driver.filelock import file_lock
from croktile_driver.paths import cache_dir

from ._errors import BuildError

_MANIFEST = "manifest.json"
_loaded: Dict[str, object] = {}   # module file -> module, for loads in this process


def load(path: str, target: Optional[str] = None, profile: Optional[str] = None, options: Iterable[str] = (),
         include_dirs: Iterable[str] = (), defines: Optional[Mapping[str, object]] = None):
    """Builds ``path`` (a .co.cpp) into an extension module, or takes it from the cache, and
    imports it. ``target``/``profile`` are croktilec's ``-t``/``--profile``; ``options`` more
    croktilec flags (``["-O3", "-Werror"]``); ``include_dirs`` ``-I``; ``defines``
    ``-DNAME=VALUE`` (a value of None: ``-DNAME``). Raises croktile.BuildError with the
    compiler's diagnostics when the build fails."""
    try:
        source = os.path.abspath(os.fspath(path))
        if not os.path.isfile(source):
            raise BuildError(f"croktile.load: {path}: No such file")
        flags = _flags(target, profile, options, include_dirs, defines)
        cwd = os.getcwd()   # relative paths in `options` mean what they mean on the command line
        entry = os.path.join(cache_dir(), "modules",
                             _request_key(source, flags, cwd if _names_relative_paths(flags) else ""))
        module_file = _valid_build(entry)
        if module_file is None:
            os.makedirs(os.path.dirname(entry), exist_ok=True)
            with file_lock(entry + ".lock"):
                module_file = _valid_build(entry)   # another process may have built it meanwhile
                if module_file is None:
                    module_file = _build(source, flags, entry, target, profile, cwd)
    except BuildError as exc:
        # the compiler's message under the caller's line, not above the frames that built it
        raise exc.with_traceback(None) from None
    return _import(module_file)


def _flags(target, profile, options, include_dirs, defines) -> list:
    flags = []
    if target:
        flags += ["-t", str(target)]
    if profile:
        flags += ["--profile", str(profile)]
    flags += [f"-I{os.path.abspath(os.fspath(d))}" for d in include_dirs]
    for name, value in (defines or {}).items():
        flags.append(f"-D{name}" if value is None else f"-D{name}={value}")
    flags += [str(o) for o in options]
    return flags


_PATH_PREFIXES = ("-I", "-L", "-isystem", "-iquote", "-idirafter", "-include")


def _names_relative_paths(flags: list) -> bool:
    """Whether an option names a file or folder relative to the working folder (then the
    folder is part of the request: the same words elsewhere name other files)."""
    for flag in flags:
        values = [flag] if not flag.startswith("-") else []
        if flag.startswith("-") and "=" in flag:
            values.append(flag.split("=", 1)[1])
        values += [flag[len(p):] for p in _PATH_PREFIXES if flag.startswith(p) and len(flag) > len(p)]
        if any(v and not os.path.isabs(v) and os.path.exists(v) for v in values):
            return True
    return False


def _request_key(source: str, flags: list, cwd: str) -> str:
    """What a build depends on besides the files its manifest lists (and `cwd`, the working
    folder, where the options name paths relative to it)."""
    from croktile_driver import __version__
    env = [f"{k}={os.environ.get(k, '')}" for k in ("CXX", "NVCC", "CROKTILE_TOOLCHAINS", "XDG_CONFIG_HOME")]
    parts = ["croktile.load 1", __version__, _driver_digest(), sys.version,
             sysconfig.get_config_var("EXT_SUFFIX") or "", _nanobind_version(), source, cwd, *flags, *env,
             *_native_archs(flags)]
    digest = hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    stem = os.path.basename(source).split(".", 1)[0]
    return f"{_identifier(stem)}-{digest}"


def _native_archs(flags: list) -> list:
    """`-arch=native` means this machine's GPUs: a cache shared with a machine of other GPUs
    holds another build for it."""
    if not any(f.startswith(("-arch=", "--arch=")) and "native" in f.lower().split("=", 1)[1].split(",")
               for f in flags):
        return []
    from croktile_driver.targets.cuda.archs import ArchError, native
    try:
        return native()
    except ArchError:   # the build says so
        return []


@functools.lru_cache(maxsize=None)
def _driver_digest() -> str:
    """The compiler's own code and runtime headers: a changed croktilec (a new install of
    the same version) builds again instead of importing what the old one generated. The
    same in a source checkout and in its install (relative names, contents)."""
    import croktile_driver
    from croktile_driver.paths import runtime_dir
    h = hashlib.sha256()
    for root, suffixes in ((os.path.dirname(croktile_driver.__file__), (".py",)), (runtime_dir(), (".h", ".hpp"))):
        for folder, dirs, files in sorted(os.walk(root)):
            dirs[:] = sorted(d for d in dirs if d not in ("data", "__pycache__"))
            for name in sorted(f for f in files if f.endswith(suffixes) and "parsetab" not in f):   # PLY's cache
                path = os.path.join(folder, name)
                h.update(os.path.relpath(path, root).encode() + b"\0" + (_digest(path) or "").encode())
    return h.hexdigest()


def _nanobind_version() -> str:
    try:
        import nanobind
    except ImportError:
        return "none"
    return getattr(nanobind, "__version__", "unknown")


def _identifier(text: str) -> str:
    out = "".join(c if (c.isascii() and c.isalnum()) or c == "_" else "_" for c in text)
    return out if out and not out[0].isdigit() else "m_" + out


def _digest(path: str) -> Optional[str]:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


def _compiler_stamp(command: str) -> Optional[list]:
    found = shutil.which(command)
    if found is None:
        return None
    real = os.path.realpath(found)
    st = os.stat(real)
    return [real, st.st_size, st.st_mtime_ns]


def _valid_build(entry: str) -> Optional[str]:
    """The module file of a build whose inputs all still match, else None."""
    try:
        with open(os.path.join(entry, _MANIFEST), encoding="utf-8") as fh:
            manifest = json.load(fh)
    except (OSError, ValueError):
        return None
    module_file = os.path.join(entry, manifest["module"])
    if not os.path.isfile(module_file):
        return None
    for path, digest in manifest["files"]:
        if _digest(path) != digest:
            return None
    for command, stamp in manifest["compilers"]:
        if _compiler_stamp(command) != stamp:
            return None
    return module_file


# croktilec run as `python -m croktile_driver` would, but with the package this process
# imported first on the path, so that the caller's working folder (where the build runs)
# cannot put another croktile_driver in its place
_BOOT = ("import runpy, sys; sys.path.insert(0, {parent!r}); "
         "runpy.run_module('croktile_driver', run_name='__main__', alter_sys=True)")


def _build(source: str, flags: list, entry: str, target, profile, cwd: str) -> str:
    import subprocess
    import tempfile
    import uuid
    from croktile_driver.driver.jobs import make_words
    from croktile_driver.driver.profiles import ProfileError, load_profiles, profile_files, select_profile
    try:
        selected = select_profile(load_profiles([]), target, profile)
    except ProfileError as exc:
        raise BuildError(f"croktilec: error: {exc}") from None
    name = f"{_identifier(os.path.basename(source).split('.', 1)[0])}_{uuid.uuid4().hex[:8]}"
    ext = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    os.makedirs(entry, exist_ok=True)
    if sys.stderr is not None and sys.stderr.isatty():
        print(f"croktile: building {os.path.basename(source)} (profile {selected['name']}) ...",
              file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="build-", dir=entry) as work:
        module_tmp = os.path.join(work, name + ext)
        depfile = os.path.join(work, "module.d")
        import croktile_driver
        boot = _BOOT.format(parent=os.path.dirname(os.path.dirname(os.path.abspath(croktile_driver.__file__))))
        argv = [sys.executable, "-c", boot, "--python-module", "-o", module_tmp,
                "--emit-python-stub", os.path.join(work, name + ".pyi"), "-MMD", "-MF", depfile, *flags, source]
        proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              errors="replace")
        if proc.returncode != 0:
            raise BuildError((proc.stderr + proc.stdout).strip() or
                             f"croktilec exited with status {proc.returncode}") from None
        if proc.stderr.strip():   # warnings
            print(proc.stderr.rstrip(), file=sys.stderr)
        with open(depfile, encoding="utf-8", errors="surrogateescape") as fh:
            words = make_words(fh.read())
        deps = [w for w in words if not w.endswith(":")]
        files = {}
        for dep in [source, *deps, *profile_files()]:
            dep = os.path.abspath(os.path.join(cwd, dep))
            if dep not in files and os.path.isfile(dep):
                files[dep] = _digest(dep)
        compilers = []
        for role in ("cxx", "device_cc"):
            command = (selected.get(role) or "").split()
            if command:
                compilers.append([command[0], _compiler_stamp(command[0])])
        for suffix in (ext, ".pyi"):
            os.replace(os.path.join(work, name + suffix), os.path.join(entry, name + suffix))
    manifest = {"module": name + ext, "source": source, "flags": flags, "files": sorted(files.items()),
                "compilers": compilers}
    tmp = os.path.join(entry, f".{_MANIFEST}.{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1)
    os.replace(tmp, os.path.join(entry, _MANIFEST))
    for old in os.listdir(entry):   # earlier builds of this request (a process may still map one: harmless)
        if not old.startswith(name) and (old.endswith(ext) or old.endswith(".pyi")):
            try:
                os.unlink(os.path.join(entry, old))
            except OSError:
                pass
    return os.path.join(entry, name + ext)


def _import(module_file: str):
    module = _loaded.get(module_file)
    if module is not None:
        return module
    import importlib.machinery
    import importlib.util
    name = os.path.basename(module_file).split(".", 1)[0]
    loader = importlib.machinery.ExtensionFileLoader(name, module_file)
    spec = importlib.util.spec_from_file_location(name, module_file, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    _loaded[module_file] = module
    return module
