// libFuzzer entry point (clang -fsanitize=fuzzer); see tests/fuzz/fuzz-targets.h. A finding
// (an exception other than a scenario or codec spec error) is a crash here.
#include "../fuzz-targets.h"

#include <cstdio>
#include <cstdlib>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fedran::fuzz::FuzzScenario(data, size);
    const fedran::fuzz::ScenarioFuzzCounts counts = fedran::fuzz::TakeScenarioFuzzCounts();
    if (counts.findings > 0)
    {
        std::fprintf(stderr, "%s\n", counts.firstFinding.c_str());
        std::abort();
    }
    return 0;
}
