#ifndef FEDRAN_MODELS_LEARNING_SHUFFLE_H
#define FEDRAN_MODELS_LEARNING_SHUFFLE_H

// Fisher-Yates shuffle on fedran::Rng. std::shuffle's use of the generator is unspecified and
// differs between standard libraries, which would change partitions and minibatch orders (and
// so every trace) across toolchains; this one is fixed.

#include "compression/rng.h"

#include <span>
#include <utility>

namespace fedran
{

template<typename T>
void
Shuffle(std::span<T> values, Rng& rng)
{
    for (size_t i = values.size(); i > 1; --i)
    {
        const auto j = static_cast<size_t>(rng.UniformInt(i));
        std::swap(values[i - 1], values[j]);
    }
}

} // namespace fedran

#endif
