#include "models/fl/federated-task.h"

#include <numeric>

namespace fedran
{

ClientExamples::ClientExamples(const FederatedTask& task, uint32_t client)
    : m_data(&task.data->train)
    , m_rows(nullptr)
{
    if (!task.generated)
    {
        m_rows = &task.partition[client];
        return;
    }
    m_generated = task.generated->Train(client);
    m_generatedRows.resize(m_generated.Size());
    std::iota(m_generatedRows.begin(), m_generatedRows.end(), 0u);
    m_data = &m_generated;
    m_rows = &m_generatedRows;
}

} // namespace fedran
