// Run-time checks of quantities that divide or size something (issue #11, "Run time").
// main runs the case its argument names; each must end in croktile::runtime_error naming
// the line below (tests/runtime/test_runtime_checks.py), never in a signal or a silent
// pass, on every target. Cases marked "ok" must run through and print their result.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

__cok__ {
  extern "C" void add_to(int* x, int n, int v) {
    for (int i = 0; i < n; ++i) x[i] += v;
  }

  extern "C" void take(int n) { (void)n; }
} // end of __cok__

// a `with` bound computed from the argument's shape: M / 4 is 0 when M < 4
__co__ s32 [a.span] with_bound(s32 [M] a, int less) {
  s32 [a.span] out;
  parallel p by 1 {
    with i in [M / 4 - less] {                                  // CHECK: with
      foreach i {
        t = dma.copy a.chunkat(i) => local;
        call add_to(t.data, |t.span|, 1);
        dma.copy t.data => out.chunkat(i);
      }
    }
  }
  return out;
}

// parallel counts from an argument, at the outer and at an inner level
__co__ s32 [a.span] par_count(s32 [M] a, int outer, int inner) {
  s32 [a.span] out;
  parallel p by outer {                                         // CHECK: parallel
    parallel q by inner {                                       // CHECK: inner parallel
      t = dma.copy a.chunkat(p) => local;
      call add_to(t.data, |t.span|, 1);
      dma.copy t.data => out.chunkat(p);
    }
  }
  return out;
}

// chunkat by a bound that does not divide the dimension
__co__ s32 [a.span] chunks(s32 [M] a, int n) {
  s32 [a.span] out;
  parallel p by 1 {
    with i in [n] {                                             // CHECK: chunk bound
      foreach i {
        t = dma.copy a.chunkat(i) => local;                      // CHECK: chunkat
        dma.copy t.data => out.chunkat(i);
      }
    }
  }
  return out;
}

// scalar division and modulo; a guarded division never runs with a zero divisor
__co__ int divide(int a, int b, int op) {
  int q = op == 1 ? a % b : op == 2 ? a / b : 0;               // CHECK: divide
  int r = op == 3 ? a / b : 0;                                  // CHECK: overflow
  int safe = b != 0 ? a / b : -1;
  int also = b == 0 || a / b > 0;
  return q + r + safe + also;
}

// a span divided by a run-time value sizes data
__co__ s32 [a.span] span_div(s32 [M] a, int n) {
  s32 [a.span / n] part;                                        // CHECK: span division
  s32 [a.span] out;
  parallel p by 1 {
    t = dma.copy a => local;
    dma.copy t.data => out;
  }
  return out;
}

// a size computed at run time is negative
__co__ s32 [a.span] negative(s32 [M] a, int less) {
  s32 [M - less] t;                                             // CHECK: negative size
  s32 [a.span] out;
  parallel p by 1 {
    u = dma.copy a => local;
    dma.copy u.data => out;
  }
  return out;
}

// a 'with' bound inside parallel, from the instance: checked in device code
__co__ s32 [a.span] device_with(s32 [M] a, int base) {
  s32 [a.span] out;
  parallel p by 2 {
    t = dma.copy a.chunkat(p) => local;
    with i in [p + base] {                                      // CHECK: device with
      foreach i {
        call add_to(t.data, |t.span|, 1);
      }
    }
    dma.copy t.data => out.chunkat(p);
  }
  return out;
}

// a division inside parallel, by a value of the instance
__co__ s32 [a.span] device_div(s32 [M] a, int base) {
  s32 [a.span] out;
  parallel p by 4 {
    t = dma.copy a.chunkat(p) => local;
    call add_to(t.data, |t.span|, 12 / (p - base));             // CHECK: device division
    dma.copy t.data => out.chunkat(p);
  }
  return out;
}

// a division under 'foreach ... if' runs only where the condition holds
__co__ s32 [a.span] masked(s32 [M] a, int n) {
  s32 [a.span] out;
  parallel p by 1 {
    with i in [2] {
      foreach i if (n != 0) {
        t = dma.copy a.chunkat(i) => local;
        call add_to(t.data, |t.span|, 12 / n);
        dma.copy t.data => out.chunkat(i);
      }
    }
  }
  return out;
}

// sizes that overflow: an element count passed as 'int', a byte count past 63 bits
__co__ void int_argument(s32 [M, N] a) {
  parallel p by 1 {
    call take(|a.span|);                                        // CHECK: int argument
  }
}

__co__ void huge(s32 [M] a, int n) {
  s32 [n, n, n] big;                                            // CHECK: huge
  parallel p by 1 {
    call take(n);
  }
}

// empty tensors: a dimension of 0 makes empty chunks, and an empty result
__co__ s32 [a.span] rows(s32 [M, N] a) {
  s32 [a.span] out;
  parallel p by 4 {
    r = dma.copy a.chunkat(p, _) => local;
    local s32 [r.span] y;
    dma.copy r.data => y;
    call add_to(y, |r.span|, 1);
    dma.copy y => out.chunkat(p, _);
  }
  return out;
}

static std::vector<int> iota(std::size_t n) {
  std::vector<int> v(n + 1);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = int(i);
  return v;
}

static croktile::spanned_view<int, 1> view(std::vector<int>& v, std::size_t n) {
  return choreo::make_spanview<1>(v.data(), {n});
}

static int print(const croktile::spanned_data<int, 1>& r) {
  for (auto x : r) std::cout << x << ' ';
  std::cout << "\n";
  return 0;
}

static int empty() {
  for (auto shape : {std::vector<std::size_t>{0, 5}, {8, 0}, {0, 0}}) {
    std::vector<int> v(1);
    auto r = rows(choreo::make_spanview<2>(v.data(), {shape[0], shape[1]}));
    if (r.shape()[0] != shape[0] || r.shape()[1] != shape[1]) return 1;
  }
  std::vector<int> v = iota(8 * 3);
  auto r = rows(choreo::make_spanview<2>(v.data(), {8, 3}));
  for (std::size_t i = 0; i < 24; ++i)
    if ((&r[0][0])[i] != v[i] + 1) return 1;
  std::cout << "empty ok\n";
  return 0;
}

static int run(const std::string& which, int arg) {
  std::vector<int> v = iota(16);
  if (which == "with") return print(with_bound(view(v, 3), 0));
  if (which == "with_neg") return print(with_bound(view(v, 4), 3));
  if (which == "with_ok") return print(with_bound(view(v, 8), 0));
  if (which == "with_empty") return print(with_bound(view(v, 0), 0));
  if (which == "parallel") return print(par_count(view(v, 4), arg, 2));
  if (which == "inner_parallel") return print(par_count(view(v, 4), 4, arg));
  if (which == "chunkat") return print(chunks(view(v, 6), arg));
  if (which == "guarded") return std::cout << divide(7, arg, 0) << "\n", 0;
  if (which == "modulo") return std::cout << divide(7, arg, 1) << "\n", 0;
  if (which == "divide") return std::cout << divide(7, arg, 2) << "\n", 0;
  if (which == "overflow") return std::cout << divide(-2147483647 - 1, arg, 3) << "\n", 0;
  if (which == "span_division") return print(span_div(view(v, 4), arg));
  if (which == "negative_size") return print(negative(view(v, 4), arg));
  if (which == "device_with") return print(device_with(view(v, 4), arg));
  if (which == "device_division") return print(device_div(view(v, 8), arg));
  if (which == "masked") return masked(view(v, 4), arg), std::cout << "masked ok\n", 0;
  if (which == "int_argument") {   // too large a shape is refused before any access to memory
    const std::size_t side = std::size_t(arg) << 10;
    std::vector<int> room(arg <= 1 ? side * side : 1);   // a view that fits is read: give it memory
    int_argument(choreo::make_spanview<2>(room.data(), {side, side}));
    return std::cout << "int_argument ok\n", 0;
  }
  if (which == "huge") return huge(view(v, 4), arg), std::cout << "huge ok\n", 0;
  if (which == "empty") return empty();
  std::cerr << "unknown case " << which << "\n";
  return 2;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  try {
    return run(argv[1], argc > 2 ? std::atoi(argv[2]) : 0);
  } catch (const croktile::runtime_error& e) {
    std::cout << "runtime_error: " << e.what() << "\n";
    return 3;
  }
}
