#ifndef FEDRAN_COMPRESSION_INTERNAL_STATE_BUFFER_H
#define FEDRAN_COMPRESSION_INTERNAL_STATE_BUFFER_H

// A codec's model-sized state carried from round to round (error feedback's residual, DGC's
// momentum and accumulation): a LargeBuffer the codec allocates, or the memory of an update
// its caller handed over (Codec::EncodeConsuming). The second is why it exists: a client's
// update has just been written by its training, so a codec that starts its state from it
// reuses pages the process already has, where new state would cost the kernel's page faults
// and zeroing (large-buffer.h) inside a client's first encode. Either way it is one array of
// floats; which memory holds it changes no value.

#include "compression/internal/large-buffer.h"

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace fedran::internal
{

class StateBuffer
{
  public:
    size_t size() const
    {
        return m_adopted.empty() ? m_owned.size() : m_adopted.size();
    }

    bool empty() const
    {
        return size() == 0;
    }

    float* data()
    {
        return m_adopted.empty() ? m_owned.data() : m_adopted.data();
    }

    const float* data() const
    {
        return m_adopted.empty() ? m_owned.data() : m_adopted.data();
    }

    operator std::span<float>()
    {
        return {data(), size()};
    }

    operator std::span<const float>() const
    {
        return {data(), size()};
    }

    /// `n` elements; those not held before are unset (LargeBuffer's resize): the owner writes
    /// them before reading them. A handed-over update of another size is released first.
    void resize(size_t n)
    {
        if (!m_adopted.empty() && m_adopted.size() != n)
        {
            Release();
        }
        if (m_adopted.empty())
        {
            m_owned.resize(n);
        }
    }

    /// `n` copies of `value`.
    void assign(size_t n, float value)
    {
        if (!m_adopted.empty() && m_adopted.size() == n)
        {
            std::fill(m_adopted.begin(), m_adopted.end(), value);
            return;
        }
        Release();
        m_owned.assign(n, value);
    }

    /// Takes `update`'s memory as the state: the elements are the update's until the owner
    /// overwrites them.
    void Adopt(std::vector<float>&& update)
    {
        Release();
        m_adopted = std::move(update);
    }

    /// Frees the memory: size() becomes 0.
    void Release()
    {
        LargeBuffer<float>().swap(m_owned);
        std::vector<float>().swap(m_adopted);
    }

  private:
    LargeBuffer<float> m_owned;
    std::vector<float> m_adopted; ///< non-empty: the state, and m_owned is empty
};

} // namespace fedran::internal

#endif
