#ifndef FEDRAN_MODELS_LEARNING_SCRATCH_H
#define FEDRAN_MODELS_LEARNING_SCRATCH_H

// Per-thread scratch buffers that only grow: the models keep their per-call buffers in
// thread_local structs of these, so one model object serves concurrent clients and a training
// step allocates nothing once the buffers have reached the batch's size.

#include <cstddef>

namespace fedran
{

/// Makes `buffer` (a std::vector) hold at least `size` elements, never shrinking it, and
/// returns its data.
template<typename Vector>
typename Vector::value_type*
GrowScratch(Vector& buffer, size_t size)
{
    if (buffer.size() < size)
    {
        buffer.resize(size);
    }
    return buffer.data();
}

} // namespace fedran

#endif
