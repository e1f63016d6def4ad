#ifndef FEDRAN_SIMULATOR_PACKET_CAPTURE_H
#define FEDRAN_SIMULATOR_PACKET_CAPTURE_H

#include "simulator/network-topology.h"

#include <ns3/flow-monitor-helper.h>
#include <ns3/flow-monitor.h>
#include <ns3/pcap-file-wrapper.h>

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * The run's optional packet-level outputs (output.pcap, output.flowmon; docs/traces.md):
 *
 * - one pcap file per selected link direction, `<direction>.pcap` (names as in links.csv:
 *   `core-up`, `client-3-down`, ...), holding every frame the sending device put on the link
 *   (PPP link type, stamped when its transmission began), lost ones included;
 * - `flowmon.xml`: ns-3 FlowMonitor statistics of every IPv4 flow, FL and background, written
 *   by Finish() once the simulation has run.
 */
class PacketCapture
{
  public:
    /// Opens the pcap files and installs the flow monitor; `directions` are validated names.
    PacketCapture(const std::string& outDir,
                  const NetworkTopology& topology,
                  const std::vector<std::string>& directions,
                  bool flowmon);

    /// After Simulator::Run, before Simulator::Destroy: writes flowmon.xml.
    void Finish();

  private:
    /// One direction's pcap file; the link's frame trace writes to it.
    struct File
    {
        Ptr<PcapFileWrapper> file;

        void Write(Ptr<const Packet> packet);
    };

    std::string m_outDir;
    std::vector<std::unique_ptr<File>> m_files;
    FlowMonitorHelper m_flowmonHelper;
    Ptr<FlowMonitor> m_flowmon;
};

} // namespace ns3

#endif
