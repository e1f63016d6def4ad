// The link-type and transport tables the scenario reader asks (models/link-config/link-types.h,
// no ns-3) against the classes that implement them.

#include "models/link-config/link-types.h"
#include "models/ns3/model/backhaul-link.h"
#include "models/ns3/model/message-transport.h"

#include <gtest/gtest.h>

#include <string>

namespace
{

TEST(LinkTypes, EveryDeclaredLinkTypeHasAModelAndNoOtherDoes)
{
    for (std::string_view type : fedran::LinkTypeNames())
    {
        EXPECT_NE(ns3::MakeBackhaulLink(std::string(type)), nullptr) << type;
    }
    EXPECT_EQ(ns3::MakeBackhaulLink("no_such_link"), nullptr);
    EXPECT_EQ(fedran::FindLinkType("no_such_link"), nullptr);
    // What the scenario reader relies on: LTE sites come through the EPC, and hubs need
    // a link that routes.
    ASSERT_NE(fedran::FindLinkType("lte"), nullptr);
    EXPECT_TRUE(fedran::FindLinkType("lte")->routesOwnClients);
    EXPECT_FALSE(fedran::FindLinkType("lte")->notAHubLinkBecause.empty());
    EXPECT_TRUE(fedran::FindLinkType("p2p")->notAHubLinkBecause.empty());
}

TEST(LinkTypes, EveryTransportIsBuiltFromItsRowAndSaysWhatItCarries)
{
    for (std::string_view name : fedran::TransportNames())
    {
        const ns3::Ptr<ns3::MessageTransport> transport =
            ns3::CreateMessageTransport(std::string(name));
        ASSERT_NE(transport, nullptr) << name;
        EXPECT_EQ(transport->CarriesPackets(), fedran::FindTransport(name)->carriesPackets) << name;
    }
    EXPECT_THROW(ns3::CreateMessageTransport("pigeon"), std::invalid_argument);
}

} // namespace
