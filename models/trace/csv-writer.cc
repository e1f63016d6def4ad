#include "models/trace/csv-writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

namespace fedran
{

CsvWriter::CsvWriter(const std::string& path, const std::vector<std::string>& columns)
    : m_path(path)
    , m_fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644))
    , m_columnNames(columns)
    , m_columns(columns.size())
{
    if (m_fd < 0)
    {
        throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    }
    if (columns.empty())
    {
        throw std::logic_error(path + ": no columns");
    }
    for (const auto& c : columns)
    {
        Cell(c);
    }
    EndRow();
    Flush();
}

void
CsvWriter::Cell(const std::string& text)
{
    if (m_cells == m_columns)
    {
        throw std::logic_error(m_path + ": row has more than " + std::to_string(m_columns) +
                               " cells (" + m_columnNames.back() + " is the last column; extra \"" +
                               text + "\")");
    }
    if (m_cells > 0)
    {
        m_row += ',';
    }
    // Quote only what needs it (group names are user text).
    if (text.find_first_of(",\"\n") != std::string::npos)
    {
        m_row += '"';
        for (char c : text)
        {
            m_row += c;
            if (c == '"')
            {
                m_row += '"';
            }
        }
        m_row += '"';
    }
    else
    {
        m_row += text;
    }
    ++m_cells;
}

CsvWriter&
CsvWriter::Add(const std::string& text)
{
    Cell(text);
    return *this;
}

CsvWriter&
CsvWriter::Add(uint64_t value)
{
    Cell(std::to_string(value));
    return *this;
}

CsvWriter&
CsvWriter::AddNumber(const char* format, int precision, double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), format, precision, value);
    Cell(buffer);
    return *this;
}

CsvWriter&
CsvWriter::Add(double value, int decimals)
{
    return AddNumber("%.*f", decimals, value);
}

CsvWriter&
CsvWriter::AddSignificant(double value, int digits)
{
    return AddNumber("%.*g", digits, value);
}

CsvWriter&
CsvWriter::AddEmpty()
{
    Cell("");
    return *this;
}

void
CsvWriter::EndRow()
{
    if (m_cells != m_columns)
    {
        throw std::logic_error(m_path + ": row has " + std::to_string(m_cells) +
                               " cells, expected " + std::to_string(m_columns) + " (missing " +
                               m_columnNames[m_cells] + " ...)");
    }
    m_row += '\n';
    // Whole rows wait in memory until Flush writes them out in one go: a killed process
    // leaves whole rows in the file, never half of one.
    m_pending += m_row;
    m_row.clear();
    m_cells = 0;
}

void
CsvWriter::Flush()
{
    if (m_cells != 0)
    {
        throw std::logic_error(m_path + ": flushed in the middle of a row (" +
                               std::to_string(m_cells) + " of " + std::to_string(m_columns) +
                               " cells, next " + m_columnNames[m_cells] + ")");
    }
    size_t done = 0;
    while (done < m_pending.size())
    {
        const ssize_t n = ::write(m_fd, m_pending.data() + done, m_pending.size() - done);
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0)
        {
            // A full disk, a quota, an I/O error: the run ends (exit 1) naming the file.
            throw std::runtime_error("cannot write " + m_path + ": " +
                                     std::strerror(n == 0 ? EIO : errno));
        }
        done += static_cast<size_t>(n);
    }
    m_pending.clear();
}

void
CsvWriter::Sync()
{
    Flush();
    if (::fsync(m_fd) != 0)
    {
        throw std::runtime_error("cannot sync " + m_path + ": " + std::strerror(errno));
    }
}

CsvWriter::~CsvWriter()
{
    if (m_fd >= 0)
    {
        if (m_cells == 0)
        {
            try
            {
                Flush(); // whole rows not flushed yet (an ofstream would have written them)
            }
            catch (const std::exception&)
            {
            }
        }
        ::close(m_fd);
    }
}

} // namespace fedran
