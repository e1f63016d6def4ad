#include "compression/internal/sparsity-warmup.h"

#include "compression/internal/codec-params.h"
#include "compression/portable-math.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedran::internal
{

namespace
{

constexpr double kStageFactor = 0.25; ///< density of stage 1; stage s has 0.25^s

} // namespace

SparsityWarmup
SparsityWarmup::FromArgs(CodecArgs& args, uint32_t defaultRounds)
{
    return FromArgs(args, "warmup_rounds", defaultRounds);
}

SparsityWarmup
SparsityWarmup::FromArgs(CodecArgs& args, const std::string& lengthKey, uint32_t defaultLength)
{
    const uint32_t rounds = TakeCount(args, lengthKey).value_or(defaultLength);
    const std::optional<uint32_t> stages = TakeCount(args, "warmup_stages");
    if (stages && (*stages < 1 || *stages > std::max(rounds, 1u)))
    {
        args.Fail("warmup_stages",
                  "must be an integer in [1, " + lengthKey + " = " + std::to_string(rounds) +
                      "], got " + std::to_string(*stages));
    }
    return SparsityWarmup(rounds, rounds == 0 ? 0 : stages.value_or(rounds));
}

SparsityWarmup::SparsityWarmup(uint32_t rounds, uint32_t stages)
    : m_rounds(rounds)
    , m_stages(stages)
{
    if (rounds > 0 && (stages < 1 || stages > rounds))
    {
        throw std::invalid_argument("warm-up stages must be in [1, rounds]");
    }
}

double
SparsityWarmup::MinDensity(uint32_t round) const
{
    if (round == 0 || round > m_rounds)
    {
        return 0.0;
    }
    const uint64_t stage = (uint64_t{round} * m_stages + m_rounds - 1) / m_rounds;
    return pmath::Pow(kStageFactor, static_cast<double>(stage));
}

double
SparsityWarmup::Density(double ratio, uint32_t round) const
{
    return std::max(ratio, MinDensity(round));
}

} // namespace fedran::internal
