// Host C++ may use non-ASCII letters (UTF-8 identifiers, strings, comments); the splitter
// passes them through and still finds the tileflow code. Regression: this used to be an
// internal compiler error in the splitter.
static int größe = 4;          // ünïcode identifier in host code
static const char *gruß = "__co__ ✓";

__co__ void ascii_tileflow(s32 [8] a) {
  // 注释: comments may hold any text
  parallel p by 2 {
    x = dma.copy a.chunkat(p) => local;
  }
}

int main() { return größe - 4 + (gruß[0] == '_' ? 0 : 1); }
