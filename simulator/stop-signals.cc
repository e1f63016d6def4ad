#include "simulator/stop-signals.h"

#include <ns3/nstime.h>
#include <ns3/simulator.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace ns3
{

namespace
{

std::atomic<int> g_received{0};
int g_pipe[2] = {-1, -1};
std::mutex g_mutex; ///< guards g_armed against the watcher
bool g_armed = false;
std::thread g_watcher;

constexpr char kSignalByte = 's';
constexpr char kQuitByte = 'q';

void
HandleSignal(int signal)
{
    int none = 0;
    if (!g_received.compare_exchange_strong(none, signal))
    {
        _exit(128 + signal); // the second signal: at once, as the user asked twice
    }
    const char byte = kSignalByte;
    const ssize_t written = ::write(g_pipe[1], &byte, 1);
    (void)written; // nothing can be done about a full pipe in a handler; one byte suffices
}

void
StopNow()
{
    Simulator::Stop();
}

/// From the watcher thread: ScheduleWithContext queues the event for the simulation thread.
void
ScheduleStop()
{
    Simulator::ScheduleWithContext(Simulator::NO_CONTEXT, Time(0), &StopNow);
}

void
Watch()
{
    char byte = 0;
    while (true)
    {
        const ssize_t n = ::read(g_pipe[0], &byte, 1);
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0 || byte == kQuitByte)
        {
            return;
        }
        std::lock_guard<std::mutex> lock(g_mutex);
        if (g_armed)
        {
            ScheduleStop();
        }
    }
}

} // namespace

StopSignals::StopSignals()
{
    if (::pipe(g_pipe) != 0)
    {
        throw std::runtime_error("cannot create the signal pipe");
    }
    g_received = 0;
    g_watcher = std::thread(&Watch);
    struct sigaction action = {};
    action.sa_handler = &HandleSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

StopSignals::~StopSignals()
{
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    const char byte = kQuitByte;
    if (::write(g_pipe[1], &byte, 1) == 1 && g_watcher.joinable())
    {
        g_watcher.join();
    }
    else if (g_watcher.joinable())
    {
        g_watcher.detach();
    }
    ::close(g_pipe[0]);
    ::close(g_pipe[1]);
    g_pipe[0] = g_pipe[1] = -1;
}

int
StopSignals::Received()
{
    return g_received.load();
}

std::string
StopSignals::Name(int signal)
{
    switch (signal)
    {
        case SIGINT:
            return "SIGINT";
        case SIGTERM:
            return "SIGTERM";
        default:
            return "signal " + std::to_string(signal);
    }
}

void
StopSignals::Arm()
{
    std::lock_guard<std::mutex> lock(g_mutex);
    g_armed = true;
    if (g_received.load() != 0)
    {
        ScheduleStop(); // came while the run was being set up
    }
}

void
StopSignals::Disarm()
{
    std::lock_guard<std::mutex> lock(g_mutex);
    g_armed = false;
}

} // namespace ns3
