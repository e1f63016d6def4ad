#ifndef FEDRAN_SIMULATOR_EDGE_ROUND_TRACE_H
#define FEDRAN_SIMULATOR_EDGE_ROUND_TRACE_H

#include "models/fl/edge-aggregator.h"
#include "models/ns3/model/fl-edge-app.h"
#include "models/trace/csv-writer.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/// edge_rounds.csv (columns in models/trace/trace-columns.cc): a row per aggregating hub per
/// edge round, flushed as it is written, so that an interrupted run keeps every edge round
/// that ended.
class EdgeRoundTrace
{
  public:
    /// `hubNames`: every hub's name, by hub index.
    EdgeRoundTrace(const std::string& outDir, std::vector<std::string> hubNames);

    void Connect(Ptr<FlEdgeApp> aggregator);

  private:
    void EdgeRoundEnded(const fedran::EdgeRoundRecord& record);

    std::vector<std::string> m_hubNames;
    std::unique_ptr<fedran::CsvWriter> m_csv;
};

} // namespace ns3

#endif
