// ParseDataRate and ParseTime: the accepted spellings and the refused ones.

#include "simulator/scenario/scenario.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace fedran
{
namespace
{

struct RateCase
{
    std::string text;
    uint64_t bps;
};

TEST(ParseDataRate, AcceptsUnitsAndSpellings)
{
    const RateCase cases[] = {
        {"50Mbps", 50'000'000},
        {"1Gbps", 1'000'000'000},
        {"1.5Mbps", 1'500'000},
        {"1.1Mbps", 1'100'000},
        {"100kbps", 100'000},
        {"100Kbps", 100'000},
        {"64kb/s", 64'000},
        {"10Mb/s", 10'000'000},
        {"2Gb/s", 2'000'000'000},
        {"9600bps", 9600},
        {"9600b/s", 9600},
        {"9600", 9600},
        {"50 Mbps", 50'000'000},
        {"  50Mbps  ", 50'000'000},
        {".5Mbps", 500'000},
        {"5.Mbps", 5'000'000},
        {"0.0015Kbps", 2}, // 1.5 bits/s rounds half up
        {"18446744073709551615", 18'446'744'073'709'551'615ULL},
        {"18446744073.709551615Gbps", 18'446'744'073'709'551'615ULL},
    };
    for (const RateCase& c : cases)
    {
        EXPECT_EQ(ParseDataRate(c.text), c.bps) << c.text;
    }
}

struct RejectCase
{
    std::string text;
    std::string reason;
};

TEST(ParseDataRate, RejectsWithReason)
{
    const RejectCase cases[] = {
        {"-5Mbps", "negative"},
        {"0Mbps", "zero"},
        {"0", "zero"},
        {"0.0001bps", "zero"},
        {"", "empty"},
        {"   ", "empty"},
        {"fast", "no number"},
        {"Mbps", "no number"},
        {"+5Mbps", "no number"},
        {"5Mbpss", "unknown unit"},
        {"5mbps", "unknown unit"},
        {"5 M bps", "unknown unit"},
        {"5e6bps", "unknown unit"},
        {"1.2.3Mbps", "unknown unit"},
        {"5MBps", "bytes"},
        {"18446744073709551616", "too large"},
        {"18446744074Gbps", "too large"},
        {"99999999999999999999999999999Gbps", "too large"},
    };
    for (const RejectCase& c : cases)
    {
        try
        {
            ParseDataRate(c.text);
            ADD_FAILURE() << "accepted \"" << c.text << "\"";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos)
                << "\"" << c.text << "\": " << e.what();
        }
    }
}

struct TimeCase
{
    std::string text;
    double seconds;
};

TEST(ParseTime, AcceptsUnits)
{
    const TimeCase cases[] = {
        {"5ms", 0.005},
        {"10ms", 0.010},
        {"2s", 2.0},
        {"1.5s", 1.5},
        {"250us", 250e-6},
        {"100ns", 100e-9},
        {"2min", 120.0},
        {"0.5min", 30.0},
        {"3", 3.0},
        {"0", 0.0},
        {"0ms", 0.0},
        {" 7 ms ", 0.007},
    };
    for (const TimeCase& c : cases)
    {
        EXPECT_DOUBLE_EQ(ParseTime(c.text), c.seconds) << c.text;
    }
}

TEST(ParseTime, RejectsWithReason)
{
    const RejectCase cases[] = {
        {"-5ms", "negative"},
        {"-0.1s", "negative"},
        {"", "empty"},
        {"soon", "no number"},
        {"5 hours", "unknown unit"},
        {"5sec", "unknown unit"},
        {"5m", "unknown unit"},
        {"nan", "no number"},
        {"inf", "no number"},
        {std::string(400, '9') + "s", "too large"},
    };
    for (const RejectCase& c : cases)
    {
        try
        {
            ParseTime(c.text);
            ADD_FAILURE() << "accepted \"" << c.text << "\"";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos)
                << "\"" << c.text << "\": " << e.what();
        }
    }
}

} // namespace
} // namespace fedran
