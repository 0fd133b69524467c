// Events of the cuda target (croktile_driver/toolchains/cuda_events.py): one flag per
// event; `trigger` sets it, `wait` spins until it can take it back (an atomic exchange,
// so one waiter consumes one trigger) or until CROKTILE_EVENT_TIMEOUT_MS have passed, and
// says which (the generated code turns `false` into a runtime check failure).
#pragma once

#ifndef CROKTILE_EVENT_TIMEOUT_MS
#define CROKTILE_EVENT_TIMEOUT_MS 10000
#endif

namespace croktile {
namespace cuda {

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// shared events: what this thread wrote before the trigger is seen after the wait
__device__ __forceinline__ void trigger(unsigned* flags, long long count) {
  __threadfence_block();
  for (long long i = 0; i < count; ++i) atomicExch(flags + i, 1u);
}

__device__ __forceinline__ bool wait(unsigned* flags, long long count) {
  const unsigned long long start = global_ns();
  const unsigned long long limit = 1000000ull * (unsigned long long)(CROKTILE_EVENT_TIMEOUT_MS);
  for (long long i = 0; i < count; ++i) {
    while (atomicExch(flags + i, 0u) == 0u) {
      if (global_ns() - start > limit) return false;
#if __CUDA_ARCH__ >= 700
      __nanosleep(32);
#endif
    }
  }
  __threadfence_block();
  return true;
}

// local events: the thread's own, so a wait finds them set or never will
__device__ __forceinline__ void local_trigger(unsigned* flags, long long count) {
  for (long long i = 0; i < count; ++i) flags[i] = 1u;
}

__device__ __forceinline__ bool local_wait(unsigned* flags, long long count) {
  for (long long i = 0; i < count; ++i) {
    if (flags[i] == 0u) return false;
    flags[i] = 0u;
  }
  return true;
}

}  // namespace cuda
}  // namespace croktile
