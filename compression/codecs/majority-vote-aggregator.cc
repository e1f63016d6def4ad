// The server side of signSGD with majority vote (Bernstein et al., ICLR 2019), as chosen by
// {"type": "sign", "aggregation": "majority_vote"}.
//
// Result per element i over the n updates added since Reset:
//     sign(sum_k sign(u_k[i])) * (sum_k |u_k[i]|) / n,   sign(0) = 0,
// i.e. the voted sign times the clients' mean scale (each decoded sign update is +-scale_k).
// Votes are unweighted, as in the paper: one client, one vote, whatever its sample count; a
// tie (including an element every client sent as 0) gives 0. Tallies are exact integers and
// magnitudes are summed in double in the order of Add calls, so the result is deterministic.

#include "compression/codec.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace fedran
{

namespace
{

class MajorityVoteAggregator : public Aggregator
{
  public:
    void Reset(size_t size) override
    {
        m_votes.assign(size, 0);
        m_magnitude.assign(size, 0.0);
        m_count = 0;
    }

    void Add(std::span<const float> decoded, double weight) override
    {
        if (decoded.size() != m_votes.size())
        {
            throw std::invalid_argument("Aggregator::Add: update has the wrong size");
        }
        // The weight does not count, but a non-positive one is still a caller bug.
        if (!(weight > 0.0))
        {
            throw std::invalid_argument("Aggregator::Add: weight must be positive");
        }
        for (size_t i = 0; i < decoded.size(); ++i)
        {
            const float value = decoded[i];
            m_votes[i] += static_cast<int32_t>(value > 0.0f) - static_cast<int32_t>(value < 0.0f);
            m_magnitude[i] += std::fabs(static_cast<double>(value));
        }
        ++m_count;
    }

    size_t Count() const override
    {
        return m_count;
    }

    void Result(std::span<float> out) const override
    {
        if (out.size() != m_votes.size())
        {
            throw std::invalid_argument("Aggregator::Result: output has the wrong size");
        }
        const double inv = m_count == 0 ? 0.0 : 1.0 / static_cast<double>(m_count);
        for (size_t i = 0; i < out.size(); ++i)
        {
            const int32_t vote = m_votes[i];
            const double mean = m_magnitude[i] * inv;
            out[i] = vote == 0 ? 0.0f : static_cast<float>(vote > 0 ? mean : -mean);
        }
    }

  private:
    std::vector<int32_t> m_votes;
    std::vector<double> m_magnitude;
    size_t m_count = 0;
};

} // namespace

std::unique_ptr<Aggregator>
MakeMajorityVoteAggregator()
{
    return std::make_unique<MajorityVoteAggregator>();
}

} // namespace fedran
