// ChildConnections, the child-channel bookkeeping shared by the server and the edge
// aggregators: joins, reconnections, losses, and whom a frame that failed its CRC is
// attributed to (the connection's child, never the id in its damaged header).

#include "models/ns3/model/child-connections.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace
{

using namespace ns3;

/// A channel that only records what is done to it; the test feeds it frames and errors.
class FakeChannel : public MessageChannel
{
  public:
    void Send(std::vector<uint8_t> message) override
    {
        sent.push_back(std::move(message));
    }

    void Close() override
    {
        closed = true;
    }

    void Abort() override
    {
        closed = true;
    }

    void Receive(const fedran::Frame& frame)
    {
        NotifyFrame(frame, FrameReceipt{});
    }

    void Fail(const std::string& why, bool peerGone)
    {
        NotifyError(why, peerGone);
    }

    std::vector<std::vector<uint8_t>> sent;
    bool closed = false;
};

fedran::Frame
MakeFrame(fedran::FrameType type, uint32_t client, bool corrupt = false)
{
    fedran::Frame frame;
    frame.header = fedran::MakeFrameHeader(type, 0, 1, client);
    frame.corrupt = corrupt;
    return frame;
}

class ChildConnectionsTest : public ::testing::Test
{
  protected:
    ChildConnectionsTest()
    {
        ChildConnections::Handlers handlers;
        handlers.admits = [](uint32_t child) {
            return child < 10;
        };
        handlers.joined = [this](uint32_t child) {
            joined.push_back(child);
        };
        handlers.frame = [this](const fedran::Frame& frame) -> std::optional<std::string> {
            frames.push_back(frame);
            if (rejectFrames)
            {
                return std::string("rejected");
            }
            return std::nullopt;
        };
        handlers.lost = [this](uint32_t child, fedran::UpdateFate fate, const std::string&) {
            lost.emplace_back(child, fate);
        };
        children = std::make_unique<ChildConnections>("test", std::move(handlers));
    }

    Ptr<FakeChannel> Connect()
    {
        Ptr<FakeChannel> channel = CreateObject<FakeChannel>();
        children->Accept(channel);
        return channel;
    }

    std::unique_ptr<ChildConnections> children;
    std::vector<uint32_t> joined;
    std::vector<fedran::Frame> frames;
    std::vector<std::pair<uint32_t, fedran::UpdateFate>> lost;
    bool rejectFrames = false;
};

TEST_F(ChildConnectionsTest, JoinsAndHandsFramesOn)
{
    Ptr<FakeChannel> channel = Connect();
    channel->Receive(MakeFrame(fedran::FrameType::Join, 3));
    EXPECT_EQ(joined, std::vector<uint32_t>{3});
    channel->Receive(MakeFrame(fedran::FrameType::ClientUpdate, 3));
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].header.client, 3u);
    children->Send(3, {1, 2, 3});
    EXPECT_EQ(channel->sent.size(), 1u);
    EXPECT_FALSE(channel->closed);
}

TEST_F(ChildConnectionsTest, RejectsAnUnknownChild)
{
    Ptr<FakeChannel> channel = Connect();
    channel->Receive(MakeFrame(fedran::FrameType::Join, 42));
    EXPECT_TRUE(joined.empty());
    EXPECT_TRUE(channel->closed);
}

TEST_F(ChildConnectionsTest, DamagedFrameIsTheConnectionsChilds)
{
    Ptr<FakeChannel> channel = Connect();
    channel->Receive(MakeFrame(fedran::FrameType::Join, 3));
    // The CRC failed and the damage hit the client id: the frame is still child 3's.
    channel->Receive(MakeFrame(fedran::FrameType::ClientUpdate, 7, true));
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].header.client, 3u);
    EXPECT_TRUE(frames[0].corrupt);
    EXPECT_FALSE(channel->closed); // the round records the damaged update; the link stays up
    EXPECT_TRUE(lost.empty());
}

TEST_F(ChildConnectionsTest, DamagedFrameBeforeTheJoinEndsTheConnection)
{
    Ptr<FakeChannel> early = Connect();
    early->Receive(MakeFrame(fedran::FrameType::ClientUpdate, 3, true));
    EXPECT_TRUE(early->closed);
    EXPECT_TRUE(frames.empty());

    // A damaged Join names nobody: whatever id its header holds, nobody joins.
    Ptr<FakeChannel> join = Connect();
    join->Receive(MakeFrame(fedran::FrameType::Join, 4, true));
    EXPECT_TRUE(join->closed);
    EXPECT_TRUE(joined.empty());
    EXPECT_TRUE(lost.empty());
}

TEST_F(ChildConnectionsTest, ReportsALostChildOnce)
{
    Ptr<FakeChannel> channel = Connect();
    channel->Receive(MakeFrame(fedran::FrameType::Join, 3));
    rejectFrames = true;
    channel->Receive(MakeFrame(fedran::FrameType::ClientUpdate, 3));
    ASSERT_EQ(lost.size(), 1u);
    EXPECT_EQ(lost[0], std::make_pair(3u, fedran::UpdateFate::Failed));
    EXPECT_TRUE(channel->closed);
    channel->Fail("reset", true); // already forgotten
    EXPECT_EQ(lost.size(), 1u);
}

TEST_F(ChildConnectionsTest, ReconnectionReplacesTheOldChannel)
{
    Ptr<FakeChannel> first = Connect();
    first->Receive(MakeFrame(fedran::FrameType::Join, 3));
    Ptr<FakeChannel> second = Connect();
    second->Receive(MakeFrame(fedran::FrameType::Join, 3));
    EXPECT_TRUE(first->closed);
    EXPECT_EQ(joined, (std::vector<uint32_t>{3, 3}));
    first->Fail("reset", true); // the old connection's end arrives late: nobody is lost
    EXPECT_TRUE(lost.empty());
    children->Send(3, {9});
    EXPECT_TRUE(first->sent.empty());
    EXPECT_EQ(second->sent.size(), 1u);
    second->Fail("reset", true);
    ASSERT_EQ(lost.size(), 1u);
    EXPECT_EQ(lost[0], std::make_pair(3u, fedran::UpdateFate::Dropped));
}

} // namespace
