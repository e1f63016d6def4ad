#include "compression/internal/scratch-floats.h"

#include <utility>

namespace fedran::internal
{

namespace
{

/// Buffers not currently borrowed. Per thread, so that borrowing needs no lock.
thread_local std::vector<LargeBuffer<float>> t_pool;

} // namespace

ScratchFloats::ScratchFloats(size_t size)
    : m_size(size)
{
    if (!t_pool.empty())
    {
        m_buffer = std::move(t_pool.back());
        t_pool.pop_back();
    }
    // Growing only: shrinking would make the next, larger borrower allocate again.
    if (m_buffer.size() < size)
    {
        m_buffer.resize(size);
    }
}

ScratchFloats::~ScratchFloats()
{
    try
    {
        t_pool.push_back(std::move(m_buffer));
    }
    catch (...)
    {
        // Out of memory for the pool's own bookkeeping: dropping the buffer is harmless.
    }
}

} // namespace fedran::internal
