// ptofuzz's native-coverage build: weak, empty definitions of the hooks that -fsanitize=fuzzer-no-link makes the
// simulator call. Under the atheris engine libFuzzer's own definitions come first (the engine makes them global
// before the library is loaded), so they count; anywhere else (a replay, a test, --rerun) these do nothing, and the
// library runs as an uninstrumented one would. Compiled without instrumentation. Written for ptofuzz.
#include <cstddef>
#include <cstdint>

#define PTOFUZZ_WEAK extern "C" __attribute__((weak, visibility("default")))

namespace {
uint8_t* g_counters = nullptr;  // this library's counters, when no fuzzer took them
uint8_t* g_counters_end = nullptr;
uint8_t* g_seen = nullptr;  // one byte per counter: ever nonzero
}  // namespace

PTOFUZZ_WEAK void __sanitizer_cov_8bit_counters_init(uint8_t* start, uint8_t* stop)
{
    g_counters = start;
    g_counters_end = stop;
    g_seen = new uint8_t[size_t(stop - start)]();
}

// Without a fuzzer the counters are this library's own: how many have been nonzero since it was loaded (each call
// folds them in and clears them, so a counter that wraps at 256 is still seen). 0 when a fuzzer holds them.
extern "C" __attribute__((visibility("default"))) size_t ptofuzz_covered()
{
    size_t seen = 0;
    for (uint8_t* c = g_counters; c != g_counters_end; ++c) {
        uint8_t& s = g_seen[c - g_counters];
        s |= *c != 0;
        *c = 0;
        seen += s;
    }
    return seen;
}
PTOFUZZ_WEAK void __sanitizer_cov_pcs_init(const uintptr_t*, const uintptr_t*) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_pc_indir(uintptr_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_cmp1(uint8_t, uint8_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_cmp2(uint16_t, uint16_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_cmp4(uint32_t, uint32_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_cmp8(uint64_t, uint64_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_const_cmp1(uint8_t, uint8_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_const_cmp2(uint16_t, uint16_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_const_cmp4(uint32_t, uint32_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_const_cmp8(uint64_t, uint64_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_switch(uint64_t, uint64_t*) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_div4(uint32_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_div8(uint64_t) {}
PTOFUZZ_WEAK void __sanitizer_cov_trace_gep(uintptr_t) {}
// the stack depth libFuzzer's -use_value_profile/stack-depth tracing reads (a thread-local of libFuzzer's own)
extern "C" __attribute__((weak, visibility("default"))) thread_local uintptr_t __sancov_lowest_stack = 0;
