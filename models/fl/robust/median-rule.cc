// "median": the coordinate-wise median (Yin et al. 2018). Per coordinate, the middle value
// of the n updates (n even: the mean of the two middle ones). Sample counts do not count: a
// Byzantine client could claim any. aggregate_weight: the share of the coordinates where the
// client's value was the median (half a coordinate each for the two middle values).

#include "models/fl/robust/buffered-rule.h"

#include <algorithm>

namespace fedran::robust
{
namespace
{

class MedianRule final : public BufferedRule
{
  public:
    // Per coordinate: gather the n values and select the middle one(s).
    double ResultWork(size_t count, size_t size) const override
    {
        return double(count) * double(size);
    }

  private:
    void Combine(std::span<float> out, std::vector<double>& weights) override
    {
        const size_t n = Count();
        std::vector<std::pair<float, uint32_t>> column(n);
        std::vector<double> held(n, 0.0);
        for (size_t j = 0; j < Size(); ++j)
        {
            for (size_t i = 0; i < n; ++i)
            {
                column[i] = {Update(i)[j], static_cast<uint32_t>(i)};
            }
            const auto middle = column.begin() + n / 2;
            std::nth_element(column.begin(), middle, column.end(), OrderedBefore);
            if (n % 2 == 1)
            {
                out[j] = middle->first;
                held[middle->second] += 1.0;
            }
            else
            {
                const auto lower = std::max_element(column.begin(), middle, OrderedBefore);
                out[j] = static_cast<float>((double(lower->first) + double(middle->first)) / 2.0);
                held[lower->second] += 0.5;
                held[middle->second] += 0.5;
            }
        }
        for (size_t i = 0; i < n; ++i)
        {
            weights[i] = held[i] / double(Size());
        }
    }
};

} // namespace
} // namespace fedran::robust

namespace fedran
{

std::unique_ptr<AggregationRule>
MakeMedianRule(RuleArgs&)
{
    return std::make_unique<robust::MedianRule>();
}

} // namespace fedran
