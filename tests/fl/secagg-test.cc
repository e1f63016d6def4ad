// Secure aggregation's protocol without a network (models/fl/secagg/): Shamir sharing, key
// agreement, the circulant graph, and whole runs of the four stages between a server and
// clients, with clients dropping at each point, checked against the plain sum bit for bit.

#include "compression/codec.h"
#include "compression/rng.h"
#include "models/fl/secagg/secagg-client.h"
#include "models/fl/secagg/secagg-graph.h"
#include "models/fl/secagg/secagg-math.h"
#include "models/fl/secagg/secagg-quantize.h"
#include "models/fl/secagg/secagg-server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace fedran::secagg
{
namespace
{

TEST(SecAggMath, ShamirRebuildsFromAnyThresholdSubset)
{
    Rng rng(7, 0);
    const uint64_t secret = DrawFieldElement(rng);
    const std::vector<uint64_t> xs{1, 2, 3, 4, 5, 6, 7};
    const std::vector<uint64_t> ys = ShamirSplit(secret, 4, xs, rng);
    // Every 4-subset of the 7 shares gives the secret; 3 shares give something else.
    for (uint32_t mask = 0; mask < 128; ++mask)
    {
        std::vector<std::pair<uint64_t, uint64_t>> points;
        for (size_t i = 0; i < 7; ++i)
        {
            if (mask >> i & 1)
            {
                points.emplace_back(xs[i], ys[i]);
            }
        }
        if (points.size() >= 4)
        {
            EXPECT_EQ(ShamirReconstruct(points), secret) << mask;
        }
        else if (points.size() == 3)
        {
            EXPECT_NE(ShamirReconstruct(points), secret) << mask;
        }
    }
    EXPECT_THROW(ShamirReconstruct(std::vector<std::pair<uint64_t, uint64_t>>{{1, 2}, {1, 3}}),
                 std::invalid_argument);
}

TEST(SecAggMath, FieldArithmeticAndKeyAgreement)
{
    EXPECT_EQ(MulMod(kPrime - 1, kPrime - 1), 1u); // (-1)^2
    EXPECT_EQ(MulMod(InvMod(12345), 12345), 1u);
    EXPECT_EQ(PowMod(kGenerator, kPrime - 1), 1u); // Fermat
    Rng rng(3, 0);
    for (int i = 0; i < 20; ++i)
    {
        const uint64_t a = DrawFieldElement(rng);
        const uint64_t b = DrawFieldElement(rng);
        EXPECT_EQ(AgreeKey(a, PublicKey(b)), AgreeKey(b, PublicKey(a)));
    }
}

TEST(SecAggMath, BitPackingRoundTrips)
{
    Rng rng(5, 0);
    for (uint32_t bits : {1u, 7u, 8u, 13u, 32u, 61u, 64u})
    {
        const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
        std::vector<uint64_t> values(37);
        for (uint64_t& v : values)
        {
            v = rng.NextU64() & mask;
        }
        std::vector<uint8_t> bytes;
        PackBits(values, bits, bytes);
        EXPECT_EQ(bytes.size(), PackedBytes(values.size(), bits));
        EXPECT_EQ(UnpackBits(bytes, values.size(), bits), values) << bits;
    }
}

TEST(SecAggGraph, CirculantIsSymmetricAndRegular)
{
    std::vector<uint32_t> ids{2, 3, 5, 8, 13, 21, 34, 55, 89};
    Rng rng(11, 0);
    const auto graph = CirculantNeighbours(ids, EffectiveShares(4, 9), rng); // 4 -> 5
    ASSERT_EQ(graph.size(), ids.size());
    for (const auto& [u, ns] : graph)
    {
        EXPECT_EQ(ns.size(), 4u) << u;
        for (uint32_t v : ns)
        {
            const auto& back = graph.at(v);
            EXPECT_TRUE(std::count(back.begin(), back.end(), u)) << u << " " << v;
        }
    }
    const auto complete = CirculantNeighbours(ids, EffectiveShares(100, 9), rng);
    for (const auto& [u, ns] : complete)
    {
        EXPECT_EQ(ns.size(), 8u);
    }
}

/// A whole aggregation: `n` clients with random b-bit inputs; those in `dropAfterShare` send
/// no masked input, those in `dropAfterMasked` no unmasking shares.
struct Outcome
{
    std::unique_ptr<SecAggServer> server;
    std::map<uint32_t, std::vector<uint64_t>> inputs;
    std::map<uint32_t, std::vector<uint8_t>> masked;
    /// Payload sizes per stage and client.
    std::map<std::string, std::map<uint32_t, size_t>> sizes;
};

Outcome
RunAggregation(SecAggSetup setup,
               uint32_t n,
               size_t elements,
               const std::set<uint32_t>& dropBeforeAdvertise,
               const std::set<uint32_t>& dropAfterShare,
               const std::set<uint32_t>& dropAfterMasked)
{
    Outcome out;
    out.server = std::make_unique<SecAggServer>(setup, elements);
    std::vector<uint32_t> cohort;
    std::map<uint32_t, SecAggClient> clients;
    Rng data(99, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t id = 10 + 3 * i; // ids need not be dense
        cohort.push_back(id);
        clients.emplace(id, SecAggClient(id, setup, Rng(1234, id)));
        std::vector<uint64_t> x(elements);
        for (uint64_t& v : x)
        {
            v = data.NextU64() & setup.FieldMask();
        }
        out.inputs[id] = x;
    }
    SecAggServer& server = *out.server;
    server.Begin(cohort, 42);
    for (uint32_t id : cohort)
    {
        if (dropBeforeAdvertise.count(id))
        {
            server.Lost(id);
            continue;
        }
        const std::vector<uint8_t> msg = clients.at(id).AdvertiseKeys();
        out.sizes["advertise"][id] = msg.size();
        EXPECT_TRUE(server.Accept(id, msg));
    }
    EXPECT_TRUE(server.Complete());
    std::map<uint32_t, std::vector<uint8_t>> keys = server.Close();
    if (server.Failed())
    {
        return out;
    }
    std::map<uint32_t, std::vector<uint8_t>> shareKeys;
    for (const auto& [id, msg] : keys)
    {
        out.sizes["keys"][id] = msg.size();
        shareKeys[id] = clients.at(id).ShareKeys(msg);
        out.sizes["share_keys"][id] = shareKeys[id].size();
        EXPECT_TRUE(server.Accept(id, shareKeys[id]));
    }
    std::map<uint32_t, std::vector<uint8_t>> relay = server.Close();
    if (server.Failed())
    {
        return out;
    }
    for (const auto& [id, msg] : relay)
    {
        out.sizes["shares"][id] = msg.size();
        clients.at(id).AcceptShares(msg);
        if (dropAfterShare.count(id))
        {
            server.Lost(id);
            continue;
        }
        out.masked[id] = clients.at(id).MaskInput(out.inputs[id]);
        out.sizes["masked"][id] = out.masked[id].size();
        EXPECT_TRUE(server.Accept(id, out.masked[id]));
    }
    std::map<uint32_t, std::vector<uint8_t>> unmask = server.Close();
    if (server.Failed())
    {
        return out;
    }
    for (const auto& [id, msg] : unmask)
    {
        out.sizes["unmask"][id] = msg.size();
        if (dropAfterMasked.count(id))
        {
            server.Lost(id);
            continue;
        }
        const std::vector<uint8_t> reply = clients.at(id).Unmask(msg);
        out.sizes["unmask_shares"][id] = reply.size();
        EXPECT_TRUE(server.Accept(id, reply));
    }
    EXPECT_TRUE(server.Close().empty());
    return out;
}

std::vector<uint64_t>
PlainSum(const Outcome& out, const std::vector<uint32_t>& who, uint64_t fieldMask)
{
    std::vector<uint64_t> sum(out.inputs.begin()->second.size(), 0);
    for (uint32_t id : who)
    {
        for (size_t i = 0; i < sum.size(); ++i)
        {
            sum[i] = (sum[i] + out.inputs.at(id)[i]) & fieldMask;
        }
    }
    return sum;
}

SecAggSetup
MakeSetup(uint32_t shares, uint32_t threshold, uint32_t bits)
{
    SecAggSetup setup;
    setup.shares = shares;
    setup.threshold = threshold;
    setup.bits = bits;
    return setup;
}

TEST(SecAggProtocol, SumEqualsPlainSumWithoutDropouts)
{
    for (uint32_t bits : {32u, 20u, 64u})
    {
        const SecAggSetup setup = MakeSetup(7, 4, bits); // complete graph of 7
        Outcome out = RunAggregation(setup, 7, 50, {}, {}, {});
        ASSERT_EQ(out.server->Current(), Stage::Done) << out.server->Failure();
        const std::vector<uint32_t> all = out.server->Survivors();
        EXPECT_EQ(all.size(), 7u);
        EXPECT_EQ(out.server->Sum(), PlainSum(out, all, setup.FieldMask())) << bits;
        // The masks are there: no client's masked vector is its input.
        for (const auto& [id, bytes] : out.masked)
        {
            std::vector<uint8_t> plain;
            PutU32(plain, 50);
            PackBits(out.inputs[id], bits, plain);
            EXPECT_NE(bytes, plain) << id;
        }
    }
}

TEST(SecAggProtocol, SecAggPlusSumWithSparseGraph)
{
    const SecAggSetup setup = MakeSetup(3, 2, 32); // ring: two neighbours each
    Outcome out = RunAggregation(setup, 9, 40, {}, {}, {});
    ASSERT_EQ(out.server->Current(), Stage::Done) << out.server->Failure();
    EXPECT_EQ(out.server->Sum(), PlainSum(out, out.server->Survivors(), setup.FieldMask()));
    for (uint32_t id : out.server->Survivors())
    {
        EXPECT_EQ(out.server->Neighbours(id).size(), 2u);
    }
}

TEST(SecAggProtocol, DropoutsAfterShareKeysAreUnmasked)
{
    const SecAggSetup setup = MakeSetup(5, 3, 32);
    // 19 and 31 shared their keys and left: survivors hold masks with them, rebuilt from
    // their mask keys' shares.
    Outcome out = RunAggregation(setup, 8, 64, {}, {19, 31}, {});
    ASSERT_EQ(out.server->Current(), Stage::Done) << out.server->Failure();
    EXPECT_EQ(out.server->DroppedAfterSharing(), (std::vector<uint32_t>{19, 31}));
    const std::vector<uint32_t> alive = out.server->Survivors();
    EXPECT_EQ(alive.size(), 6u);
    EXPECT_EQ(out.server->Sum(), PlainSum(out, alive, setup.FieldMask()));
}

TEST(SecAggProtocol, DropoutsAfterMaskedInputStillCount)
{
    const SecAggSetup setup = MakeSetup(7, 3, 32);
    // 16 and 28 sent their masked vector and left before unmasking: their inputs are in the
    // sum, their self-masks rebuilt from the others' shares.
    Outcome out = RunAggregation(setup, 7, 33, {}, {13}, {16, 28});
    ASSERT_EQ(out.server->Current(), Stage::Done) << out.server->Failure();
    const std::vector<uint32_t> alive = out.server->Survivors();
    EXPECT_EQ(alive, (std::vector<uint32_t>{10, 16, 19, 22, 25, 28}));
    EXPECT_EQ(out.server->Sum(), PlainSum(out, alive, setup.FieldMask()));
}

TEST(SecAggProtocol, BelowThresholdFailsCleanly)
{
    // Too few advertise.
    Outcome a = RunAggregation(MakeSetup(5, 4, 32), 5, 8, {10, 13}, {}, {});
    EXPECT_TRUE(a.server->Failed());
    EXPECT_EQ(a.server->Failure(), "3 clients advertised keys, below the threshold 4");
    // Too few masked inputs.
    Outcome b = RunAggregation(MakeSetup(5, 4, 32), 5, 8, {}, {10, 13}, {});
    EXPECT_TRUE(b.server->Failed());
    EXPECT_EQ(b.server->Failure(), "3 clients sent masked inputs, below the threshold 4");
    // Enough masked inputs, too few shares for a self-mask: 4 of 6 survive, 2 answer.
    Outcome c = RunAggregation(MakeSetup(7, 4, 32), 6, 8, {}, {10, 13}, {16, 19});
    EXPECT_TRUE(c.server->Failed());
    EXPECT_NE(c.server->Failure().find("below the threshold 4"), std::string::npos);
    EXPECT_TRUE(c.server->Sum().empty());
}

TEST(SecAggProtocol, MessageSizesFollowTheFormulas)
{
    const SecAggSetup setup = MakeSetup(5, 3, 24);
    const size_t elements = 101;
    Outcome out = RunAggregation(setup, 9, elements, {}, {22}, {});
    ASSERT_EQ(out.server->Current(), Stage::Done) << out.server->Failure();
    for (const auto& [id, size] : out.sizes["advertise"])
    {
        EXPECT_EQ(size, AdvertiseBytes());
        EXPECT_EQ(size, 430u); // Flower: two PEM P-384 keys
        const size_t k = out.server->Neighbours(id).size();
        EXPECT_EQ(k, 4u);
        EXPECT_EQ(out.sizes["keys"][id], KeysBytes(k));
        EXPECT_EQ(out.sizes["share_keys"][id], ShareKeysBytes(k));
        EXPECT_EQ(out.sizes["shares"][id], ShareKeysBytes(k)); // every neighbour shared
    }
    for (const auto& [id, size] : out.sizes["masked"])
    {
        EXPECT_EQ(size, MaskedBytes(elements, 24));
        EXPECT_EQ(size, 4u + (101u * 24u + 7u) / 8u);
    }
    for (const auto& [id, size] : out.sizes["unmask_shares"])
    {
        // Seeds of the survivors among itself and its neighbours, keys of its dropped ones.
        size_t seeds = 1;
        size_t keys = 0;
        for (uint32_t v : out.server->Neighbours(id))
        {
            (v == 22 ? keys : seeds) += 1;
        }
        EXPECT_EQ(out.sizes["unmask"][id], UnmaskBytes(seeds, keys));
        EXPECT_EQ(size, UnmaskSharesBytes(seeds, keys));
    }
}

TEST(SecAggProtocol, AnHonestClientNeverRevealsBothSecrets)
{
    const SecAggSetup setup = MakeSetup(3, 2, 16);
    SecAggServer server(setup, 4);
    SecAggClient a(1, setup, Rng(1, 1));
    SecAggClient b(2, setup, Rng(1, 2));
    SecAggClient c(3, setup, Rng(1, 3));
    server.Begin({1, 2, 3}, 1);
    server.Accept(1, a.AdvertiseKeys());
    server.Accept(2, b.AdvertiseKeys());
    server.Accept(3, c.AdvertiseKeys());
    auto keys = server.Close();
    server.Accept(1, a.ShareKeys(keys[1]));
    server.Accept(2, b.ShareKeys(keys[2]));
    server.Accept(3, c.ShareKeys(keys[3]));
    auto relay = server.Close();
    a.AcceptShares(relay[1]);
    (void)a.MaskInput({1, 2, 3, 4});
    // A malicious request naming 2 as both survivor and dropped, and 3 as dropped.
    std::vector<uint8_t> request;
    PutU32(request, 2);
    PutU32(request, 1);
    PutU32(request, 2);
    PutU32(request, 2);
    PutU32(request, 2);
    PutU32(request, 3);
    const std::vector<uint8_t> reply = a.Unmask(request);
    PayloadReader in(reply, "reply");
    ASSERT_EQ(in.U32(), 2u); // its own seed share and 3's key share; nothing of 2
    EXPECT_EQ(in.U32(), 1u);
    EXPECT_EQ(in.U8(), uint8_t(ShareKind::SelfMaskSeed));
    in.Bytes(kSeedShareBytes);
    EXPECT_EQ(in.U32(), 3u);
    EXPECT_EQ(in.U8(), uint8_t(ShareKind::MaskKey));
}

TEST(SecAggProtocol, OutOfOrderAndMalformedMessagesAreRefused)
{
    const SecAggSetup setup = MakeSetup(3, 2, 16);
    SecAggClient a(1, setup, Rng(1, 1));
    EXPECT_THROW(a.MaskInput({1}), DecodeError);
    SecAggServer server(setup, 4);
    server.Begin({1, 2}, 1);
    EXPECT_THROW(server.Accept(1, std::vector<uint8_t>(10, 0)), DecodeError);
    EXPECT_FALSE(server.Accept(7, std::vector<uint8_t>(430, 0))); // not in the cohort
    EXPECT_EQ(DecodeSetup(EncodeSetup(setup)).threshold, 2u);
}

TEST(SecAggQuantize, WeightedMeanFromTheFieldSum)
{
    const uint64_t q = 1u << 22;
    const double c = 8.0;
    const std::vector<std::vector<float>> updates{{0.5f, -1.0f, 2.0f}, {0.25f, 0.0f, -3.0f}};
    const std::vector<uint64_t> examples{600, 300};
    std::vector<uint64_t> sum(4, 0);
    Rng rng(1, 0);
    for (size_t k = 0; k < 2; ++k)
    {
        const uint64_t w = WeightInteger(examples[k], 1000.0, q);
        EXPECT_EQ(w, uint64_t(std::nearbyint(examples[k] / 1000.0 * q)));
        const std::vector<uint64_t> v = Quantize(updates[k], w, c, q, rng);
        ASSERT_EQ(v.size(), 4u);
        EXPECT_EQ(v[0], w);
        for (size_t i = 0; i < 4; ++i)
        {
            EXPECT_LE(v[i] - (i == 0 ? 0 : 0), i == 0 ? w : q);
            sum[i] = (sum[i] + v[i]) & 0xffffffffu;
        }
    }
    const std::vector<float> mean = Dequantize(sum, 2, c, q);
    for (size_t i = 0; i < 3; ++i)
    {
        const double want = (600 * updates[0][i] + 300 * updates[1][i]) / 900.0;
        EXPECT_NEAR(mean[i], want, 2 * 2 * c / q / 0.3) << i; // a level each, over the weight
    }
    // Clipping at c: a value beyond it comes back as c.
    Rng one(2, 0);
    const std::vector<uint64_t> v = Quantize(std::vector<float>{100.0f}, q, c, q, one);
    EXPECT_EQ(v[1], q);
    const std::vector<float> back = Dequantize(v, 1, c, q);
    EXPECT_FLOAT_EQ(back[0], float(c));
}

TEST(SecAggQuantize, SharedSupportIsKDistinctPositions)
{
    const std::vector<uint32_t> s = SharedSupport(1000, 37, 5);
    EXPECT_EQ(s.size(), 37u);
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
    EXPECT_EQ(std::set<uint32_t>(s.begin(), s.end()).size(), 37u);
    EXPECT_EQ(SharedSupport(1000, 37, 5), s);
    EXPECT_NE(SharedSupport(1000, 37, 6), s);
    EXPECT_EQ(SharedSupport(10, 20, 1).size(), 10u);
}

} // namespace
} // namespace fedran::secagg
