"""The splitter: finds __co__ functions and __cok__ blocks in C++ text, respecting
strings, character literals, raw strings, comments and nested braces."""
from __future__ import annotations

import textwrap

from croktile_driver.diagnostics import Diagnostics
from croktile_driver.frontend.splitter import split

from helpers.inprocess import parse_diags
from helpers.corpus import CORPUS

CASES = CORPUS / "spec"


def segments(text: str):
    import io
    diag = Diagnostics(stream=io.StringIO())
    segs = split(textwrap.dedent(text), "t.co.cpp", diag)
    return segs, diag


def kinds(segs):
    return [(s.kind, s.name) for s in segs if s.kind != "host"]


def test_co_in_strings_comments_and_raw_strings_is_ignored():
    segs, diag = segments(r'''
        /* __co__ void a( { */
        // __co__ void b( {
        const char *s = "__co__ void c( { \" __cok__ {";
        const char c = '{';
        const char *r = R"(__co__ void d( { )";
        const char *r2 = R"tag( )" __co__ void e( { )tag";
        int big = 1'000;
        __co__ void real() { /* } */ int x = 1; // }
        }
        const char *after = "}";
        ''')
    assert diag.errors == 0, diag.messages
    assert kinds(segs) == [("co", "real")]
    co = [s for s in segs if s.kind == "co"][0]
    assert co.text.startswith("__co__ void real()") and co.text.rstrip().endswith("}")
    assert co.loc.line == 9  # the #line-free text: the dedented source's line of `__co__`


def test_cok_block_with_nested_braces():
    segs, diag = segments('''
        __cok__ {
          struct S { int a; };
          void k(int *x) { if (x) { x[0] = '}'; } else { const char *t = "{"; } }
          // }
        }
        __co__ void f() {}
        ''')
    assert diag.errors == 0, diag.messages
    assert kinds(segs) == [("cok", None), ("co", "f")]
    cok = segs[[s.kind for s in segs].index("cok")]
    # the whole inside, up to the block's own closing brace (not one in a literal/comment)
    assert cok.text.startswith("\n  struct S { int a; };") and cok.text.endswith("  // }\n")
    assert cok.end_loc.line == 6


def test_co_in_namespace_and_prototype():
    segs, diag = segments('''
        namespace a { namespace b {
        __co__ int proto(int n);
        __co__ void g(int n) { parallel p by n { } }
        } }
        ''')
    assert diag.errors == 0, diag.messages
    assert kinds(segs) == [("co_decl", "proto"), ("co", "g")]


def test_identifier_containing_co_is_not_a_keyword():
    segs, diag = segments('''
        int my__co__ = 1; int __co__x = 2; int x__cok__;
        __co__ void f() {}
        ''')
    assert diag.errors == 0
    assert kinds(segs) == [("co", "f")]


def test_host_text_is_kept_unchanged():
    text = textwrap.dedent('''
        #include <cstdio>
        int main() { return 0; }
        __co__ void f() { parallel p by 2 {} }
        void g() { f(); }
        ''')
    import io
    segs = split(text, "t.co.cpp", Diagnostics(stream=io.StringIO()))
    assert "".join(s.text for s in segs) == text


def test_unterminated_function_and_stray_brace(tmp_path, croktilec):
    src = tmp_path / "unterminated.co.cpp"
    src.write_text("__co__ void f() {\n  parallel p by 2 {\n}\n")
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    assert [(d.line, d.col, d.msg) for d in parse_diags(r.err) if d.kind == "error"] == [
        (1, 17, "unterminated '__co__' function: missing '}'")]

    src = tmp_path / "stray.co.cpp"
    src.write_text("__co__ void f() {\n  parallel p by 2 {\n  }}\n  int x = 1;\n}\n")
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    diags = parse_diags(r.err)
    assert [(d.kind, d.line) for d in diags] == [("error", 5), ("note", 3)]
    assert diags[1].msg == "the __co__ function 'f' ends here"


def test_unknown_conditional_blocks_do_not_count_braces(tmp_path, croktilec):
    # braces that balance only per branch of a passed-through #ifdef are not "stray"
    src = tmp_path / "ifdef.co.cpp"
    src.write_text(textwrap.dedent('''
        #ifdef __cplusplus
        extern "C" {
        #endif
        void c_api(void);
        #ifdef __cplusplus
        }
        #endif
        #ifdef __CUDACC__
        namespace x {
        #else
        namespace y {
        #endif
        }
        __co__ void f() { parallel p by 2 {} }
        '''))
    r = croktilec("-fsyntax-only", src)
    assert (r.rc, r.err) == (0, "")


def test_dump_ast_finds_exactly_the_real_functions(croktilec):
    r = croktilec("--dump-ast", CASES / "split_strings_comments.co.cpp")
    assert r.rc == 0, r.err
    assert r.out.count("CoFunction") == 1
    r = croktilec("--dump-ast", CASES / "split_namespace.co.cpp")
    assert r.rc == 0, r.err
    assert r.out.count("CoFunction") == 2


# (faulty line, its stray closer, the opener it fails to match): every pair of an opener
# and a wrong closer; `^` marks the closer and `@` the opener in the line as written.
# Where braces are involved the splitter reports it (counting braces alone would end the
# function elsewhere), otherwise the parser: both as clang does, with a note at the opener.
_MISMATCHED_LINES = [
    ("call kernel@(1 ^};", "}", "("),
    ("int x = @(1 + 2^];", "]", "("),
    ("local s32 @[8, 8^) b;", ")", "["),
    ("local s32 @[8^} b;", "}", "["),
    ("t = @{1, 2^);", ")", "{"),
    ("t = @{1, 2^];", "]", "{"),
]
_BLOCKS = ["parallel p by 2 {", "with {i} in [4] {", "foreach i {", "with {j} in [2] {"]


def _nested(depth: int, body: list) -> list:
    """body inside `depth` nested blocks of a __co__ function, indented as written."""
    opened = ["  " * (k + 1) + _BLOCKS[k] for k in range(depth)]
    closed = ["  " * (k + 1) + "}" for k in reversed(range(depth))]
    return opened + ["  " * (depth + 1) + line for line in body] + closed


def _mismatch_program(depth: int, lines: list) -> str:
    return "\n".join(["__device__ void kernel(int n) {}", "__co__ void f(s32 [8] a) {"]
                     + _nested(depth, lines) + ["}", "__co__ void after() {", "  int z = w;", "}",
                                                "int main() { return 0; }", ""])


def _mark(text: str, mark: str):
    """(1-based line, col) of `mark` in text, and text without it."""
    before = text[:text.index(mark)]
    return (before.count("\n") + 1, len(before) - before.rfind("\n")), text.replace(mark, "", 1)


def _expect_one_mismatch(tmp_path, croktilec, program: str, closer: str, opener: str):
    (ol, oc), program = _mark(program, "@")   # the opener comes first
    (cl, cc), program = _mark(program, "^")
    src = tmp_path / "m.co.cpp"
    src.write_text(program)
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    closing = {"{": "}", "(": ")", "[": "]"}[opener]
    got = [(d.kind, d.line, d.col, d.msg) for d in parse_diags(r.err)]
    after = program.splitlines().index("  int z = w;") + 1
    assert got == [("error", cl, cc, f"expected '{closing}' before '{closer}'"),
                   ("note", ol, oc, f"to match this '{opener}'"),
                   ("error", after, 11, "'w' was not declared in this scope")], program


def test_wrong_closer_in_a_line_at_every_depth(tmp_path, croktilec):
    for depth in range(len(_BLOCKS) + 1):
        for line, closer, opener in _MISMATCHED_LINES:
            _expect_one_mismatch(tmp_path, croktilec, _mismatch_program(depth, [line, "call kernel(1);"]),
                                 closer, opener)


def test_block_closed_by_paren_or_bracket_at_every_depth(tmp_path, croktilec):
    for depth in range(1, len(_BLOCKS) + 1):
        for closer in ")]":
            program = _mismatch_program(depth, ["call kernel(1);"])
            lines = program.splitlines()
            body = lines.index("  " * (depth + 1) + "call kernel(1);")
            lines[body - 1] = lines[body - 1][:-1] + "@{"            # the innermost block opens
            lines[body + 1] = lines[body + 1].replace("}", "^" + closer)  # ... and closes wrongly
            _expect_one_mismatch(tmp_path, croktilec, "\n".join(lines), closer, "{")


def test_cok_block_mismatch(tmp_path, croktilec):
    src = tmp_path / "cok.co.cpp"
    src.write_text("__cok__ {\n  void g(int n) {\n    int v[2] = {n, n);\n  }\n}\nint main() { return 0; }\n")
    r = croktilec("-fsyntax-only", src)
    assert r.rc == 1
    assert [(d.kind, d.line, d.col, d.msg) for d in parse_diags(r.err)] == [
        ("error", 3, 21, "expected '}' before ')'"), ("note", 3, 16, "to match this '{'")]


def test_brackets_of_passed_through_conditionals_are_not_matched(tmp_path, croktilec):
    # the branches of an #ifdef the frontend cannot decide need not balance on their own
    src = tmp_path / "ifdef.co.cpp"
    src.write_text("__cok__ {\n  void g(int n) {\n#ifdef __CUDACC__\n    h(n,\n#else\n    h(0,\n#endif\n"
                   "      n);\n  }\n}\n__co__ void f() { parallel p by 2 {} }\n")
    r = croktilec("-fsyntax-only", src)
    assert (r.rc, r.err) == (0, "")


def test_a_semicolon_in_the_parameters_does_not_end_the_head():
    """`__co__ void f(;) { ... }` was taken for a prototype ending at the ';', its body for
    host code: the head now ends at its '{' (the parser reports the ';'), and a head with
    no '{' before the next __co__ function ends at that ';' (a prototype the parser checks)."""
    segs, diag = segments('''
        __co__ void f(;) {
          int x = 1;
        }
        __co__ void g(int n;
        __co__ void h() /* __co__ in a comment */ { }
        ''')
    assert diag.errors == 0, diag.messages
    assert kinds(segs) == [("co", "f"), ("co_decl", "g"), ("co", "h")]
    f, g, _ = [s for s in segs if s.kind != "host"]
    assert "int x = 1;" in f.text and g.text == "__co__ void g(int n;"


def test_a_head_without_body_is_an_error_and_the_next_function_is_found():
    segs, diag = segments('''
        __co__ void f(int n)
        __co__ void g() { }
        ''')
    assert diag.messages and "expected a function body" in diag.messages[0]
    assert kinds(segs) == [("co", "g")]
