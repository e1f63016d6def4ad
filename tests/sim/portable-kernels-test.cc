// Whole runs on different instruction sets: with the default (portable) matrix kernels an MLP
// run gives byte-identical traces on the SSE2, AVX2 and AVX-512 builds of the kernel, and
// run.json names the kernel; --fast-math-kernels is recorded as such. glibc's elementary
// functions, which ns-3 calls, are pinned to one build whatever tunables the user had set.

#include "models/learning/gemm.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace fedran::test
{
namespace
{

/// Runs fedran with FEDRAN_GEMM_ISA capping the kernels at `isa` ("" for the CPU's best).
CommandResult
RunCapped(const std::string& isa, const std::string& args, const std::filesystem::path& dir)
{
    if (isa.empty())
    {
        unsetenv("FEDRAN_GEMM_ISA");
    }
    else
    {
        setenv("FEDRAN_GEMM_ISA", isa.c_str(), 1);
    }
    CommandResult r = RunFedran(args, dir);
    unsetenv("FEDRAN_GEMM_ISA");
    return r;
}

std::string
Kernels(const std::filesystem::path& run)
{
    return nlohmann::json::parse(ReadFile(run / "run.json"))["kernels"].get<std::string>();
}

std::string
Libm(const std::filesystem::path& run)
{
    return nlohmann::json::parse(ReadFile(run / "run.json"))["libm"].get<std::string>();
}

TEST(PortableKernels, AnMlpRunGivesTheSameTracesOnEveryInstructionSet)
{
    TempDir dir("portable-kernels");
    nlohmann::json scenario = TinyScenario(6, 3, 2);
    scenario["model"] = {{"type", "mlp"}, {"hidden", {64}}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    ASSERT_EQ(RunCapped("generic", "run s.json --out generic --quiet", dir.Path()).exitCode, 0);
    EXPECT_EQ(Kernels(dir.Path() / "generic"), "portable-generic");
    for (GemmIsa isa : {GemmIsa::kAvx2, GemmIsa::kAvx512})
    {
        if (!GemmIsaAvailable(isa))
        {
            continue; // this CPU cannot run that build of the kernel
        }
        const std::string name = GemmIsaName(isa);
        ASSERT_EQ(RunCapped(name, "run s.json --out " + name + " --quiet", dir.Path()).exitCode, 0);
        EXPECT_EQ(Kernels(dir.Path() / name), "portable-" + name);
        ExpectSameTraces(dir.Path() / "generic", dir.Path() / name);
    }

    ASSERT_EQ(
        RunCapped("", "run s.json --out fast --quiet --fast-math-kernels", dir.Path()).exitCode,
        0);
    EXPECT_EQ(Kernels(dir.Path() / "fast"), std::string("fast-") + GemmIsaName(ActiveGemmIsa()));
}

TEST(PortableKernels, GlibcMathIsPinnedWhateverTunablesTheUserSet)
{
    TempDir dir("pinned-libm");
    WriteFile(dir.Path() / "s.json", TinyScenario(2, 1, 1).dump());
    const char* previous = std::getenv("GLIBC_TUNABLES");
    const std::string saved = previous ? previous : "";
    // None, another tunable, and the user's own hwcaps list, which the pinning must extend.
    for (const std::string tunables :
         {"", "glibc.malloc.check=0", "glibc.cpu.hwcaps=-AVX512F:glibc.malloc.check=0"})
    {
        SCOPED_TRACE("GLIBC_TUNABLES=" + tunables);
        if (tunables.empty())
        {
            unsetenv("GLIBC_TUNABLES");
        }
        else
        {
            setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
        }
        const std::string out = "run" + std::to_string(tunables.size());
        const CommandResult r = RunFedran("run s.json --quiet --out " + out, dir.Path());
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
        EXPECT_EQ(Libm(dir.Path() / out), "sse2");
        EXPECT_EQ(r.stderrText.find("warning"), std::string::npos) << r.stderrText;
    }
    if (previous)
    {
        setenv("GLIBC_TUNABLES", saved.c_str(), 1);
    }
    else
    {
        unsetenv("GLIBC_TUNABLES");
    }
}

} // namespace
} // namespace fedran::test
