#include "slurm-cluster.h"

#include "../sim/sim-test-util.h"

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <netinet/in.h>
#include <random>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace fedran::test
{
namespace
{

/// A TCP port nothing listens on right now (the kernel's pick for port 0).
int
FreePort()
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(addr);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0)
    {
        throw std::runtime_error("cannot find a free port");
    }
    close(fd);
    return ntohs(addr.sin_port);
}

bool
Executable(const char* path)
{
    return access(path, X_OK) == 0;
}

int
Shell(const std::string& command)
{
    return std::system(command.c_str());
}

} // namespace

std::string
SlurmCluster::Unavailable()
{
    for (const char* tool : {"/usr/sbin/munged",
                             "/usr/sbin/slurmctld",
                             "/usr/sbin/slurmd",
                             "/usr/bin/sbatch",
                             "/usr/bin/squeue",
                             "/usr/bin/sinfo"})
    {
        if (!Executable(tool))
        {
            return std::string(tool) + " is not installed (Debian packages munge, slurmctld, "
                                       "slurmd, slurm-client; see .ci/deps)";
        }
    }
    if (geteuid() != 0)
    {
        return "slurmd must run as root to start jobs, and this test is not root";
    }
    return "";
}

SlurmCluster::SlurmCluster(const std::filesystem::path& dir)
    : m_dir(dir)
{
    for (const char* sub : {"munge", "state", "spool", "log"})
    {
        std::filesystem::create_directories(m_dir / sub);
    }
    std::filesystem::permissions(m_dir / "munge",
                                 std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace);
    {
        std::random_device random;
        std::ofstream key(m_dir / "munge" / "munge.key", std::ios::binary);
        for (int i = 0; i < 1024; ++i)
        {
            key.put(static_cast<char>(random()));
        }
    }
    std::filesystem::permissions(m_dir / "munge" / "munge.key",
                                 std::filesystem::perms::owner_read,
                                 std::filesystem::perm_options::replace);

    const std::string d = m_dir.string();
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    WriteFile(m_dir / "slurm.conf",
              "ClusterName=fedrantest\n"
              "SlurmctldHost=localhost\n"
              "SlurmctldPort=" +
                  std::to_string(FreePort()) +
                  "\n"
                  "SlurmdPort=" +
                  std::to_string(FreePort()) +
                  "\n"
                  "SlurmUser=root\nSlurmdUser=root\n"
                  "AuthType=auth/munge\nCredType=cred/munge\n"
                  "AuthInfo=socket=" +
                  d +
                  "/munge/munge.sock\n"
                  "StateSaveLocation=" +
                  d +
                  "/state\n"
                  "SlurmdSpoolDir=" +
                  d +
                  "/spool\n"
                  "SlurmctldPidFile=" +
                  d +
                  "/slurmctld.pid\n"
                  "SlurmdPidFile=" +
                  d +
                  "/slurmd.pid\n"
                  "SlurmctldLogFile=" +
                  d +
                  "/log/slurmctld.log\n"
                  "SlurmdLogFile=" +
                  d +
                  "/log/slurmd.log\n"
                  // No systemd, no cgroups in a container: track processes through /proc.
                  "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
                  "JobAcctGatherType=jobacct_gather/none\n"
                  "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n"
                  "SchedulerType=sched/builtin\n"
                  "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
                  "ReturnToService=2\nMpiDefault=none\n"
                  "NodeName=localhost CPUs=" +
                  std::to_string(cpus) +
                  " RealMemory=1000 State=UNKNOWN\n"
                  "PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n");

    Shell("/usr/sbin/munged -f --key-file=" + d + "/munge/munge.key --socket=" + d +
          "/munge/munge.sock --pid-file=" + d + "/munge/munged.pid --log-file=" + d +
          "/log/munged.log --seed-file=" + d + "/munge/seed");
    Shell(Env() + " /usr/sbin/slurmctld -f " + d + "/slurm.conf");
    Shell(Env() + " /usr/sbin/slurmd -f " + d + "/slurm.conf -N localhost");
}

SlurmCluster::~SlurmCluster()
{
    Stop("slurmd.pid");
    Stop("slurmctld.pid");
    Stop("munge/munged.pid");
}

void
SlurmCluster::Stop(const char* pidFile) const
{
    std::ifstream in(m_dir / pidFile);
    pid_t pid = 0;
    if (!(in >> pid) || pid <= 1)
    {
        return;
    }
    kill(pid, SIGTERM);
    for (int i = 0; i < 100 && kill(pid, 0) == 0; ++i)
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (kill(pid, 0) == 0)
    {
        kill(pid, SIGKILL);
    }
}

bool
SlurmCluster::WaitUntilReady()
{
    const std::filesystem::path state = m_dir / "sinfo.txt";
    for (int i = 0; i < 120; ++i)
    {
        Shell(Env() + " /usr/bin/sinfo -h -o %T > '" + state.string() + "' 2>/dev/null");
        if (ReadFile(state).find("idle") != std::string::npos)
        {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return false;
}

bool
SlurmCluster::WaitUntilIdle()
{
    const std::filesystem::path queue = m_dir / "squeue.txt";
    for (int i = 0; i < 240; ++i)
    {
        if (Shell(Env() + " /usr/bin/squeue -h > '" + queue.string() + "' 2>&1") == 0 &&
            ReadFile(queue).empty())
        {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return false;
}

std::string
SlurmCluster::Env() const
{
    return "SLURM_CONF='" + (m_dir / "slurm.conf").string() + "'";
}

std::string
SlurmCluster::Logs() const
{
    std::string logs;
    for (const char* log : {"munged.log", "slurmctld.log", "slurmd.log"})
    {
        logs += std::string("--- ") + log + "\n" + ReadFile(m_dir / "log" / log);
    }
    return logs;
}

} // namespace fedran::test
