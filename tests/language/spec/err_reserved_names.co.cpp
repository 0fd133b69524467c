// Names the runtime and the generated code reserve (issue #36, frontend/reserved_names.py):
// a __co__ function, parameter or variable that takes one is an error at its name, on
// every target; before, the C++ compiler failed on the generated code ("'choreo'
// redeclared as different kind of entity") at a column that the line does not have.
__co__ void choreo(s32 [4] a) {}                    // expect-error: the name 'choreo' is reserved: it is the runtime's namespace (its former name)
__co__ void croktile() {}                           // expect-error: the name 'croktile' is reserved: it is the runtime's namespace
__co__ void std() {}                                // expect-error: the name 'std' is reserved: it is the C++ library's namespace
__co__ int main() { return 0; }                     // expect-error: the name 'main' is reserved: it is the program's entry point
__co__ void dim3() {}                               // expect-error: the name 'dim3' is reserved: it is a type of the CUDA runtime
__co__ void int32_t() {}                            // expect-error: the name 'int32_t' is reserved: it is a type the generated code uses
__co__ void CROKTILE_RUN() {}                       // expect-error: the name 'CROKTILE_RUN' is reserved: names starting with 'CROKTILE_' are the runtime's macros
__co__ void f__launch0() {}                         // expect-error: the name 'f__launch0' is reserved: C++ reserves names that hold '__'

__co__ void params(s32 [4] a, int croktile_stream) {}   // expect-error: the name 'croktile_stream' is reserved: names starting with 'croktile' are the generated code's
__co__ void locals(s32 [4] a) {
  int uint8_t = 1;                                  // expect-error: the name 'uint8_t' is reserved: it is a type the generated code uses
  int new = 2;                                      // expect-error: the name 'new' is reserved: it is a C++ keyword
  int stdout = 3;                                   // expect-error: the name 'stdout' is reserved: it is the C library's standard output
  s32 [4] _Out;                                     // expect-error: the name '_Out' is reserved: C++ reserves names
  parallel threadIdx by 2 {                         // expect-error: the name 'threadIdx' is reserved: it is a built-in variable of CUDA
    a__ptr = dma.copy a.chunkat(threadIdx) => local;   // expect-error: the name 'a__ptr' is reserved: C++ reserves names that hold '__'
    foreach get_local_id in [2] {}                  // expect-error: the name 'get_local_id' is reserved: it is a built-in function of OpenCL C
  }
}

int main() { return 0; }
