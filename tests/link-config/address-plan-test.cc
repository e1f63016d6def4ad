// The backhaul tree's address plan (models/link-config/address-plan.h), without a network:
// every link its own /30, every hub's block aligned and holding everything behind it.

#include "models/link-config/address-plan.h"

#include <gtest/gtest.h>

#include <set>

namespace fedran
{
namespace
{

TEST(AddressPlan, BlocksNestAlignedAndDisjoint)
{
    // Router: clients 0 and 3; hub 0 (under the router) holds hub 1 and client 1; hub 1
    // holds client 2; hub 2 (under the router) holds clients 4..9.
    const std::vector<int32_t> parents = {-1, 0, -1};
    const std::vector<int32_t> clientHub = {-1, 0, 1, -1, 2, 2, 2, 2, 2, 2};
    const AddressPlan plan = PlanAddresses(parents, clientHub);
    // The router's own clients keep the star's addresses.
    EXPECT_EQ(plan.clientLink[0], AddressPlan::kRouterClients);
    EXPECT_EQ(plan.clientLink[3], AddressPlan::kRouterClients + 4);
    std::set<uint32_t> links;
    for (uint32_t link : plan.clientLink)
    {
        EXPECT_TRUE(links.insert(link).second);
    }
    for (uint32_t link : plan.hubLink)
    {
        EXPECT_TRUE(links.insert(link).second);
    }
    auto inside = [](uint32_t address, const AddressBlock& block) {
        return address >= block.base && address - block.base < block.size;
    };
    for (size_t h = 0; h < parents.size(); ++h)
    {
        const AddressBlock& block = plan.hubBlock[h];
        EXPECT_EQ(block.base % block.size, 0u) << "hub " << h;
        EXPECT_TRUE(inside(plan.hubLink[h], block));
        if (parents[h] >= 0)
        {
            EXPECT_TRUE(inside(block.base, plan.hubBlock[parents[h]]));
        }
    }
    EXPECT_TRUE(inside(plan.clientLink[2], plan.hubBlock[1]));
    EXPECT_TRUE(inside(plan.clientLink[1], plan.hubBlock[0]));
    EXPECT_FALSE(inside(plan.clientLink[1], plan.hubBlock[1]));
    for (uint32_t i = 4; i < 10; ++i)
    {
        EXPECT_TRUE(inside(plan.clientLink[i], plan.hubBlock[2]));
        EXPECT_FALSE(inside(plan.clientLink[i], plan.hubBlock[0]));
    }
    // hub 2: its link and six clients, 28 addresses: a /27.
    EXPECT_EQ(plan.hubBlock[2].PrefixLength(), 27);
}

} // namespace
} // namespace fedran
