#ifndef FEDRAN_MODELS_TRACE_CSV_WRITER_H
#define FEDRAN_MODELS_TRACE_CSV_WRITER_H

#include <cstdint>
#include <string>
#include <vector>

namespace fedran
{

/**
 * A tidy CSV file: a header row, then one row per record, flushed on request so that a run
 * in progress can be plotted. Numbers are formatted with fixed precision, never with the
 * locale, so the same run writes the same bytes. A run's traces take their header from the
 * column table (models/trace/trace-schema.h, OpenTrace). A row with more or fewer cells than
 * there are columns is a bug: the cell too many, EndRow after too few, or Flush in the
 * middle of a row throws std::logic_error naming the file and the column.
 */
class CsvWriter
{
  public:
    CsvWriter(const std::string& path, const std::vector<std::string>& columns);

    CsvWriter& Add(const std::string& text);
    CsvWriter& Add(uint64_t value);
    CsvWriter& Add(double value, int decimals);
    /// `digits` significant digits (printf %g), for values whose scale varies by decades.
    CsvWriter& AddSignificant(double value, int digits);
    /// An empty cell, for values that do not exist (e.g. an upload that never ended).
    CsvWriter& AddEmpty();

    /// Ends the row; throws std::logic_error unless it had as many cells as there are columns.
    void EndRow();
    /// Writes the finished rows out; throws std::logic_error in the middle of a row.
    void Flush();
    /// Flush, then fsync: the finished rows survive a crash of the machine, not only of
    /// the process (a round's end; cheap next to a round's simulation).
    void Sync();

    ~CsvWriter();
    CsvWriter(const CsvWriter&) = delete;
    CsvWriter& operator=(const CsvWriter&) = delete;

    const std::vector<std::string>& Columns() const
    {
        return m_columnNames;
    }

  private:
    void Cell(const std::string& text);
    /// `value` through printf `format`, which takes a precision then a double ("%.*f").
    CsvWriter& AddNumber(const char* format, int precision, double value);

    std::string m_path;
    int m_fd = -1;
    std::string m_pending; ///< whole rows not written out yet
    std::vector<std::string> m_columnNames;
    size_t m_columns;
    size_t m_cells = 0;
    std::string m_row;
};

} // namespace fedran

#endif
