// Spec 2, "The Partial Type: mdspan": deriving an mdspan from an existing one, first with
// sp(i), then with the `sp [ ... (i) ... ]` syntax sugar (spn is [1, 3, 2] in both).
// Added: one enclosing __co__ function per snippet (each snippet defines 'sp' and 'spn',
// and an mdspan can be defined only once). test_ir.py checks the resulting shapes.
__co__ void derive_by_dims() {
  sp : [6, 8];
  spn : [1, sp(0)/2, sp(1)/4]; // define a new mdspan from the existing one.
}

__co__ void derive_by_sugar() {
  sp : [6, 8];
  spn : sp [1, (0)/2, (1)/4]; // spn is defined as [1, 3, 2]
}
