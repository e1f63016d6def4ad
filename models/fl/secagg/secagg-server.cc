#include "models/fl/secagg/secagg-server.h"

#include "compression/codec.h"
#include "compression/rng.h"
#include "models/fl/secagg/secagg-graph.h"
#include "models/fl/secagg/secagg-math.h"

#include <algorithm>

namespace fedran::secagg
{

const char*
StageName(Stage stage)
{
    switch (stage)
    {
        case Stage::Idle:
            return "idle";
        case Stage::Advertise:
            return "advertise_keys";
        case Stage::Share:
            return "share_keys";
        case Stage::Masked:
            return "masked_input";
        case Stage::Unmask:
            return "unmask";
        case Stage::Done:
            return "done";
        case Stage::Failed:
            return "failed";
    }
    return "?";
}

SecAggServer::SecAggServer(SecAggSetup setup, size_t elements)
    : m_setup(setup)
    , m_elements(elements)
{
}

void
SecAggServer::Begin(const std::vector<uint32_t>& cohort, uint64_t graphSeed)
{
    m_stage = Stage::Advertise;
    m_graphSeed = graphSeed;
    m_waiting = std::set<uint32_t>(cohort.begin(), cohort.end());
}

bool
SecAggServer::Accept(uint32_t client, std::span<const uint8_t> payload)
{
    if (!m_waiting.count(client))
    {
        return false;
    }
    switch (m_stage)
    {
        case Stage::Advertise: {
            PayloadReader in(payload, "advertise");
            ClientKeys keys;
            keys.encryptionPk = in.Padded(kPublicKeyBytes);
            keys.maskPk = in.Padded(kPublicKeyBytes);
            in.End();
            m_keys[client] = keys;
            break;
        }
        case Stage::Share: {
            PayloadReader in(payload, "share_keys");
            const uint32_t n = in.U32();
            const std::vector<uint32_t>& mine = m_neighbours.at(client);
            if (n != mine.size())
            {
                throw DecodeError("secagg share_keys: not one ciphertext per neighbour", 0);
            }
            std::map<std::pair<uint32_t, uint32_t>, std::vector<uint8_t>> got;
            for (uint32_t i = 0; i < n; ++i)
            {
                const uint32_t to = in.U32();
                const std::span<const uint8_t> c = in.Bytes(kCiphertextBytes);
                if (!std::binary_search(mine.begin(), mine.end(), to) ||
                    !got.emplace(std::make_pair(client, to),
                                 std::vector<uint8_t>(c.begin(), c.end()))
                         .second)
                {
                    throw DecodeError("secagg share_keys: to a non-neighbour or twice", 0);
                }
            }
            in.End();
            m_ciphertexts.merge(got);
            m_shared.insert(client);
            break;
        }
        case Stage::Masked: {
            PayloadReader in(payload, "masked_input");
            const uint32_t count = in.U32();
            if (count != m_elements)
            {
                throw DecodeError("secagg masked_input: " + std::to_string(count) +
                                      " elements, not " + std::to_string(m_elements),
                                  0);
            }
            m_masked[client] = UnpackBits(in.Bytes(in.Remaining()), count, m_setup.bits);
            break;
        }
        case Stage::Unmask: {
            PayloadReader in(payload, "unmask_shares");
            const uint32_t n = in.U32();
            std::vector<std::pair<uint32_t, std::pair<ShareKind, uint64_t>>> got;
            for (uint32_t i = 0; i < n; ++i)
            {
                const uint32_t owner = in.U32();
                const auto kind = static_cast<ShareKind>(in.U8());
                if (kind == ShareKind::SelfMaskSeed)
                {
                    got.push_back({owner, {kind, in.Padded(kSeedShareBytes)}});
                }
                else if (kind == ShareKind::MaskKey)
                {
                    got.push_back({owner, {kind, in.Padded(kKeyShareBytes)}});
                }
                else
                {
                    throw DecodeError("secagg unmask_shares: unknown share kind", 0);
                }
            }
            in.End();
            for (const auto& [owner, share] : got)
            {
                auto& bucket = share.first == ShareKind::SelfMaskSeed ? m_seedShares[owner]
                                                                      : m_keyShares[owner];
                bucket.emplace_back(ShareX(client), share.second);
            }
            break;
        }
        default:
            return false;
    }
    m_waiting.erase(client);
    return true;
}

void
SecAggServer::Lost(uint32_t client)
{
    m_waiting.erase(client);
}

void
SecAggServer::Fail(const std::string& why)
{
    m_stage = Stage::Failed;
    m_failure = why;
    m_waiting.clear();
}

std::map<uint32_t, std::vector<uint8_t>>
SecAggServer::Close()
{
    std::map<uint32_t, std::vector<uint8_t>> out;
    m_waiting.clear();
    const auto tooFew = [this](size_t have, const char* what) {
        Fail(std::to_string(have) + " clients " + what + ", below the threshold " +
             std::to_string(m_setup.threshold));
    };
    switch (m_stage)
    {
        case Stage::Advertise: {
            if (m_keys.size() < m_setup.threshold)
            {
                tooFew(m_keys.size(), "advertised keys");
                return out;
            }
            std::vector<uint32_t> u1;
            for (const auto& [id, keys] : m_keys)
            {
                u1.push_back(id);
            }
            Rng shuffle(m_graphSeed, 0);
            m_neighbours = CirculantNeighbours(
                u1,
                EffectiveShares(m_setup.shares, static_cast<uint32_t>(u1.size())),
                shuffle);
            for (uint32_t id : u1)
            {
                std::vector<uint8_t>& msg = out[id];
                PutU32(msg, static_cast<uint32_t>(m_neighbours[id].size()));
                for (uint32_t v : m_neighbours[id])
                {
                    PutU32(msg, v);
                    PutPadded(msg, m_keys[v].encryptionPk, kPublicKeyBytes);
                    PutPadded(msg, m_keys[v].maskPk, kPublicKeyBytes);
                }
            }
            m_waiting = std::set<uint32_t>(u1.begin(), u1.end());
            m_stage = Stage::Share;
            return out;
        }
        case Stage::Share: {
            if (m_shared.size() < m_setup.threshold)
            {
                tooFew(m_shared.size(), "shared keys");
                return out;
            }
            // The relay: to each client of U2, the ciphertexts of the other U2 clients.
            for (uint32_t to : m_shared)
            {
                std::vector<uint8_t> body;
                uint32_t n = 0;
                for (uint32_t from : m_neighbours[to])
                {
                    const auto it = m_ciphertexts.find({from, to});
                    if (m_shared.count(from) && it != m_ciphertexts.end())
                    {
                        PutU32(body, from);
                        body.insert(body.end(), it->second.begin(), it->second.end());
                        ++n;
                    }
                }
                std::vector<uint8_t>& msg = out[to];
                PutU32(msg, n);
                msg.insert(msg.end(), body.begin(), body.end());
            }
            m_waiting = m_shared;
            m_stage = Stage::Masked;
            return out;
        }
        case Stage::Masked: {
            if (m_masked.size() < m_setup.threshold)
            {
                tooFew(m_masked.size(), "sent masked inputs");
                return out;
            }
            // Each survivor is asked for what its neighbourhood needs: the seeds of the
            // survivors (itself included), the mask keys of the dropped.
            for (const auto& [u, vector] : m_masked)
            {
                std::vector<uint32_t> alive{u};
                std::vector<uint32_t> gone;
                for (uint32_t v : m_neighbours[u])
                {
                    if (m_masked.count(v))
                    {
                        alive.push_back(v);
                    }
                    else if (m_shared.count(v))
                    {
                        gone.push_back(v);
                    }
                }
                std::sort(alive.begin(), alive.end());
                std::vector<uint8_t>& msg = out[u];
                PutU32(msg, static_cast<uint32_t>(alive.size()));
                for (uint32_t v : alive)
                {
                    PutU32(msg, v);
                }
                PutU32(msg, static_cast<uint32_t>(gone.size()));
                for (uint32_t v : gone)
                {
                    PutU32(msg, v);
                }
                m_waiting.insert(u);
            }
            m_stage = Stage::Unmask;
            return out;
        }
        case Stage::Unmask:
            Finish();
            return out;
        default:
            return out;
    }
}

void
SecAggServer::Finish()
{
    const uint64_t fieldMask = m_setup.FieldMask();
    const uint32_t t = m_setup.threshold;
    m_sum.assign(m_elements, 0);
    for (const auto& [u, vector] : m_masked)
    {
        for (size_t i = 0; i < m_elements; ++i)
        {
            m_sum[i] = (m_sum[i] + vector[i]) & fieldMask;
        }
    }
    // Each secret from its first t shares (by abscissa, so the result does not depend on
    // the replies' order).
    const auto rebuild = [t](std::vector<std::pair<uint64_t, uint64_t>> shares) {
        std::sort(shares.begin(), shares.end());
        shares.erase(std::unique(shares.begin(), shares.end()), shares.end());
        shares.resize(t);
        return ShamirReconstruct(shares);
    };
    for (const auto& [u, vector] : m_masked)
    {
        const auto& shares = m_seedShares[u];
        if (shares.size() < t)
        {
            Fail("the self-mask of client " + std::to_string(u) + ": " +
                 std::to_string(shares.size()) + " shares, below the threshold " +
                 std::to_string(t));
            m_sum.clear();
            return;
        }
        ApplyMask(m_sum, rebuild(shares), kSelfMaskStream, -1, fieldMask);
    }
    for (uint32_t v : DroppedAfterSharing())
    {
        const auto& shares = m_keyShares[v];
        if (shares.size() < t)
        {
            Fail("the mask key of dropped client " + std::to_string(v) + ": " +
                 std::to_string(shares.size()) + " shares, below the threshold " +
                 std::to_string(t));
            m_sum.clear();
            return;
        }
        const uint64_t sk = rebuild(shares);
        if (PublicKey(sk) != m_keys[v].maskPk)
        {
            Fail("the mask key of dropped client " + std::to_string(v) +
                 " does not match its public key");
            m_sum.clear();
            return;
        }
        // Its survivors added +mask toward a larger id, -mask toward a smaller one.
        for (uint32_t u : m_neighbours[v])
        {
            if (m_masked.count(u))
            {
                ApplyMask(m_sum,
                          AgreeKey(sk, m_keys[u].maskPk),
                          kPairMaskStream,
                          u < v ? -1 : +1,
                          fieldMask);
            }
        }
    }
    m_stage = Stage::Done;
}

std::vector<uint32_t>
SecAggServer::Survivors() const
{
    std::vector<uint32_t> out;
    for (const auto& [u, vector] : m_masked)
    {
        out.push_back(u);
    }
    return out;
}

std::vector<uint32_t>
SecAggServer::DroppedAfterSharing() const
{
    std::vector<uint32_t> out;
    for (uint32_t v : m_shared)
    {
        if (!m_masked.count(v))
        {
            out.push_back(v);
        }
    }
    return out;
}

} // namespace fedran::secagg
