// Rule (spec 3): device functions are called only inside `parallel`; outside it,
// tileflow code runs on the host. Also inside `with`/`foreach` at host level.
__device__ void kernel(int *a, int n) {}

__co__ void host_level_calls(s32 [4, 8] a) {
  call kernel(a, 32); // expect-error: device function 'kernel' can only be called inside 'parallel'
  with i in [4] {
    foreach i {
      call kernel(a, |a|); // expect-error: can only be called inside 'parallel'
    }
  }
  parallel p by 4 {
    call kernel(a, 32); // fine
  }
  call kernel(a, 32); // expect-error: can only be called inside 'parallel'
}
