// Splitter: `__co__` and `__cok__` inside strings, character literals, raw strings and
// comments are C++ text, not tileflow code. Each fake one below is broken on purpose:
// mistaking it for a function would report errors.
#include <cstdio>
#include <string>

/* __co__ void in_block_comment( { parallel p by { */
// __co__ void in_line_comment( { @@@
static const char *s1 = "__co__ void in_string() { call ; }";
static const char *s2 = "escaped \" __co__ void f( { \\";
static const char c1 = '{';
static const char c2 = '}';
static const char c3 = '"';
static const int big = 1'000'000;  // digit separators are not character literals
static const char *raw = R"(__co__ void in_raw( { })";
static const char *raw2 = R"xy(a )" __cok__ { __co__ void in_raw2( {)xy";
static const char *two = u8"__co__" "__cok__ {";
static const char *def = "}";

__co__ void real(s32 [4] a) {
  // __co__ void in_tileflow_comment( {
  parallel p by 4 {
    x = dma.copy a.chunkat(p) => local; /* } __co__ */
  }
}

int main() { std::printf("%s %s %s %s %c%c%c %d\n", s1, s2, raw, raw2, c1, c2, c3, big); }
