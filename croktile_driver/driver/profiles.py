"""Toolchain profiles from toolchains.yaml (built-in, then user files that override).

A profile names a target, the compilers and flags that build its generated source, and
the target's limits. The built-in file ships with the package; user files add profiles
or override single fields of existing ones, in this order (later wins): the user config
directory (``$XDG_CONFIG_HOME/croktile/toolchains.yaml``), ``$CROKTILE_TOOLCHAINS`` (one
file, or several separated by ``os.pathsep``), ``--toolchain-file``. Every file is
checked against ``PROFILE_KEYS`` when it is read: a mistake is an error naming the file,
line and key, never a surprise in a later job.
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Tuple

from ..diagnostics import suggestion
from ..paths import toolchains_file, user_toolchains_file

TARGETS = ("cpu", "cuda", "opencl", "factor")

# The schema: every key a profile may have, its type, and what it means.
PROFILE_KEYS: Dict[str, Tuple[type, str]] = {
    "target": (str, "the target whose code generator is used: " + ", ".join(TARGETS)),
    "cxx": (str, "compiles the generated source and links (default c++, TRIPLE-g++ with a triple; "
                 "nvcc for cuda)"),
    "device_cc": (str, "compiles the device module (factor: default cc, TRIPLE-gcc with a triple); checks "
                       "the device program at build time (opencl: an OpenCL C compiler, clang by default; "
                       "\"\" turns the check off)"),
    "triple": (str, "cross-compile for this target triple (aarch64-linux-gnu): names the GNU cross "
                    "compilers cxx and device_cc default to"),
    "sysroot": (str, "the target system's root directory (headers, libraries): --sysroot for every "
                     "compile and link"),
    "arch": (str, "device architecture, e.g. sm_90a (cuda)"),
    "flags": (list, "flags for every compile"),
    "link_flags": (list, "flags for the link"),
    "libs": (list, "libraries to link, as for -l"),
    "limits": (dict, "memory limits in bytes, checked when memory is planned"),
    "default_for_target": (bool, "the profile `-t TARGET` picks"),
    "honour_env_cxx": (bool, "$CXX (cuda: $NVCC) replaces a default cxx (default true)"),
}
LIMIT_KEYS = ("shared_bytes", "local_bytes")
TOP_KEYS = ("default", "profiles")
# arch-vendor-os[-env] or arch-os[-env], as GNU cross compilers are prefixed
TRIPLE = re.compile(r"[A-Za-z0-9_.]+(-[A-Za-z0-9_.]+){1,3}")
# what uname -m / platform.machine() say, as the first word of a triple says it
_MACHINE_ARCH = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64", "i386": "i686"}
_TYPE_WORDS = {str: "a string", list: "a list of strings", dict: "a mapping", bool: "true or false"}


class ProfileError(Exception):
    pass


# A toolchain file is a few kilobytes, a handful of levels deep, with no anchors: the
# caps keep a file that is not one (/dev/zero, a YAML bomb) a one-line error.
MAX_FILE_BYTES = 1 << 20
MAX_NESTING = 16
MAX_INT_DIGITS = 30


def _read_text(path: str) -> str:
    """At most MAX_FILE_BYTES + 1 bytes, so /dev/zero and endless pipes end too."""
    import stat
    try:
        with open(path, "rb") as fh:
            if stat.S_ISDIR(os.fstat(fh.fileno()).st_mode):
                raise IsADirectoryError(21, "Is a directory")
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ProfileError(f"{path}: {exc.strerror}")
    if len(data) > MAX_FILE_BYTES:
        raise ProfileError(f"{path}: file is larger than {MAX_FILE_BYTES >> 20} MiB; "
                           "not a toolchain file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{_byte_position(path, data, exc.start)}: not a UTF-8 text file "
                           f"(invalid byte 0x{data[exc.start]:02x})")


def _byte_position(path: str, data: bytes, offset: int) -> str:
    line = data.count(b"\n", 0, offset) + 1
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return f"{path}:{line}:{column}"


def _check_events(path: str, text: str, loader) -> None:
    """Refuses, before anything is built from it, what a toolchain file never needs:
    anchors and aliases (a 342-byte alias bomb expands to gigabytes), nesting deeper than
    MAX_NESTING (the composer recurses), integers longer than MAX_INT_DIGITS digits."""
    import yaml
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise ProfileError(f"{_mark(path, event)}: anchors and aliases are not allowed in toolchain files")
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_NESTING:
                raise ProfileError(f"{_mark(path, event)}: nested more than {MAX_NESTING} levels deep")
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.ScalarEvent) and not event.style \
                and len(event.value) > MAX_INT_DIGITS and event.value.lstrip("+-").replace("_", "").isdigit():
            raise ProfileError(f"{_mark(path, event)}: integer constant is too large")


def _yaml_error(path: str, text: str, exc, loader_class) -> ProfileError:
    """One line at the error's position, whichever of PyYAML's error kinds it is."""
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        where = f"{path}:{mark.line + 1}:{mark.column + 1}"
        what = exc.problem
    elif getattr(exc, "position", None) is not None:   # a character YAML does not allow
        data = text.encode("utf-8")   # libyaml counts bytes, PyYAML's own reader characters
        byte_offsets = loader_class.__name__.startswith("C")
        offset = exc.position if byte_offsets else len(text[:exc.position].encode())
        where = _byte_position(path, data, min(offset, len(data)))
        what = f"unacceptable character #x{exc.character:04x}: {exc.reason}"
    else:
        where, what = path, str(exc)
    return ProfileError(f"{where}: invalid YAML: {' '.join(str(what).split())}")


_checked: Dict[Tuple[str, str], tuple] = {}   # (path, text) -> (data, node) of a file read before


def _load_yaml(path: str):
    """Returns (data, node tree) of a checked profile file. A process that reads the same
    text again (a warm compile server's runs) reuses the first reading, a copy of its data:
    the file is read each time, so a changed file is read anew."""
    import copy
    text = _read_text(path)
    if (path, text) not in _checked:
        _checked[path, text] = _parse_yaml(path, text)
    data, node = _checked[path, text]
    return copy.deepcopy(data), node


def _parse_yaml(path: str, text: str):
    import yaml
    # libyaml's loader when PyYAML has it: every croktilec run reads this file
    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        _check_events(path, text, loader_class)
        loader = loader_class(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else {}
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise _yaml_error(path, text, exc, loader_class)
    except ValueError as exc:   # a tagged value its constructor refuses (!!timestamp 2001-13-45)
        raise ProfileError(f"{path}: invalid YAML: {' '.join(str(exc).split())}")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: expected a mapping with 'profiles'")
    _check_duplicate_keys(path, node)
    _validate(path, node, data)
    return data, node


def _mark(path: str, node) -> str:
    mark = getattr(node, "start_mark", None)
    return f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path


def _find(node, *keys, key_node: bool = False):
    """The node of the value (or with ``key_node``, of the key) at ``keys``, as deep as it exists."""
    best = node
    for i, key in enumerate(keys):
        if node is None or not isinstance(getattr(node, "value", None), list):
            break
        found = None
        for item in node.value:
            if isinstance(item, tuple) and getattr(item[0], "value", None) == str(key):
                found = item[0] if key_node and i == len(keys) - 1 else item[1]
        if found is None:
            break
        node = best = found
    return best


def _where(path: str, node, *keys, key_node: bool = False) -> str:
    """``file:line:col`` of the value at ``keys`` (as deep as it exists) in the YAML node tree."""
    return _mark(path, _find(node, *keys, key_node=key_node))


def _check_duplicate_keys(path: str, node) -> None:
    """YAML keeps the last of two equal keys; a profile file saying a thing twice is a mistake."""
    import yaml
    if isinstance(node, yaml.MappingNode):
        seen = {}
        for key, value in node.value:
            if key.value in seen:
                raise ProfileError(f"{_mark(path, key)}: duplicate key '{key.value}' "
                                   f"(first at line {seen[key.value].start_mark.line + 1})")
            seen[key.value] = key
            _check_duplicate_keys(path, value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _check_duplicate_keys(path, item)


def _validate(path: str, node, data: Dict) -> None:
    """A bad file is an error naming the file, line and key, never an internal error later."""
    def fail(msg: str, *keys, key_node: bool = False) -> None:
        raise ProfileError(f"{_where(path, node, *keys, key_node=key_node)}: {msg}")
    for key in data:
        if key not in TOP_KEYS:
            fail(f"unknown key '{key}' (known: {', '.join(TOP_KEYS)})", key, key_node=True)
    if "default" in data and not isinstance(data["default"], str):
        fail("'default' must be a profile name", "default")
    profiles = data.get("profiles")
    if profiles is None:
        return
    if not isinstance(profiles, dict):
        fail("'profiles' must be a mapping of profile names to profiles", "profiles")
    for name, prof in profiles.items():
        if not isinstance(name, str):
            fail(f"profile name {name!r} must be a string", "profiles", name, key_node=True)
        if prof is None:
            continue
        if not isinstance(prof, dict):
            fail(f"profile '{name}' must be a mapping (target, cxx, flags, ...)", "profiles", name)
        for key, value in prof.items():
            spec = PROFILE_KEYS.get(key)
            if spec is None:
                fail(f"unknown key '{key}' in profile '{name}' (known: {', '.join(PROFILE_KEYS)})",
                     "profiles", name, key, key_node=True)
            kind = spec[0]
            if not isinstance(value, kind) or (kind is list and not all(isinstance(v, str) for v in value)):
                fail(f"'{key}' of profile '{name}' must be {_TYPE_WORDS[kind]}", "profiles", name, key)
            if any("\0" in text for text in (value if kind is list else [value]) if isinstance(text, str)):
                # no program's argument can hold one: it was an internal error at the first job
                fail(f"'{key}' of profile '{name}' contains a NUL character", "profiles", name, key)
            if key == "triple" and not TRIPLE.fullmatch(value):
                fail(f"'triple' of profile '{name}' must be a target triple such as aarch64-linux-gnu",
                     "profiles", name, key)
            if key == "sysroot" and not value:
                fail(f"'sysroot' of profile '{name}' must name a directory", "profiles", name, key)
            if key == "target" and value not in TARGETS:
                fail(f"unknown target '{value}' in profile '{name}' (known: {', '.join(TARGETS)})",
                     "profiles", name, key)
            if key == "limits":
                for limit, amount in value.items():
                    if limit not in LIMIT_KEYS:
                        fail(f"unknown limit '{limit}' in profile '{name}' (known: {', '.join(LIMIT_KEYS)})",
                             "profiles", name, key, limit, key_node=True)
                    if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
                        fail(f"limit '{limit}' of profile '{name}' must be a number of bytes (an integer >= 0)",
                             "profiles", name, key, limit)


def profile_files(explicit: List[str] = ()) -> List[str]:
    """The files that make up the profiles, built-in first, each later one overriding."""
    files = [toolchains_file()]
    user = user_toolchains_file()
    if os.path.isfile(user):
        files.append(user)
    env = os.environ.get("CROKTILE_TOOLCHAINS")
    if env:
        files.extend(p for p in env.split(os.pathsep) if p)
    files.extend(explicit)
    return files


def load_profiles(user_files: List[str] = ()) -> Dict:
    """Returns {'default': name, 'profiles': {name: profile}, 'files': [...]} after merging user files."""
    merged: Dict = {"default": None, "profiles": {}, "files": []}
    origin: Dict[str, tuple] = {}        # profile name -> (file, node) where it was first defined
    default_origin = ""
    for path in profile_files(user_files):
        data, node = _load_yaml(path)
        merged["files"].append(path)
        for name, prof in (data.get("profiles") or {}).items():
            base = dict(merged["profiles"].get(name, {}))
            prof = prof or {}
            if "limits" in prof:   # one limit overridden keeps the others
                prof = dict(prof, limits={**base.get("limits", {}), **prof["limits"]})
            base.update(prof)
            merged["profiles"][name] = base
            origin.setdefault(name, (path, node))   # located only for an error: finding it is linear
        if "default" in data:
            merged["default"] = data["default"]
            default_origin = _where(path, node, "default")
    if merged["default"] is None:
        merged["default"] = "cpu"
        default_origin = toolchains_file()
    if merged["default"] not in merged["profiles"]:
        raise ProfileError(f"{default_origin}: the default toolchain profile '{merged['default']}' is not defined "
                           f"(known: {', '.join(sorted(merged['profiles']))})")
    for name, prof in merged["profiles"].items():
        if not prof.get("target"):
            where = _where(*origin[name], "profiles", name, key_node=True)
            raise ProfileError(f"{where}: toolchain profile '{name}' names no 'target'")
        crossing = [key for key in ("triple", "sysroot") if prof.get(key)]
        if prof["target"] == "cuda" and crossing:
            where = _where(*origin[name], "profiles", name, key_node=True)
            raise ProfileError(f"{where}: profile '{name}' (target cuda) has a '{crossing[0]}': nvcc cross-compiles "
                               "through its own options (-ccbin, --target-directory); give them in 'flags'")
    return merged


def compiler_of(profile: Dict) -> str:
    """The compiler command: the profile's ``cxx``, else the triple's GNU cross compiler,
    else the default, which $CXX ($NVCC for cuda) replaces (a cross profile ignores $CXX:
    it names the build machine's compiler)."""
    default, env = ("nvcc", "NVCC") if profile.get("target") == "cuda" else ("c++", "CXX")
    if not profile.get("cxx") and profile.get("triple"):
        return f"{profile['triple']}-g++"
    cxx = profile.get("cxx") or default
    if cxx == default and profile.get("honour_env_cxx", True) and os.environ.get(env):
        return os.environ[env]
    return cxx


def device_compiler_of(profile: Dict) -> str:
    """factor: the profile's ``device_cc``, else the triple's GNU cross C compiler, else cc."""
    if profile.get("device_cc"):
        return profile["device_cc"]
    return f"{profile['triple']}-gcc" if profile.get("triple") else "cc"


def _arch(word: str) -> str:
    return _MACHINE_ARCH.get(word.lower(), word.lower())


def host_arch() -> str:
    """This machine's architecture as a target triple's first word says it (x86_64, aarch64)."""
    import platform   # here: only cross builds and --python-module ask (a few ms of every start)
    return _arch(platform.machine())


def cross_target(profile: Dict) -> Optional[str]:
    """What a profile builds for when that is not this machine (its triple, or its sysroot),
    else None: such a build cannot be loaded by the running Python."""
    triple = profile.get("triple")
    if triple and _arch(triple.split("-")[0]) != host_arch():
        return triple
    if profile.get("sysroot"):
        return f"the system in {profile['sysroot']}"
    return None


def _resolved(name: str, prof: Dict) -> Dict:
    out = dict(prof)
    out["name"] = name
    out["cxx"] = compiler_of(prof)
    if prof.get("target") == "factor":
        out["device_cc"] = device_compiler_of(prof)
    return out


def select_profile(profiles: Dict, target: Optional[str], name: Optional[str]) -> Dict:
    """The profile --profile names, else the one -t picks, else the default; compilers resolved.
    A target's name in another case is that target (`-t CUDA`); an unknown name is an
    error that suggests the near one (`did you mean 'cuda'?`)."""
    table = profiles["profiles"]
    if target is not None and target not in TARGETS and target.lower() in TARGETS:
        target = target.lower()
    if name:
        if name not in table:
            raise ProfileError(f"unknown toolchain profile '{name}' (known: {', '.join(sorted(table))})"
                               + suggestion(name, sorted(table)))
        if target and table[name].get("target") != target:
            raise ProfileError(f"profile '{name}' is for target '{table[name].get('target')}', not '{target}'")
        return _resolved(name, table[name])
    if target is None:
        return _resolved(profiles["default"], table[profiles["default"]])
    if target not in TARGETS:
        raise ProfileError(f"unknown target '{target}' (known: {', '.join(TARGETS)})" + suggestion(target, TARGETS))
    candidates = [pname for pname, prof in table.items() if prof.get("target") == target]
    if not candidates:
        raise ProfileError(f"no toolchain profile for target '{target}'")
    # `default_for_target: true` wins (the last one marked: a user file's over the built-in
    # one), then the profile named like the target, then the first listed
    marked = [p for p in candidates if table[p].get("default_for_target")]
    named = [p for p in candidates if p == target and table[p].get("default_for_target", True)]
    unmarked = [p for p in candidates if table[p].get("default_for_target", True)]
    pname = (marked[-1:] or named or unmarked or candidates)[0]
    return _resolved(pname, table[pname])
