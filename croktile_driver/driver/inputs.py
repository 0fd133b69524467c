"""The inputs and what the frontend is told about them, for the frontend-only stages
(``cli``) and for the build (``driver``); neither imports the other for these."""
from __future__ import annotations

from typing import List, Optional

from ..diagnostics import Diagnostics
from .options import ParsedArgs

CO_SUFFIXES = (".co.cpp", ".co", ".co.cc", ".co.cu")


def _split_define(text: str):
    name, eq, value = text.partition("=")
    return name, (value if eq else None)


def read_source(path: str, diag: Diagnostics) -> Optional[str]:
    """The text of a source file. Bytes that are not UTF-8 are kept (surrogateescape) so that
    host code passes through byte for byte, as the C++ compiler accepts them in comments and
    string literals; the splitter and the tileflow lexer report them elsewhere. A UTF-8 byte
    order mark at the start is dropped, as gcc does (it would land mid-file in the output)."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            return fh.read().removeprefix("\ufeff")
    except FileNotFoundError:
        diag.error(None, f"{path}: No such file or directory")
    except IsADirectoryError:
        diag.error(None, f"{path}: Is a directory")
    except OSError as exc:
        diag.error(None, f"{path}: {exc.strerror}")
    return None


def macro_flags(args: ParsedArgs) -> List[str]:
    """-D and -U as given, in command-line order (``-UX -DX`` defines X, as in gcc)."""
    order = [(dest, value) for dest, value in getattr(args, "order", ()) if dest in ("defines", "undefines")]
    if not order:
        order = [("defines", d) for d in args.defines] + [("undefines", u) for u in args.undefines]
    return [("-D" if dest == "defines" else "-U") + str(value) for dest, value in order]


def frontend_options(args: ParsedArgs) -> dict:
    # the frontend applies its defines, then its undefines: hand it the net effect of the flags
    defines: dict = {}
    undefines: List[str] = []
    for flag in macro_flags(args):
        if flag.startswith("-D"):
            name, value = _split_define(flag[2:])
            defines.pop(name, None)
            defines[name] = value
            if name in undefines:
                undefines.remove(name)
        else:
            defines.pop(flag[2:], None)
            if flag[2:] not in undefines:
                undefines.append(flag[2:])
    return dict(defines=list(defines.items()), undefines=undefines, include_dirs=list(args.include_dirs))
