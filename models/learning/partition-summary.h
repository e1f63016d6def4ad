#ifndef FEDRAN_MODELS_LEARNING_PARTITION_SUMMARY_H
#define FEDRAN_MODELS_LEARNING_PARTITION_SUMMARY_H

// A per-client table of how much data, and of which labels, a partition gave each client, so
// that a run's heterogeneity can be checked and plotted without re-running the partition.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace fedran
{

/**
 * Writes `path` as CSV: a header `client,group,samples,label_0,...,label_{classes-1}`, then one
 * row per client in index order with its group name, its example count and its label
 * histogram. Integers only and "\n" line ends, so the bytes depend on nothing but the inputs.
 * Group names containing a comma, quote, CR or LF are quoted as in RFC 4180.
 *
 * With no labels and classes == 0 (a forecasting dataset) the rows have no label columns.
 *
 * `groupOfClient` has one entry per client, or is empty (every group then is ""). Throws
 * std::invalid_argument for a groupOfClient of the wrong length, an index outside `labels` or
 * a label >= classes, and std::runtime_error naming the path if the file cannot be written.
 */
void WritePartitionCsv(const std::string& path,
                       const std::vector<std::vector<uint32_t>>& partition,
                       std::span<const uint8_t> labels,
                       uint32_t classes,
                       const std::vector<std::string>& groupOfClient);

/// partition.csv without label columns, from each client's example count: for data
/// generated per client on demand, whose labels exist only while a client trains.
void WriteSampleCountsCsv(const std::string& path,
                          std::span<const uint32_t> samples,
                          const std::vector<std::string>& groupOfClient);

} // namespace fedran

#endif
