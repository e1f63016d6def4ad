#ifndef FEDRAN_MODELS_LEARNING_DATASET_H
#define FEDRAN_MODELS_LEARNING_DATASET_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedran
{

/// How a forecasting dataset's values were normalised, per series: original = value * scale +
/// offset. Errors are reported in the original units.
struct SeriesScale
{
    double offset = 0.0;
    double scale = 1.0;
};

/// What a model needs to know of the data it is built for.
struct DataShape
{
    uint32_t features = 0; ///< values per example
    uint32_t classes = 0;  ///< classification: number of labels; 0 for forecasting
    uint32_t outputs = 0;  ///< forecasting: values predicted per example; 0 for classification
    uint32_t sequence = 0; ///< leading features that are consecutive steps of one series
};

/**
 * A dataset held in memory once and shared by every client (clients hold indices). Either
 * labelled (classification: `y`, `classes` > 0) or forecasting (regression: `targets`,
 * `outputs` > 0, with the series each example comes from and that series' normalisation).
 */
struct Dataset
{
    uint32_t features = 0;  ///< values per example (784 for 28x28 images)
    uint32_t classes = 0;   ///< number of labels (max label + 1, or as the loader knows)
    std::vector<float> x;   ///< row-major, Size() x features, scaled to [0, 1] for images
    std::vector<uint8_t> y; ///< classification: one label per example

    /// Forecasting: values predicted per example (0 for a labelled dataset).
    uint32_t outputs = 0;
    /// Forecasting: the first `sequence` features of a row are consecutive steps of one
    /// series, oldest first (the closeness window); the rest are side features.
    uint32_t sequence = 0;
    std::vector<float> targets;      ///< forecasting: Size() x outputs, normalised
    std::vector<uint32_t> series;    ///< forecasting: the series (cell) of each example
    std::vector<SeriesScale> scales; ///< forecasting: per series, to undo normalisation

    bool Forecasting() const
    {
        return outputs > 0;
    }

    size_t Size() const
    {
        return Forecasting() ? targets.size() / outputs : y.size();
    }

    DataShape Shape() const
    {
        return {features, classes, outputs, sequence};
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
