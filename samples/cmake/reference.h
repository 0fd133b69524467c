#pragma once
// Plain C++: what the kernels must compute.
void reference_vadd_vmul(const int* a, const int* b, int* expect, int n);
