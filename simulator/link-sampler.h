#ifndef FEDRAN_SIMULATOR_LINK_SAMPLER_H
#define FEDRAN_SIMULATOR_LINK_SAMPLER_H

#include "simulator/csv-writer.h"
#include "simulator/star-topology.h"

#include <ns3/net-device.h>
#include <ns3/packet.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * links.csv: every `interval`, one row per link direction (columns in docs/traces.md). Each
 * direction counts the bytes its receiving device delivers (one addition per packet); a
 * sample reads those counters, the sender's device and queue-discipline backlog and the
 * link's capacity and SNR probes, so a sample costs O(links) whatever the traffic.
 */
class LinkSampler
{
  public:
    LinkSampler(const std::string& outDir, const StarTopology& topology, double intervalS);

  private:
    struct Direction
    {
        std::string name;
        Ptr<NetDevice> sender;
        std::function<uint64_t()> capacityBps;
        std::function<double()> snrDb;
        uint64_t bytes = 0; ///< delivered since the last sample
    };

    /// `receiver` counts the delivered bytes (PhyRxEnd); nullptr: the caller connects them.
    Direction& AddDirection(std::string name,
                            Ptr<NetDevice> sender,
                            Ptr<NetDevice> receiver,
                            std::function<uint64_t()> capacityBps,
                            std::function<double()> snrDb);
    void Sample();

    std::unique_ptr<fedran::CsvWriter> m_csv;
    std::vector<std::unique_ptr<Direction>> m_directions;
    double m_intervalS;
};

} // namespace ns3

#endif
