#include "models/learning/cross-entropy.h"

#include "compression/portable-math.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

namespace
{

/**
 * Turns one row of logits into softmax probabilities in place and returns -log p(label).
 * Subtracting the row maximum keeps exp() from overflowing; the loss is formed from the
 * maximum and the log of the sum in double, so a confident wrong prediction costs its full
 * logit gap instead of log(0).
 */
double
SoftmaxRowInPlace(float* row, size_t classes, uint8_t label)
{
    const float top = *std::max_element(row, row + classes);
    const float target = row[label];
    float sum = 0.0f;
    for (size_t k = 0; k < classes; ++k)
    {
        row[k] = pmath::Exp(row[k] - top);
        sum += row[k];
    }
    const float inverse = 1.0f / sum;
    for (size_t k = 0; k < classes; ++k)
    {
        row[k] *= inverse;
    }
    return static_cast<double>(top - target) + pmath::Log(static_cast<double>(sum));
}

} // namespace

double
SoftmaxCrossEntropyBackward(float* logits,
                            size_t n,
                            size_t classes,
                            const uint8_t* labels,
                            float scale)
{
    double loss = 0.0;
    for (size_t i = 0; i < n; ++i)
    {
        float* row = logits + i * classes;
        loss += SoftmaxRowInPlace(row, classes, labels[i]);
        row[labels[i]] -= 1.0f;
        for (size_t k = 0; k < classes; ++k)
        {
            row[k] *= scale;
        }
    }
    return loss;
}

double
SoftmaxCrossEntropyEvaluate(float* logits,
                            size_t n,
                            size_t classes,
                            const uint8_t* labels,
                            size_t& correct)
{
    double loss = 0.0;
    for (size_t i = 0; i < n; ++i)
    {
        float* row = logits + i * classes;
        // max_element returns the first maximum: ties go to the lowest class index.
        const auto predicted = static_cast<size_t>(std::max_element(row, row + classes) - row);
        correct += predicted == labels[i] ? 1 : 0;
        loss += SoftmaxRowInPlace(row, classes, labels[i]);
    }
    return loss;
}

} // namespace fedran
