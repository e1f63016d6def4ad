#ifndef FEDRAN_COMPRESSION_INTERNAL_SCRATCH_FLOATS_H
#define FEDRAN_COMPRESSION_INTERNAL_SCRATCH_FLOATS_H

// A temporary float buffer borrowed from a per-thread pool.
//
// The simulator keeps one encoder per client, possibly thousands. Wrappers need a model-sized
// buffer only while Encode runs (error feedback decodes its own payload into one, clipping
// writes the clipped update into one), so owning it per codec object would double or triple
// the memory of every client for nothing. Borrowing from a pool instead costs one buffer per
// nesting level per thread, and after the first round no allocation at all. Buffers are
// distinct while borrowed, so nested wrappers never alias each other's scratch. Large buffers
// are in huge pages and not zeroed when grown (large-buffer.h): fresh pages cost the first
// round dearly, and the contents are unspecified anyway.

#include "compression/internal/large-buffer.h"

#include <cstddef>
#include <span>

namespace fedran::internal
{

class ScratchFloats
{
  public:
    /// Borrows a buffer of at least `size` floats. Its contents are unspecified.
    explicit ScratchFloats(size_t size);

    /// Returns the buffer (and its capacity) to the pool.
    ~ScratchFloats();

    ScratchFloats(const ScratchFloats&) = delete;
    ScratchFloats& operator=(const ScratchFloats&) = delete;

    std::span<float> Span()
    {
        return {m_buffer.data(), m_size};
    }

  private:
    LargeBuffer<float> m_buffer;
    size_t m_size;
};

} // namespace fedran::internal

#endif
