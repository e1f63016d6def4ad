// A full disk (docs/reliability.md, "Full disk and write errors"): a write that fails ends the
// run with exit 1 and a message naming the file and the OS error, and run.json says "failed"
// (never "completed"). The run goes into a small tmpfs, so it needs the right to mount one
// (root, as in CI); elsewhere the test is skipped and says why.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sys/mount.h>

namespace fedran::test
{
namespace
{

namespace fs = std::filesystem;

/// A tmpfs of `size` mounted on `dir` for the object's life.
class SmallTmpfs
{
  public:
    SmallTmpfs(const fs::path& dir, const std::string& size)
        : m_dir(dir)
    {
        fs::create_directories(dir);
        const std::string options = "size=" + size;
        m_mounted = mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) == 0;
    }

    ~SmallTmpfs()
    {
        if (m_mounted)
        {
            umount2(m_dir.c_str(), MNT_DETACH);
        }
    }

    bool Mounted() const
    {
        return m_mounted;
    }

  private:
    fs::path m_dir;
    bool m_mounted = false;
};

TEST(FullDisk, AFullTmpfsEndsTheRunWithExitOneNamingTheFileAndNeverCompleted)
{
    TempDir dir("full-disk");
    SmallTmpfs disk(dir.Path() / "disk", "64k");
    if (!disk.Mounted())
    {
        GTEST_SKIP() << "cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN); CI runs it "
                        "as root";
    }
    // 6 clients x 400 rounds: clients.csv alone outgrows 64 kB after about a hundred rounds.
    WriteFile(dir.Path() / "s.json", TinyScenario(6, 3, 400).dump());
    const CommandResult r = RunFedran("run s.json --out disk/out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 1) << r.stderrText;
    EXPECT_NE(r.stderrText.find("No space left on device"), std::string::npos) << r.stderrText;
    EXPECT_NE(r.stderrText.find("cannot write disk/out/"), std::string::npos)
        << r.stderrText << "names the file";
    const fs::path manifest = dir.Path() / "disk" / "out" / "run.json";
    ASSERT_TRUE(fs::exists(manifest)) << "room again once the traces are removed";
    const auto json = nlohmann::json::parse(ReadFile(manifest));
    EXPECT_EQ(json["status"], "failed");
    EXPECT_NE(json["error"].get<std::string>().find("No space left on device"), std::string::npos);
    EXPECT_FALSE(fs::exists(dir.Path() / "disk" / "out" / "clients.csv"));
    EXPECT_FALSE(fs::exists(dir.Path() / "disk" / "out" / "fedran.lock"));
}

} // namespace
} // namespace fedran::test
