#ifndef FEDRAN_MODELS_LINK_CONFIG_ADDRESS_PLAN_H
#define FEDRAN_MODELS_LINK_CONFIG_ADDRESS_PLAN_H

// The IPv4 address plan of the backhaul tree, computed in one pass (no ns-3): every link is a
// /30, and everything behind a hub lies in one aligned block, so a router needs one route
// per child hub (plus its connected links and a default route toward the core).

#include <cstdint>
#include <vector>

namespace fedran
{

/// An aligned block of addresses: `size` is a power of two and `base` a multiple of it.
struct AddressBlock
{
    uint32_t base = 0;
    uint32_t size = 0;

    /// The block's prefix length (size 2^k: 32 - k).
    uint8_t PrefixLength() const;
};

/**
 * Addresses as host-order 32-bit numbers. A link's /30 at network n gives its lower end (the
 * client, or the hub, that sends the link's uplink) n + 1 and its upper end (the router or
 * hub it hangs off) n + 2.
 */
struct AddressPlan
{
    static constexpr uint32_t kCoreNetwork = 0x0A000000;   ///< 10.0.0.0/30: server .1, router .2
    static constexpr uint32_t kRouterClients = 0x0A800000; ///< 10.128.0.0/10: the router's clients
    static constexpr uint32_t kHubSpace = 0x0AC00000;      ///< 10.192.0.0/10: the hub blocks
    static constexpr uint32_t kSpaceSize = 1u << 22;       ///< addresses in each /10

    std::vector<uint32_t> clientLink;   ///< per client: the network of its link's /30
    std::vector<uint32_t> hubLink;      ///< per hub: the network of its link to its parent
    std::vector<AddressBlock> hubBlock; ///< per hub: its link, its clients' and its subtree's
};

/**
 * Plans the addresses of a tree. `hubParent[h]`: the index of hub h's parent hub, or -1 for
 * the aggregation router; the parents must form a forest (no loops). `clientHub[i]`: the hub
 * client i hangs off, or -1. Clients of the router get consecutive /30s from kRouterClients
 * in client order (as in a star); each hub's block holds its child hubs' blocks (largest
 * first, so each is aligned), then its own link, then its clients' links in client order.
 * Time O(N log N) for the sorts of children by size. Throws std::length_error if the
 * router's clients or the hub blocks do not fit their /10.
 */
AddressPlan PlanAddresses(const std::vector<int32_t>& hubParent,
                          const std::vector<int32_t>& clientHub);

} // namespace fedran

#endif
