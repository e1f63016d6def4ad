#ifndef FEDRAN_TESTS_WORKFLOW_SLURM_CLUSTER_H
#define FEDRAN_TESTS_WORKFLOW_SLURM_CLUSTER_H

#include <filesystem>
#include <string>

namespace fedran::test
{

/**
 * A single-node Slurm cluster on localhost for one test: a generated slurm.conf, a fresh
 * munge key, munged, slurmctld and slurmd started as root on free ports, all state under
 * `dir`. No systemd or cgroups: processes are tracked by /proc (proctrack/linuxproc) and
 * tasks are not confined (task/none). The destructor stops every daemon it started, also
 * when the test failed.
 */
class SlurmCluster
{
  public:
    /// Empty when the daemons can be started here, otherwise why not.
    static std::string Unavailable();

    explicit SlurmCluster(const std::filesystem::path& dir);
    ~SlurmCluster();
    SlurmCluster(const SlurmCluster&) = delete;
    SlurmCluster& operator=(const SlurmCluster&) = delete;

    /// Waits (up to 60 s) until the node is idle; false if it never came up.
    bool WaitUntilReady();

    /// Waits (up to 120 s) until no job is pending or running; false on timeout.
    bool WaitUntilIdle();

    /// "SLURM_CONF=..." for the commands that talk to this cluster.
    std::string Env() const;

    /// The daemons' logs, for failure messages.
    std::string Logs() const;

  private:
    void Stop(const char* pidFile) const;

    std::filesystem::path m_dir;
};

} // namespace fedran::test

#endif
