// Rule (issue #11): `with i in [4]` binds a one-element ituple; wherever an integer is
// expected, a one-element ituple is that integer (keeping the bound of a bounded one):
// initialisers, assignments, call and template arguments, arithmetic and comparisons,
// conditions, counts, shapes, dimension indices, `?:`, returns, chunkat indices.
__device__ void kernel(int *x, int n) {}
template <int N> __device__ void tkernel(int *x, int n) {}

__co__ int singles(s32 [4, 8] a, int n) {
  with i in [4] {
    foreach i {
      mutable int j = i;                   // initialiser (mutable: assigned below)
      bool b = i;
      j = i;                               // assignment
      int k = -i + ~i + !i;                // unary operators
      int m = i * 2 + (i < 3) + (i == i) + (i && b) + (i << 1);   // binary operators
      int t = i ? i : 0;                   // ?:
      su = {i, i + 1};                     // ituple literal items
      sp : [i + 1, 4];                     // mdspan literal items
      int d = sp(i - i);                   // dimension index (a constant)
      with q in [i + 1] {}                 // a `with` bound
    }
  }
  parallel p by 4 {
    with i in [4] {
      foreach i if (p != 3) {
        local s32 [1, 2] x;
        dma.copy a.chunkat(p, i) => x;     // chunkat index, bounded
        dma.copy x => a.chunkat(p, (i + 1) % #i);   // derived index keeps the bound
        call kernel(x, i);                 // call argument
      }
    }
    with c in [{3}] {                      // a literal one-element ituple
      foreach c {
        with z in [2] {
          foreach z if (c != 1) {}         // the condition of a masked foreach
        }
        local s32 [2] y;
        int e = c + {2};
        three = {3};
        call tkernel<{3}>(y, e);           // template arguments (compile-time)
        call tkernel<three>(y, e);
      }
    }
  }
  with w in [2] {
    foreach w {
      parallel q by w + 1 {}               // a parallel count
    }
  }
  seven = {7};
  return seven;                            // a returned int
}

__co__ auto auto_single() {
  seven = {7};
  return seven;                            // an `auto` function returns an int
}
