#ifndef FEDRAN_MODELS_LEARNING_CSV_READER_H
#define FEDRAN_MODELS_LEARNING_CSV_READER_H

// Loading a labelled dataset from a CSV file: one example per row, one column holding the
// integer label and every other column a numeric feature.

#include "models/learning/dataset.h"
#include "models/learning/feature-scaling.h"

#include <cstdint>
#include <optional>
#include <string>

namespace fedran
{

struct CsvOptions
{
    enum class Header
    {
        Auto, ///< the first row is a header if any of its cells is not a number
        Yes,
        No,
    };

    enum class Scaling
    {
        None,
        Divide, ///< x / divisor (DivideFeatures)
        MinMax, ///< per feature to [0, 1] over the training file (FitMinMax, ApplyMinMax)
    };

    /// The label column, 0-based; negative counts from the end (-1 is the last column).
    int64_t labelIndex = 0;
    /// If non-empty, the label column is the header cell with this name (needs a header) and
    /// labelIndex is ignored.
    std::string labelName;
    Header header = Header::Auto;
    char separator = ',';
    Scaling scaling = Scaling::None;
    double divisor = 255.0; ///< Scaling::Divide only
    /// Scaling::MinMax only: the ranges to use instead of this file's own. Pass the training
    /// file's (FitMinMax of it loaded unscaled) when loading a test file; LoadCsvPair does it.
    std::optional<MinMaxScaler> minMax;
};

/**
 * Reads `path`. Cells are split at `separator` and trimmed of surrounding spaces and tabs;
 * quoting is not supported, except that double quotes around a header cell are removed.
 * Blank lines are skipped and CRLF line ends accepted. Features are parsed as float (the
 * whole cell must be a finite number); labels must be integers in 0..255 ("3" or "3.0").
 * classes = largest label + 1.
 *
 * Throws DataError naming the file, and the 1-based line and column where there is one, for a
 * missing or unreadable file, a ragged row, a non-numeric cell, a bad label, a label column
 * that does not exist, fewer than two columns, or no examples at all.
 */
Dataset LoadCsv(const std::string& path, const CsvOptions& options);

/**
 * Loads a training and a test file with the same options. Min-max scaling is fitted on the
 * training file and applied to both (options.minMax, if set, is used for both instead). Both
 * halves get the larger of the two class counts, as LoadIdxFolder does. Throws DataError,
 * also if the two files have different numbers of features.
 */
TrainTestData LoadCsvPair(const std::string& trainPath,
                          const std::string& testPath,
                          const CsvOptions& options);

} // namespace fedran

#endif
