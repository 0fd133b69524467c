"""Toolchain profiles from toolchains.yaml (built-in, then user files that override)."""
from __future__ import annotations

import os
from typing import Dict, List, Optional

from .paths import toolchains_file

TARGETS = ("cpu", "cuda", "opencl", "factor")


class ProfileError(Exception):
    pass


_LIST_FIELDS = ("flags", "link_flags", "libs")
_STR_FIELDS = ("target", "cxx", "arch", "device_cc")


def _load_yaml(path: str) -> Dict:
    import yaml
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text) or {}
    except OSError as exc:
        raise ProfileError(f"{path}: {exc.strerror}")
    except UnicodeDecodeError:
        raise ProfileError(f"{path}: not a UTF-8 text file")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        raise ProfileError(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}")
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: expected a mapping with 'profiles'")
    _validate(path, node, data)
    return data


def _where(path: str, node, *keys) -> str:
    """``file:line:col`` of the value at ``keys`` (as deep as it exists) in the YAML node tree."""
    best = node
    for key in keys:
        if node is None or not hasattr(node, "value") or not isinstance(node.value, list):
            break
        found = None
        for item in node.value:
            if isinstance(item, tuple) and getattr(item[0], "value", None) == key:
                found = item[1]
        if found is None:
            break
        node = best = found
    mark = getattr(best, "start_mark", None)
    return f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path


def _validate(path: str, node, data: Dict) -> None:
    """A bad file is an error naming the file, line and key, never an internal error later."""
    def fail(msg: str, *keys) -> None:
        raise ProfileError(f"{_where(path, node, *keys)}: {msg}")
    if "default" in data and not isinstance(data["default"], str):
        fail("'default' must be a profile name", "default")
    profiles = data.get("profiles")
    if profiles is None:
        return
    if not isinstance(profiles, dict):
        fail("'profiles' must be a mapping of profile names to profiles", "profiles")
    for name, prof in profiles.items():
        if prof is None:
            continue
        if not isinstance(prof, dict):
            fail(f"profile '{name}' must be a mapping (target, cxx, flags, ...)", "profiles", name)
        for key, value in prof.items():
            if key in _LIST_FIELDS and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                fail(f"'{key}' of profile '{name}' must be a list of strings", "profiles", name, key)
            if key in _STR_FIELDS and not isinstance(value, str):
                fail(f"'{key}' of profile '{name}' must be a string", "profiles", name, key)
            if key == "limits" and not (isinstance(value, dict)
                                        and all(isinstance(v, int) and not isinstance(v, bool)
                                                for v in value.values())):
                fail(f"'limits' of profile '{name}' must map names to integers", "profiles", name, key)


def load_profiles(user_files: List[str] = ()) -> Dict:
    """Returns {'default': name, 'profiles': {name: profile}} after merging user files."""
    data = _load_yaml(toolchains_file())
    merged = {"default": data.get("default", "cpu"), "profiles": dict(data.get("profiles", {}))}
    files = list(user_files)
    env = os.environ.get("CROKTILE_TOOLCHAINS")
    if env:
        files.insert(0, env)
    origin = {name: toolchains_file() for name in merged["profiles"]}
    default_origin = toolchains_file()
    for path in files:
        extra = _load_yaml(path)
        for name, prof in (extra.get("profiles") or {}).items():
            base = dict(merged["profiles"].get(name, {}))
            base.update(prof or {})
            merged["profiles"][name] = base
            origin[name] = path
        if "default" in extra:
            merged["default"] = extra["default"]
            default_origin = path
    if merged["default"] not in merged["profiles"]:
        raise ProfileError(f"{default_origin}: the default toolchain profile '{merged['default']}' is not defined "
                           f"(known: {', '.join(sorted(merged['profiles']))})")
    for name, prof in merged["profiles"].items():
        if not prof.get("target"):
            raise ProfileError(f"{origin[name]}: toolchain profile '{name}' names no 'target'")
    return merged


def select_profile(profiles: Dict, target: Optional[str], name: Optional[str]) -> Dict:
    table = profiles["profiles"]
    if name:
        if name not in table:
            raise ProfileError(f"unknown toolchain profile '{name}' (known: {', '.join(sorted(table))})")
        prof = dict(table[name])
        if target and prof.get("target") != target:
            raise ProfileError(f"profile '{name}' is for target '{prof.get('target')}', not '{target}'")
        prof["name"] = name
        return prof
    if target is None:
        default = profiles["default"]
        prof = dict(table[default])
        prof["name"] = default
        return prof
    if target not in TARGETS:
        raise ProfileError(f"unknown target '{target}' (known: {', '.join(TARGETS)})")
    for pname, prof in table.items():
        if prof.get("target") == target and prof.get("default_for_target", pname == target):
            out = dict(prof)
            out["name"] = pname
            return out
    for pname, prof in table.items():
        if prof.get("target") == target:
            out = dict(prof)
            out["name"] = pname
            return out
    raise ProfileError(f"no toolchain profile for target '{target}'")
