#include "models/ns3/model/thread-pool.h"

namespace ns3
{

ThreadPool::ThreadPool(unsigned threads)
    : m_size(threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads)
{
    if (m_size > 1)
    {
        for (unsigned i = 0; i < m_size; ++i)
        {
            m_workers.emplace_back(&ThreadPool::Work, this);
        }
    }
}

ThreadPool::~ThreadPool()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    for (auto& worker : m_workers)
    {
        worker.join();
    }
}

void
ThreadPool::Work()
{
    while (true)
    {
        std::function<void()> job;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_queue.empty())
            {
                return; // stopping, and every queued job has run
            }
            job = std::move(m_queue.front());
            m_queue.pop_front();
        }
        job();
    }
}

} // namespace ns3
