#ifndef FEDRAN_MODELS_LEARNING_ACTIVATIONS_H
#define FEDRAN_MODELS_LEARNING_ACTIVATIONS_H

// The recurrent cells' logistic and tanh on float arrays, from IEEE additions,
// multiplications, divisions and exact conversions in a fixed order (compiled with
// -ffp-contract=off), so every x86-64 host gives the same bits; the loops vectorise, which
// pmath::Exp's scalar double calls (59% of an LSTM step when they were used) do not.
// Accuracy: within a few float ulps (tests/learning/activations-test.cc).

#include <cstddef>

namespace fedran
{

/// x[k] = 1 / (1 + e^{-x[k]}) for k < count.
void SigmoidInPlace(float* x, size_t count);

/// x[k] = tanh(x[k]) for k < count (absolute error a few 1e-8 near 0, relative elsewhere).
void TanhInPlace(float* x, size_t count);

/// out[k] = tanh(x[k]).
void Tanh(const float* x, float* out, size_t count);

} // namespace fedran

#endif
