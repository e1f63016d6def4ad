#ifndef FEDRAN_MODELS_LEARNING_DATASET_H
#define FEDRAN_MODELS_LEARNING_DATASET_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedran
{

/// A labelled dataset held in memory once and shared by every client (clients hold indices).
struct Dataset
{
    uint32_t features = 0;  ///< values per example (784 for 28x28 images)
    uint32_t classes = 0;   ///< number of labels (max label + 1, or as the loader knows)
    std::vector<float> x;   ///< row-major, Size() x features, scaled to [0, 1] for images
    std::vector<uint8_t> y; ///< one label per example

    size_t Size() const
    {
        return y.size();
    }

    const float* Row(size_t i) const
    {
        return x.data() + i * features;
    }
};

struct TrainTestData
{
    Dataset train;
    Dataset test;
};

/// A data file that is missing or malformed. The message names the file (and byte offset).
class DataError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

} // namespace fedran

#endif
