"""``croktilec``: the gcc-style entry point.

Exit status: 0 on success, 1 on a user error (with a diagnostic), 2 on an internal
compiler error, which is one line unless ``--debug`` asks for the traceback.
"""
from __future__ import annotations

# Only what the interpreter has loaded at start-up, and the signal handler (installed
# as `interrupts` is imported, in croktilec's own process), before the rest is imported:
# an early ^C is one line, not a traceback.
import os
import sys

from .driver import interrupts

TYPE_CHECKING = False   # the names annotations use, without importing typing at start-up
if TYPE_CHECKING:
    from typing import List, Optional

    from .diagnostics import Diagnostics
    from .driver.options import ParsedArgs


def main(argv: Optional[List[str]] = None) -> int:
    """The program. A signal ends it cleanly from here on; with ``argv`` (a call from
    another program) the caller's handlers are restored afterwards."""
    previous: dict = {}
    try:
        previous = interrupts.arm()
        if argv is None:   # croktilec itself: a warm server may do the run (server.py)
            from .driver.server import served
            status = served(sys.argv[1:])
            if status is not None:
                _exit_served(status)
        return _guarded_main(sys.argv[1:] if argv is None else argv)
    except interrupts.Interrupted as exc:
        return interrupts.report(exc)
    finally:
        # a signal from now on is only recorded: the run is over (no call here, which
        # would give a pending signal a moment to raise)
        interrupts.state.defer_depth += 1
        if argv is not None:
            interrupts.restore(previous)
        else:
            interrupts.ignore_from_now()


def _exit_served(status: int) -> None:
    """Ends croktilec after a served run at once: the server's child wrote every output,
    and tearing down the interpreter (the modules its start-up imported) costs more than
    the rest of the client."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


def _guarded_main(argv: List[str]) -> int:
    """Every failure is a diagnostic and an exit status: 1 for the user's, 2 for ours."""
    debug = "--debug" in argv
    from .driver.atomic import OutputError
    from .diagnostics import FatalError
    try:
        return _main(argv)
    except FatalError:
        return 1
    except OutputError as exc:  # a missing or read-only output directory: the user's error
        print(f"croktilec: error: {exc.strerror}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1
    except Exception as exc:  # an internal compiler error, never a traceback for users
        import traceback
        if debug:
            traceback.print_exc()
        where = ""
        tb = traceback.extract_tb(exc.__traceback__)
        if tb:
            last = tb[-1]
            where = f" at {os.path.basename(last.filename)}:{last.lineno}"
        print(f"croktilec: internal compiler error: {type(exc).__name__}: {exc}{where} "
              "(rerun with --debug for a traceback)", file=sys.stderr)
        return 2


def _main(argv: List[str]) -> int:
    from . import __version__
    from .diagnostics import Diagnostics
    from .driver.options import UsageError, help_text, optional_warnings, parse_args
    try:
        args = parse_args(argv)
    except UsageError as exc:
        print(f"croktilec: error: {exc}", file=sys.stderr)
        return 1
    if args.help:
        print(help_text())
        return 0
    if args.version:
        print(f"croktilec (Croktile) {__version__}")
        return 0
    if args.cmake_dir or args.print_toolchains:
        from .driver import jobs as driver
        return driver.info_command(args)
    diag = Diagnostics(werror=args.werror, no_warnings=args.no_warnings, optional=optional_warnings(args))
    if not args.inputs:
        print("croktilec: fatal error: no input files", file=sys.stderr)
        return 1
    if args.output and args.output != "-" and os.path.isfile(args.output):
        for path in args.inputs:   # -o main.co.cpp would replace the source with the result
            if os.path.isfile(path) and os.path.samefile(path, args.output):
                print(f"croktilec: fatal error: input file '{path}' is the same as output file", file=sys.stderr)
                return 1
    visualize = args.visualize is not None or args.visualize_stmt is not None
    if visualize or args.syntax_only or args.dump_ast or args.dump_ir or args.stage_preprocess:
        profile, toolchain = None, None
        if visualize or args.target is not None or args.profile is not None or args.toolchain_file is not None:
            # a bad -t/--profile is an error at every stage, as it is for a full build,
            # and a named target's own rules are checked too
            from .driver.profiles import ProfileError, load_profiles, select_profile
            from .targets import toolchain_for
            try:
                profile = select_profile(load_profiles([args.toolchain_file] if args.toolchain_file else []),
                                         args.target, args.profile)
            except ProfileError as exc:
                print(f"croktilec: error: {exc}", file=sys.stderr)
                return 1
            try:
                toolchain = toolchain_for(profile["target"])(profile, args)
            except KeyError:
                pass   # a target without a code generator: the frontend's rules only
        if visualize:   # pictures of the tiling (the target's memory plan and limits)
            from .visualize.command import visualize as draw
            from .visualize.page import Target
            return draw(args, diag, Target(profile["target"], profile, toolchain), toolchain)
        return _frontend_only(args, diag, toolchain)
    from .driver import jobs as driver
    return driver.compile_command(args, diag)


def _frontend_only(args: ParsedArgs, diag: Diagnostics, toolchain=None) -> int:
    from .compiler import check_source
    from .driver.inputs import frontend_options, read_source
    from . import ir
    outputs = []
    for path in args.inputs:
        text = read_source(path, diag)
        if text is None:
            continue
        stop = "preprocess" if args.stage_preprocess else ("parse" if args.dump_ast and not args.dump_ir else "ir")
        tu = check_source(text, path, diag, toolchain, frontend_options(args), stop_after=stop)
        if args.stage_preprocess:
            outputs.append(tu.preprocessed)
            continue
        if args.dump_ast:
            outputs.extend(fn.dump() for fn in tu.functions)
        if args.dump_ir and tu.module is not None and not diag.errors:
            outputs.extend(ir.dump(fn) for fn in tu.module.functions)
    if diag.errors:
        return 1
    if outputs:
        text = "\n".join(o.rstrip("\n") for o in outputs) + "\n"
        if args.output and args.output != "-":
            from .driver.atomic import write_atomic
            write_atomic(args.output, text)
        else:
            from .driver.atomic import write_stdout
            write_stdout(text)
    return 0
