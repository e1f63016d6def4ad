#include "simulator/edge-round-trace.h"

#include "models/trace/trace-schema.h"

#include <ns3/callback.h>

namespace ns3
{

EdgeRoundTrace::EdgeRoundTrace(const std::string& outDir, std::vector<std::string> hubNames)
    : m_hubNames(std::move(hubNames))
    , m_csv(fedran::OpenTrace(outDir, "edge_rounds.csv"))
{
}

void
EdgeRoundTrace::Connect(Ptr<FlEdgeApp> aggregator)
{
    aggregator->TraceConnectWithoutContext("EdgeRoundEnded",
                                           MakeCallback(&EdgeRoundTrace::EdgeRoundEnded, this));
}

void
EdgeRoundTrace::EdgeRoundEnded(const fedran::EdgeRoundRecord& record)
{
    m_csv->Add(m_hubNames.at(record.hub));
    m_csv->Add(uint64_t{record.round}).Add(uint64_t{record.edgeRound});
    m_csv->Add(uint64_t{record.participants});
    m_csv->Add(record.uplinkBytes).Add(record.downlinkBytes);
    m_csv->Add(record.endS - record.startS, 6);
    m_csv->EndRow();
    m_csv->Flush();
}

} // namespace ns3
