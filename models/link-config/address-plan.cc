#include "models/link-config/address-plan.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace fedran
{

namespace
{

constexpr uint32_t kLinkSize = 4; // a /30

uint32_t
PowerOfTwoAtLeast(uint64_t n)
{
    uint64_t size = kLinkSize;
    while (size < n)
    {
        size <<= 1;
    }
    if (size > AddressPlan::kSpaceSize)
    {
        throw std::length_error("the hub tree needs " + std::to_string(n) +
                                " addresses; the hub space has " +
                                std::to_string(AddressPlan::kSpaceSize));
    }
    return static_cast<uint32_t>(size);
}

} // namespace

uint8_t
AddressBlock::PrefixLength() const
{
    uint8_t bits = 0;
    while ((uint64_t{1} << bits) < size)
    {
        ++bits;
    }
    return static_cast<uint8_t>(32 - bits);
}

AddressPlan
PlanAddresses(const std::vector<int32_t>& hubParent, const std::vector<int32_t>& clientHub)
{
    const size_t hubs = hubParent.size();
    AddressPlan plan;
    plan.clientLink.assign(clientHub.size(), 0);
    plan.hubLink.assign(hubs, 0);
    plan.hubBlock.assign(hubs, AddressBlock{});

    // Children of each hub, and of the router (index hubs).
    std::vector<std::vector<uint32_t>> childHubs(hubs + 1);
    std::vector<std::vector<uint32_t>> clients(hubs + 1);
    for (uint32_t h = 0; h < hubs; ++h)
    {
        childHubs[hubParent[h] < 0 ? hubs : static_cast<size_t>(hubParent[h])].push_back(h);
    }
    for (uint32_t i = 0; i < clientHub.size(); ++i)
    {
        clients[clientHub[i] < 0 ? hubs : static_cast<size_t>(clientHub[i])].push_back(i);
    }

    // Parents before children (breadth first from the router), then block sizes bottom up.
    std::vector<uint32_t> order(childHubs[hubs]);
    for (size_t k = 0; k < order.size(); ++k)
    {
        const std::vector<uint32_t>& below = childHubs[order[k]];
        order.insert(order.end(), below.begin(), below.end());
    }
    if (order.size() != hubs)
    {
        throw std::invalid_argument("hub parents do not form a tree");
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it)
    {
        uint64_t used = kLinkSize * (1 + uint64_t{clients[*it].size()});
        for (uint32_t child : childHubs[*it])
        {
            used += plan.hubBlock[child].size;
        }
        plan.hubBlock[*it].size = PowerOfTwoAtLeast(used);
    }

    // Lays out `children`'s blocks from `base`, largest first (each then starts at a multiple
    // of its size); returns the first address after them.
    auto placeChildren = [&plan](std::vector<uint32_t> children, uint64_t base) {
        std::stable_sort(children.begin(), children.end(), [&plan](uint32_t a, uint32_t b) {
            return plan.hubBlock[a].size > plan.hubBlock[b].size;
        });
        for (uint32_t child : children)
        {
            plan.hubBlock[child].base = static_cast<uint32_t>(base);
            base += plan.hubBlock[child].size;
        }
        return base;
    };

    if (uint64_t{clients[hubs].size()} * kLinkSize > AddressPlan::kSpaceSize)
    {
        throw std::length_error(std::to_string(clients[hubs].size()) +
                                " clients on the aggregation router; at most " +
                                std::to_string(AddressPlan::kSpaceSize / kLinkSize));
    }
    for (size_t k = 0; k < clients[hubs].size(); ++k)
    {
        plan.clientLink[clients[hubs][k]] =
            AddressPlan::kRouterClients + static_cast<uint32_t>(k) * kLinkSize;
    }
    const uint64_t hubEnd = placeChildren(childHubs[hubs], AddressPlan::kHubSpace);
    if (hubEnd > uint64_t{AddressPlan::kHubSpace} + AddressPlan::kSpaceSize)
    {
        throw std::length_error(
            "the hub blocks need " + std::to_string(hubEnd - AddressPlan::kHubSpace) +
            " addresses; the hub space has " + std::to_string(AddressPlan::kSpaceSize));
    }
    for (uint32_t h : order)
    {
        uint64_t next = placeChildren(childHubs[h], plan.hubBlock[h].base);
        plan.hubLink[h] = static_cast<uint32_t>(next);
        next += kLinkSize;
        for (uint32_t i : clients[h])
        {
            plan.clientLink[i] = static_cast<uint32_t>(next);
            next += kLinkSize;
        }
    }
    return plan;
}

} // namespace fedran
