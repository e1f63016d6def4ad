#include "models/fl/secagg/secagg-client.h"

#include "compression/codec.h"
#include "models/fl/secagg/secagg-math.h"

#include <algorithm>
#include <set>
#include <string>

namespace fedran::secagg
{

namespace
{

void
Expect(int stage, int wanted, const char* what)
{
    if (stage != wanted)
    {
        throw DecodeError(std::string("secagg client: ") + what + " out of order", 0);
    }
}

} // namespace

SecAggClient::SecAggClient(uint32_t id, SecAggSetup setup, Rng rng)
    : m_id(id)
    , m_setup(setup)
    , m_rng(rng)
{
}

std::vector<uint8_t>
SecAggClient::AdvertiseKeys()
{
    Expect(m_stage, 0, "AdvertiseKeys");
    m_stage = 1;
    m_encryptionSk = DrawFieldElement(m_rng);
    m_maskSk = DrawFieldElement(m_rng);
    std::vector<uint8_t> out;
    PutPadded(out, PublicKey(m_encryptionSk), kPublicKeyBytes);
    PutPadded(out, PublicKey(m_maskSk), kPublicKeyBytes);
    return out;
}

std::vector<uint8_t>
SecAggClient::ShareKeys(std::span<const uint8_t> keys)
{
    Expect(m_stage, 1, "Keys");
    m_stage = 2;
    PayloadReader in(keys, "keys");
    const uint32_t n = in.U32();
    if (n > in.Remaining() / (4 + 2 * kPublicKeyBytes))
    {
        throw DecodeError("secagg keys: count beyond the payload", 0);
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t id = in.U32();
        Peer peer;
        peer.encryptionPk = in.Padded(kPublicKeyBytes);
        peer.maskPk = in.Padded(kPublicKeyBytes);
        if (id == m_id || !m_peers.emplace(id, peer).second)
        {
            throw DecodeError("secagg keys: itself or a repeated neighbour", 0);
        }
    }
    in.End();
    if (m_setup.threshold > m_peers.size() + 1)
    {
        throw DecodeError("secagg keys: fewer neighbours than the threshold", 0);
    }
    // Shares of both secrets at every neighbour's abscissa and its own.
    std::vector<uint64_t> xs;
    for (const auto& [id, peer] : m_peers)
    {
        xs.push_back(ShareX(id));
    }
    xs.push_back(ShareX(m_id));
    m_seed = DrawFieldElement(m_rng);
    const std::vector<uint64_t> keyShares = ShamirSplit(m_maskSk, m_setup.threshold, xs, m_rng);
    const std::vector<uint64_t> seedShares = ShamirSplit(m_seed, m_setup.threshold, xs, m_rng);
    m_ownKeyShare = keyShares.back();
    m_ownSeedShare = seedShares.back();

    std::vector<uint8_t> out;
    PutU32(out, static_cast<uint32_t>(m_peers.size()));
    size_t i = 0;
    for (const auto& [id, peer] : m_peers)
    {
        std::vector<uint8_t> plain;
        PutU32(plain, m_id);
        PutU32(plain, id);
        PutU64(plain, keyShares[i]);
        PutU64(plain, seedShares[i]);
        plain.resize(kCiphertextBytes, 0); // Fernet's and the encodings' overhead
        XorKeystream(plain, AgreeKey(m_encryptionSk, peer.encryptionPk));
        PutU32(out, id);
        out.insert(out.end(), plain.begin(), plain.end());
        ++i;
    }
    return out;
}

void
SecAggClient::AcceptShares(std::span<const uint8_t> shares)
{
    Expect(m_stage, 2, "Shares");
    m_stage = 3;
    PayloadReader in(shares, "shares");
    const uint32_t n = in.U32();
    if (n > in.Remaining() / (4 + kCiphertextBytes))
    {
        throw DecodeError("secagg shares: count beyond the payload", 0);
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t from = in.U32();
        const std::span<const uint8_t> cipher = in.Bytes(kCiphertextBytes);
        const auto it = m_peers.find(from);
        if (it == m_peers.end() || it->second.shared)
        {
            throw DecodeError("secagg shares: from a non-neighbour or twice", 0);
        }
        std::vector<uint8_t> plain(cipher.begin(), cipher.end());
        XorKeystream(plain, AgreeKey(m_encryptionSk, it->second.encryptionPk));
        PayloadReader body(std::span<const uint8_t>(plain), "ciphertext");
        const uint32_t src = body.U32();
        const uint32_t dst = body.U32();
        const uint64_t keyShare = body.U64();
        const uint64_t seedShare = body.U64();
        // Decrypted under the wrong key, the filler would not be zeros: a cheap integrity check.
        const std::span<const uint8_t> filler =
            body.Bytes(kCiphertextBytes - kCiphertextPlainBytes);
        const bool clean =
            std::all_of(filler.begin(), filler.end(), [](uint8_t b) { return b == 0; });
        if (src != from || dst != m_id || !clean)
        {
            throw DecodeError("secagg shares: ciphertext for another pair", 0);
        }
        it->second.shared = true;
        it->second.keyShare = keyShare;
        it->second.seedShare = seedShare;
    }
    in.End();
}

std::vector<uint8_t>
SecAggClient::MaskInput(std::vector<uint64_t> values)
{
    Expect(m_stage, 3, "MaskInput");
    m_stage = 4;
    const uint64_t fieldMask = m_setup.FieldMask();
    ApplyMask(values, m_seed, kSelfMaskStream, +1, fieldMask);
    for (const auto& [id, peer] : m_peers)
    {
        if (peer.shared)
        {
            ApplyMask(values,
                      AgreeKey(m_maskSk, peer.maskPk),
                      kPairMaskStream,
                      m_id < id ? +1 : -1,
                      fieldMask);
        }
    }
    std::vector<uint8_t> out;
    PutU32(out, static_cast<uint32_t>(values.size()));
    PackBits(values, m_setup.bits, out);
    return out;
}

std::vector<uint8_t>
SecAggClient::Unmask(std::span<const uint8_t> request)
{
    Expect(m_stage, 4, "Unmask");
    m_stage = 5;
    PayloadReader in(request, "unmask");
    std::vector<uint32_t> survivors;
    std::vector<uint32_t> dropped;
    for (std::vector<uint32_t>* list : {&survivors, &dropped})
    {
        const uint32_t n = in.U32();
        if (n > in.Remaining() / 4)
        {
            throw DecodeError("secagg unmask: count beyond the payload", 0);
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            list->push_back(in.U32());
        }
    }
    in.End();
    const std::set<uint32_t> alive(survivors.begin(), survivors.end());
    std::vector<uint8_t> entries;
    uint32_t count = 0;
    for (uint32_t id : survivors)
    {
        if (std::count(dropped.begin(), dropped.end(), id))
        {
            continue; // asked for both of one client's secrets: refuse both
        }
        const auto it = m_peers.find(id);
        if (id != m_id && (it == m_peers.end() || !it->second.shared))
        {
            continue;
        }
        PutU32(entries, id);
        entries.push_back(static_cast<uint8_t>(ShareKind::SelfMaskSeed));
        PutPadded(entries, id == m_id ? m_ownSeedShare : it->second.seedShare, kSeedShareBytes);
        ++count;
    }
    for (uint32_t id : dropped)
    {
        const auto it = m_peers.find(id);
        if (id == m_id || alive.count(id) || it == m_peers.end() || !it->second.shared)
        {
            continue;
        }
        PutU32(entries, id);
        entries.push_back(static_cast<uint8_t>(ShareKind::MaskKey));
        PutPadded(entries, it->second.keyShare, kKeyShareBytes);
        ++count;
    }
    std::vector<uint8_t> out;
    PutU32(out, count);
    out.insert(out.end(), entries.begin(), entries.end());
    return out;
}

std::vector<uint32_t>
SecAggClient::MaskPeers() const
{
    std::vector<uint32_t> out;
    for (const auto& [id, peer] : m_peers)
    {
        if (peer.shared)
        {
            out.push_back(id);
        }
    }
    return out;
}

} // namespace fedran::secagg
