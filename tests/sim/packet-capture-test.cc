// output.pcap and output.flowmon: the pcap files are well formed and carry the bytes the
// traces count, flowmon.xml accounts for the same traffic, the same seed repeats them byte for
// byte, and a bad link name stops the run before anything is written.

#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cstring>
#include <regex>

namespace fedran::test
{
namespace
{

using nlohmann::json;

struct PcapSummary
{
    bool valid = false;
    uint32_t linkType = 0;
    uint64_t frames = 0;
    uint64_t wireBytes = 0;       ///< original frame lengths
    uint64_t tcpPayloadBytes = 0; ///< TCP segment data, retransmissions included
    uint64_t udpPackets = 0;
};

uint32_t
Le32(const std::string& data, size_t at)
{
    uint32_t value = 0;
    std::memcpy(&value, data.data() + at, 4); // pcap files are written in host order (x86: LE)
    return value;
}

uint32_t
Be16(const std::string& data, size_t at)
{
    return (static_cast<uint8_t>(data[at]) << 8) | static_cast<uint8_t>(data[at + 1]);
}

/// Reads a pcap file of PPP frames: header, records, and the TCP payload inside each frame.
PcapSummary
ReadPcap(const std::filesystem::path& path)
{
    const std::string data = ReadFile(path);
    PcapSummary summary;
    if (data.size() < 24 || Le32(data, 0) != 0xa1b2c3d4 || Be16(data, 4) != 0x0200)
    {
        return summary; // not a microsecond pcap, version 2.4, in this machine's byte order
    }
    summary.linkType = Le32(data, 20);
    size_t at = 24;
    while (at + 16 <= data.size())
    {
        const uint32_t captured = Le32(data, at + 8);
        const uint32_t original = Le32(data, at + 12);
        at += 16;
        if (at + captured > data.size() || captured < 2 + 20)
        {
            return summary; // truncated record
        }
        ++summary.frames;
        summary.wireBytes += original;
        const size_t ip = at + 2; // PPP: 2-byte protocol field, 0x0021 for IPv4
        if (Be16(data, at) == 0x0021)
        {
            const uint32_t ipHeader = (static_cast<uint8_t>(data[ip]) & 0x0f) * 4;
            const uint32_t ipTotal = Be16(data, ip + 2);
            const uint8_t protocol = static_cast<uint8_t>(data[ip + 9]);
            if (protocol == 6)
            {
                const uint32_t tcpHeader =
                    (static_cast<uint8_t>(data[ip + ipHeader + 12]) >> 4) * 4;
                summary.tcpPayloadBytes += ipTotal - ipHeader - tcpHeader;
            }
            summary.udpPackets += protocol == 17 ? 1 : 0;
        }
        at += captured;
    }
    summary.valid = at == data.size();
    return summary;
}

json
CaptureScenario()
{
    json scenario = TinyScenario(2, 2, 2);
    scenario["output"] = {{"pcap", {"client-0", "core-up"}}, {"flowmon", true}};
    return scenario;
}

TEST(PacketCapture, PcapFilesHoldTheFramesTheTracesCount)
{
    TempDir dir("pcap");
    WriteFile(dir.Path() / "s.json", CaptureScenario().dump());
    CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const auto out = dir.Path() / "out";
    EXPECT_FALSE(std::filesystem::exists(out / "core-down.pcap"));
    EXPECT_FALSE(std::filesystem::exists(out / "client-1-up.pcap"));

    const PcapSummary up = ReadPcap(out / "client-0-up.pcap");
    const PcapSummary down = ReadPcap(out / "client-0-down.pcap");
    const PcapSummary core = ReadPcap(out / "core-up.pcap");
    for (const PcapSummary* s : {&up, &down, &core})
    {
        EXPECT_TRUE(s->valid);
        EXPECT_EQ(s->linkType, 9u); // LINKTYPE_PPP
        EXPECT_GT(s->frames, 0u);
    }
    // Client 0's update frames (and its 28-byte join frame) are the TCP data of its uplink.
    uint64_t client0Payload = 0;
    for (auto& row : ReadCsv(out / "clients.csv"))
    {
        client0Payload += row["client"] == "0" ? std::stoull(row["payload_bytes"]) : 0;
    }
    EXPECT_EQ(up.tcpPayloadBytes, client0Payload + 28);
    // The core carries both clients' uplink frames: rounds.csv's uplink wire bytes, counted on
    // the backhaul links, are the same packets (with the same 2-byte PPP header).
    EXPECT_EQ(core.wireBytes, SumColumn(out / "rounds.csv", "uplink_wire_bytes"));
    EXPECT_GT(up.wireBytes, up.tcpPayloadBytes);
    EXPECT_LT(up.wireBytes, core.wireBytes);
}

struct FlowTotals
{
    uint64_t flows = 0;
    uint64_t uplinkTxWire = 0;   ///< client-to-server flows: sent bytes + PPP headers
    uint64_t downlinkRxWire = 0; ///< server-to-client flows: delivered bytes + PPP headers
};

/// Sums flowmon.xml's FlowStats by direction, telling directions apart by the classifier's
/// source address (the server is 10.0.0.1).
FlowTotals
ReadFlowmon(const std::string& xml)
{
    FlowTotals totals;
    std::map<std::string, bool> fromServer;
    const std::regex classified("<Flow flowId=\"([0-9]+)\" sourceAddress=\"([0-9.]+)\"");
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), classified);
         it != std::sregex_iterator();
         ++it)
    {
        fromServer[(*it)[1].str()] = (*it)[2].str() == "10.0.0.1";
    }
    const std::regex stats("<Flow flowId=\"([0-9]+)\" [^>]*txBytes=\"([0-9]+)\" "
                           "rxBytes=\"([0-9]+)\" txPackets=\"([0-9]+)\" "
                           "rxPackets=\"([0-9]+)\"");
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), stats);
         it != std::sregex_iterator();
         ++it)
    {
        const auto value = [&](int group) {
            return std::stoull((*it)[group].str());
        };
        ++totals.flows;
        if (fromServer.at((*it)[1].str()))
        {
            totals.downlinkRxWire += value(3) + 2 * value(5);
        }
        else
        {
            totals.uplinkTxWire += value(2) + 2 * value(4);
        }
    }
    return totals;
}

TEST(PacketCapture, FlowmonCountsTheWireBytesAndSameSeedRepeatsEveryByte)
{
    TempDir dir("flowmon");
    WriteFile(dir.Path() / "s.json", CaptureScenario().dump());
    ASSERT_EQ(RunFedran("run s.json --out a --quiet", dir.Path()).exitCode, 0);
    ASSERT_EQ(RunFedran("run s.json --out b --quiet", dir.Path()).exitCode, 0);
    const auto a = dir.Path() / "a";
    const std::string xml = ReadFile(a / "flowmon.xml");
    ASSERT_NE(xml.find("<FlowMonitor>"), std::string::npos);
    EXPECT_NE(xml.find("</FlowMonitor>"), std::string::npos);
    const FlowTotals flows = ReadFlowmon(xml);
    EXPECT_EQ(flows.flows, 4u); // two clients, one TCP connection each, one flow per direction
    // Client-to-server packets cross the sender's backhaul link as they leave it; the server's
    // are counted where they arrive, since those it sent last are still on the core when the
    // run stops. Up to two full frames may be on a backhaul link at that moment.
    EXPECT_NEAR(flows.uplinkTxWire, SumColumn(a / "rounds.csv", "uplink_wire_bytes"), 2 * 1502);
    EXPECT_NEAR(flows.downlinkRxWire, SumColumn(a / "rounds.csv", "downlink_wire_bytes"), 2 * 1502);

    ExpectSameTraces(a,
                     dir.Path() / "b",
                     {"client-0-up.pcap", "client-0-down.pcap", "core-up.pcap", "flowmon.xml"});
}

TEST(PacketCapture, PcapTrueCapturesEveryDirectionAndBadNamesWriteNothing)
{
    TempDir dir("pcap-bad");
    json scenario = TinyScenario(2, 2, 1);
    scenario["output"] = {{"pcap", true}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    ASSERT_EQ(RunFedran("run s.json --out all --quiet", dir.Path()).exitCode, 0);
    for (const char* name :
         {"core-up", "core-down", "client-0-up", "client-0-down", "client-1-up", "client-1-down"})
    {
        EXPECT_TRUE(ReadPcap(dir.Path() / "all" / (std::string(name) + ".pcap")).valid) << name;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "all" / "flowmon.xml"));

    for (const auto& [value, message] :
         {std::pair<json, std::string>{json::array({"core-up", "client-2-up"}),
                                       "output.pcap.1: \"client-2-up\": there are 2 clients"},
          {json::array({"client-0-sideways"}), "output.pcap.0: \"client-0-sideways\" is not"},
          {json("yes"), "output.pcap"}})
    {
        scenario["output"] = {{"pcap", value}};
        WriteFile(dir.Path() / "bad.json", scenario.dump());
        CommandResult r = RunFedran("run bad.json --out bad --quiet", dir.Path());
        EXPECT_EQ(r.exitCode, 2) << value.dump();
        EXPECT_NE(r.stderrText.find(message), std::string::npos) << r.stderrText;
        EXPECT_FALSE(std::filesystem::exists(dir.Path() / "bad")) << value.dump();
    }
}

} // namespace
} // namespace fedran::test
