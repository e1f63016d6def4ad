#ifndef FEDRAN_MODELS_LEARNING_IDX_READER_H
#define FEDRAN_MODELS_LEARNING_IDX_READER_H

// Loading MNIST-style IDX files (Fashion-MNIST ships in this format), gzipped or plain.

#include "models/learning/dataset.h"

#include <string>

namespace fedran
{

/**
 * Reads an IDX image file (magic 0x00000803: u8 pixels, N x rows x cols) and its IDX label
 * file (magic 0x00000801: N u8 labels). Either file may be gzipped or plain. Pixels are
 * scaled to [0, 1]; features = rows * cols; classes = largest label + 1.
 *
 * Throws DataError, naming the file and the byte offset (in the uncompressed stream), for a
 * missing or unreadable file, a bad magic number, a truncated file or a count mismatch.
 */
Dataset LoadIdx(const std::string& imagesPath, const std::string& labelsPath);

/**
 * Loads the four Fashion-MNIST/MNIST files from `dir`: train-images-idx3-ubyte,
 * train-labels-idx1-ubyte, t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, each either
 * as named or with a ".gz" suffix (the plain file wins when both exist). Both halves get the
 * same `classes` (the larger of the two), so that a test set lacking the last label still
 * evaluates a model built for the training set. Throws DataError.
 */
TrainTestData LoadIdxFolder(const std::string& dir);

} // namespace fedran

#endif
