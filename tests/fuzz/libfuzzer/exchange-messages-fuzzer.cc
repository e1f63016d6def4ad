// libFuzzer entry point (clang -fsanitize=fuzzer); see tests/fuzz/fuzz-targets.h.
#include "../fuzz-targets.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fedran::fuzz::FuzzExchangeMessages(data, size);
    return 0;
}
