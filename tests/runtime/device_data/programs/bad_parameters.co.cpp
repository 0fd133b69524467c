// Storage qualifiers on __co__ parameters: only a spanned parameter may be 'global' (its
// data is in device memory, the reference compiler's dialect); test_errors.py checks each
// marked line's diagnostic.
__co__ void storage(global s32 [N] fine,
                    local s32 [N] x,                          // ERROR: a 'local' parameter
                    shared f32 [4] y,                         // ERROR: a 'shared' parameter
                    global int n,                             // ERROR: 'global' on a scalar
                    global float f) {                         // ERROR: 'global' on a scalar
  parallel p by 1 {
    t = dma.copy fine => local;
  }
}
