#ifndef FEDRAN_SIMULATOR_STOP_SIGNALS_H
#define FEDRAN_SIMULATOR_STOP_SIGNALS_H

#include <string>

namespace ns3
{

/**
 * SIGINT and SIGTERM stop a run cleanly: the first one stops the simulation at its next event
 * (the rows of complete rounds are on disk, run.json says "interrupted"), a second one ends the
 * process at once with status 128 + signal.
 *
 * The handler only records the signal and writes a byte to a pipe (async-signal-safe); a
 * watcher thread reads it and, while the simulation runs, schedules Simulator::Stop through
 * ScheduleWithContext, the one ns-3 call that may come from another thread. So the stop takes
 * effect after the event being processed, and the events before it run as they would have.
 */
class StopSignals
{
  public:
    /// Installs the handlers and starts the watcher thread.
    StopSignals();
    /// Restores the default handlers and ends the watcher.
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    /// The first signal received (SIGINT, SIGTERM), 0 if none.
    static int Received();
    /// "SIGINT", "SIGTERM".
    static std::string Name(int signal);

    /// Around Simulator::Run: while armed, a signal stops the simulation (one that came before
    /// Arm stops it at its first event).
    static void Arm();
    static void Disarm();
};

} // namespace ns3

#endif
