#ifndef FEDRAN_MODELS_NS3_MODEL_THREAD_POOL_H
#define FEDRAN_MODELS_NS3_MODEL_THREAD_POOL_H

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace ns3
{

/**
 * Worker threads for the clients' local training, while the ns-3 event loop stays on the main
 * thread. A client submits its training when the global model arrives and collects the result
 * when its simulated compute time has passed, so simulated time never depends on wall time
 * and results are the same for any number of threads. With one thread, jobs run inline.
 */
class ThreadPool
{
  public:
    /// `threads` workers; 0 means one per hardware thread.
    explicit ThreadPool(unsigned threads);
    ~ThreadPool();

    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    unsigned Size() const
    {
        return m_size;
    }

    template<typename F>
    std::future<std::invoke_result_t<F>> Submit(F job)
    {
        auto task = std::make_shared<std::packaged_task<std::invoke_result_t<F>()>>(std::move(job));
        auto future = task->get_future();
        if (m_workers.empty())
        {
            (*task)();
            return future;
        }
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_queue.emplace_back([task] { (*task)(); });
        }
        m_wake.notify_one();
        return future;
    }

  private:
    void Work();

    unsigned m_size;
    std::vector<std::thread> m_workers;
    std::deque<std::function<void()>> m_queue;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
};

} // namespace ns3

#endif
