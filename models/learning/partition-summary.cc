#include "models/learning/partition-summary.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace fedran
{

namespace
{

std::string
QuoteCell(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
    {
        return text;
    }
    std::string quoted = "\"";
    for (char ch : text)
    {
        quoted += ch;
        if (ch == '"')
        {
            quoted += '"';
        }
    }
    return quoted + "\"";
}

void
CheckGroups(size_t clients, const std::vector<std::string>& groupOfClient)
{
    if (!groupOfClient.empty() && groupOfClient.size() != clients)
    {
        throw std::invalid_argument("WritePartitionCsv: " + std::to_string(groupOfClient.size()) +
                                    " group names for " + std::to_string(clients) + " clients");
    }
}

std::string
RowStart(size_t k, const std::vector<std::string>& groupOfClient, size_t samples)
{
    return std::to_string(k) + ',' +
           (groupOfClient.empty() ? std::string() : QuoteCell(groupOfClient[k])) + ',' +
           std::to_string(samples);
}

void
WriteWhole(const std::string& path, const std::string& text)
{
    errno = 0;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out)
    {
        const char* reason = errno != 0 ? std::strerror(errno) : "write failed";
        throw std::runtime_error("cannot write partition summary '" + path + "': " + reason);
    }
}

} // namespace

void
WritePartitionCsv(const std::string& path,
                  const std::vector<std::vector<uint32_t>>& partition,
                  std::span<const uint8_t> labels,
                  uint32_t classes,
                  const std::vector<std::string>& groupOfClient)
{
    CheckGroups(partition.size(), groupOfClient);
    // Build the whole text first, so that bad input never leaves a half-written file behind.
    std::string text = "client,group,samples";
    for (uint32_t c = 0; c < classes; ++c)
    {
        text += ",label_" + std::to_string(c);
    }
    text += '\n';
    std::vector<uint64_t> histogram(classes);
    // A forecasting dataset has no labels: only the sample counts are written.
    const bool unlabelled = classes == 0 && labels.empty();
    for (size_t k = 0; k < partition.size(); ++k)
    {
        std::fill(histogram.begin(), histogram.end(), 0);
        for (uint32_t i : unlabelled ? std::span<const uint32_t>() : partition[k])
        {
            if (i >= labels.size() || labels[i] >= classes)
            {
                throw std::invalid_argument(
                    "WritePartitionCsv: client " + std::to_string(k) + " holds index " +
                    std::to_string(i) +
                    (i >= labels.size() ? " beyond the " + std::to_string(labels.size()) + " labels"
                                        : " with label " + std::to_string(labels[i]) +
                                              " >= " + std::to_string(classes) + " classes"));
            }
            ++histogram[labels[i]];
        }
        text += RowStart(k, groupOfClient, partition[k].size());
        for (uint64_t count : histogram)
        {
            text += ',' + std::to_string(count);
        }
        text += '\n';
    }
    WriteWhole(path, text);
}

void
WriteSampleCountsCsv(const std::string& path,
                     std::span<const uint32_t> samples,
                     const std::vector<std::string>& groupOfClient)
{
    CheckGroups(samples.size(), groupOfClient);
    std::string text = "client,group,samples\n";
    for (size_t k = 0; k < samples.size(); ++k)
    {
        text += RowStart(k, groupOfClient, samples[k]) + '\n';
    }
    WriteWhole(path, text);
}

} // namespace fedran
