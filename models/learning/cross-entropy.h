#ifndef FEDRAN_MODELS_LEARNING_CROSS_ENTROPY_H
#define FEDRAN_MODELS_LEARNING_CROSS_ENTROPY_H

// Softmax cross-entropy on a block of logits: the output layer shared by the neural models.

#include <cstddef>
#include <cstdint>

namespace fedran
{

/**
 * `logits` holds n rows of `classes` floats (row-major). Replaces each row by the gradient of
 * scale * (cross-entropy of its label) with respect to the logits, scale * (softmax - one-hot),
 * and returns the sum of the n unscaled cross-entropies. Labels must be < classes.
 */
double SoftmaxCrossEntropyBackward(float* logits,
                                   size_t n,
                                   size_t classes,
                                   const uint8_t* labels,
                                   float scale);

/**
 * Returns the sum of the n cross-entropies and adds to `correct` the rows whose largest logit
 * (the lowest class index among ties) is the label. `logits` is used as scratch.
 */
double SoftmaxCrossEntropyEvaluate(float* logits,
                                   size_t n,
                                   size_t classes,
                                   const uint8_t* labels,
                                   size_t& correct);

} // namespace fedran

#endif
