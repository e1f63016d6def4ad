#ifndef FEDRAN_SIMULATOR_CORE_OUTPUT_FOLDER_H
#define FEDRAN_SIMULATOR_CORE_OUTPUT_FOLDER_H

// A run's output folder: one run at a time (a lock file), a finished run never replaced
// silently, and a record of every file fedran and the plot scripts wrote into it, so that
// replacing a run or cleaning up after a failed one removes those files and no others
// (docs/reliability.md, "Output folders").

#include "models/trace/output-record.h" // RecordOutputFile, kOutputRecordFile

#include <string>
#include <vector>

namespace fedran
{

/// The lock file of a run in progress: "<pid> <host>" of its holder.
constexpr const char* kLockFile = "fedran.lock";

/**
 * The output folder of one `fedran run`, from before the data is loaded to the end.
 *
 * The constructor creates the folder if needed and takes its lock (flock on fedran.lock, so a
 * killed holder's lock is free again; the file then names a dead process and is taken over
 * with a message). A live holder, or a folder whose run.json says "completed" or
 * "interrupted" without `overwrite`, is refused with fedran::BadInput (exit 2) saying who
 * holds it or how to proceed; nothing in the folder is touched then.
 */
class OutputFolder
{
  public:
    OutputFolder(const std::string& dir, bool overwrite);
    ~OutputFolder();
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;

    /// Removes the previous run's files (as its outputs.txt lists them; plots included) and
    /// the record itself: called once the new run is about to write.
    void RemovePreviousRun();

    /// After a failure: removes the files this run recorded except run.json (which then says
    /// "failed"), so no half-written traces remain. `keepManifest` false removes run.json too.
    void DiscardTraces(bool keepManifest);

    const std::string& Dir() const
    {
        return m_dir;
    }

  private:
    void TakeLock();
    /// Unlocks (removing the lock file) and removes the folder if this run made it and left
    /// it empty.
    void Release();
    void CheckPreviousRun(bool overwrite);

    std::string m_dir;
    bool m_created = false; ///< this run made the folder
    int m_lockFd = -1;
    std::string m_previousStatus; ///< run.json's status before this run ("" if none)
};

/// Removes the files listed in `dir`/outputs.txt (regular files inside `dir` only), the
/// subfolders they emptied and the record. A folder without a record but with a run.json
/// (made before fedran kept one) loses the files fedran writes by name.
void RemoveRecordedOutputs(const std::string& dir, const std::vector<std::string>& keep = {});

} // namespace fedran

#endif
