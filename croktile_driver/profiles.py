"""Toolchain profiles from toolchains.yaml (built-in, then user files that override)."""
from __future__ import annotations

import os
from typing import Dict, List, Optional

from .paths import toolchains_file

TARGETS = ("cpu", "cuda", "opencl", "factor")


class ProfileError(Exception):
    pass


def _load_yaml(path: str) -> Dict:
    import yaml
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh) or {}
    except OSError as exc:
        raise ProfileError(f"{path}: {exc.strerror}")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        raise ProfileError(f"{where}: error: invalid YAML: {getattr(exc, 'problem', exc)}")
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: error: expected a mapping with 'profiles'")
    return data


def load_profiles(user_files: List[str] = ()) -> Dict:
    """Returns {'default': name, 'profiles': {name: profile}} after merging user files."""
    data = _load_yaml(toolchains_file())
    merged = {"default": data.get("default", "cpu"), "profiles": dict(data.get("profiles", {}))}
    files = list(user_files)
    env = os.environ.get("CROKTILE_TOOLCHAINS")
    if env:
        files.insert(0, env)
    for path in files:
        extra = _load_yaml(path)
        for name, prof in (extra.get("profiles") or {}).items():
            base = dict(merged["profiles"].get(name, {}))
            base.update(prof or {})
            merged["profiles"][name] = base
        if "default" in extra:
            merged["default"] = extra["default"]
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
