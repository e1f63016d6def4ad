#include "simulator/csv-writer.h"

#include <cstdio>
#include <stdexcept>

namespace fedran
{

CsvWriter::CsvWriter(const std::string& path, const std::vector<std::string>& columns)
    : m_path(path),
      m_out(path, std::ios::binary | std::ios::trunc),
      m_columnNames(columns),
      m_columns(columns.size())
{
    if (!m_out)
    {
        throw std::runtime_error("cannot write " + path);
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
    m_out << m_row;
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
    m_out.flush();
    if (!m_out)
    {
        throw std::runtime_error("error writing " + m_path);
    }
}

} // namespace fedran
