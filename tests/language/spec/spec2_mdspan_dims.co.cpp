// Spec 2, "The Partial Type: mdspan": reading dimension values with '()'.
//   sp : [7, 8]; int b = sp(0) + sp(1); // 'b' equals to 15 (7 + 8)
// Added: the enclosing __co__ function. (test_ir.py checks that b folds to 15.)
__co__ void mdspan_dims() {
  sp : [7, 8];
  int b = sp(0) + sp(1); // 'b' equals to 15 (7 + 8)
}
