#include "models/fl/loss-report.h"

#include "compression/codec.h"
#include "models/learning/dataset.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace fedran
{

void
AppendLossReport(std::vector<uint8_t>& payload, double loss)
{
    const uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(loss));
    for (int i = 0; i < 4; ++i)
    {
        payload.push_back(static_cast<uint8_t>(bits >> (8 * i)));
    }
}

std::span<const uint8_t>
TakeLossReport(std::span<const uint8_t> payload, double& loss)
{
    if (payload.size() < 4)
    {
        throw DecodeError("update frame: no room for the loss report a level policy needs",
                          payload.size());
    }
    const std::span<const uint8_t> report = payload.last(4);
    uint32_t bits = 0;
    for (int i = 0; i < 4; ++i)
    {
        bits |= uint32_t{report[i]} << (8 * i);
    }
    loss = std::bit_cast<float>(bits);
    return payload.first(payload.size() - 4);
}

double
ClientLoss(const FederatedTask& task, uint32_t client, std::span<const float> params)
{
    const ClientExamples examples(task, client);
    const std::vector<uint32_t>& rows = examples.Rows();
    if (rows.empty())
    {
        return 0.0;
    }
    const size_t batch = std::max<size_t>(1, task.training.batchSize);
    std::vector<float> grad(params.size());
    double sum = 0.0;
    for (size_t first = 0; first < rows.size(); first += batch)
    {
        const size_t n = std::min(batch, rows.size() - first);
        sum += double(n) * task.model->LossAndGradient(params,
                                                       examples.Data(),
                                                       std::span(rows).subspan(first, n),
                                                       grad);
    }
    return sum / double(rows.size());
}

uint64_t
LossReportExamples(const FederatedTask& task, uint32_t client)
{
    return task.Examples(client);
}

} // namespace fedran
