#ifndef FEDRAN_MODELS_LEARNING_MILAN_READER_H
#define FEDRAN_MODELS_LEARNING_MILAN_READER_H

// The Telecom Italia "SMS, Call, Internet - MI" daily files (Barlacchi et al., Sci. Data 2015,
// doi:10.1038/sdata.2015.55): one file per day, sms-call-internet-mi-YYYY-MM-DD.txt, tab-
// separated, no header, eight columns: square id, interval start (ms since the epoch, 10-minute
// steps), country code, sms-in, sms-out, call-in, call-out, internet. Empty fields are missing.

#include "models/learning/traffic-series.h"

#include <string>
#include <vector>

namespace fedran
{

/// Which columns make the signal: internet; sms-in + sms-out; call-in + call-out; all five.
enum class TrafficSignal
{
    Internet,
    Sms,
    Call,
    All,
};

/// "internet" | "sms" | "call" | "all"; throws std::invalid_argument for anything else.
TrafficSignal ParseTrafficSignal(const std::string& name);

/**
 * Reads the files in order. A (square, interval)'s value is the sum over its rows (one per
 * country code) of the signal's non-empty fields. Step 0 is the first interval of the first
 * file; the series run to the last interval seen. Every square seen gets a series.
 *
 * Missing values: a (square, interval) with no row, or whose rows leave every field of the
 * signal empty, has no value. The dataset writes no row when a square had no activity in an
 * interval (Barlacchi et al.), so such values are filled with 0 and counted in `missing`.
 *
 * Throws DataError naming file and line for a line without exactly eight fields, a field that
 * is not a number (ids and stamps: integers; the rest: non-negative decimals), a stamp that is
 * not on the 10-minute grid of the first one or precedes it, and for a file that cannot be
 * opened or a list without any data row.
 *
 * maxCells > 0 keeps only the first maxCells squares in id order (and counts only their
 * missing values).
 */
TrafficSeries ReadMilanFiles(const std::vector<std::string>& files,
                             TrafficSignal signal,
                             uint32_t maxCells = 0);

/**
 * The files named sms-call-internet-mi-*.txt in `folder`, sorted by name (that is, by date).
 * Throws DataError if the folder cannot be read or holds none.
 */
std::vector<std::string> ListMilanFiles(const std::string& folder);

} // namespace fedran

#endif
