// Suggestions for unknown keys: wrong suggestions are worse than none, so only near misses
// count.

#include "simulator/scenario/key-suggestion.h"

#include <algorithm>
#include <limits>

namespace fedran
{

namespace
{

std::string
Lower(std::string_view text)
{
    std::string lower(text);
    for (char& c : lower)
    {
        if (c >= 'A' && c <= 'Z')
        {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return lower;
}

bool
StartsWith(const std::string& text, const std::string& prefix)
{
    return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

} // namespace

size_t
EditDistance(std::string_view a, std::string_view b)
{
    // Three rolling rows: the transposition case looks two rows back.
    std::vector<size_t> before(b.size() + 1);
    std::vector<size_t> previous(b.size() + 1);
    std::vector<size_t> current(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
    {
        previous[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i)
    {
        current[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
        {
            const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
            {
                current[j] = std::min(current[j], before[j - 2] + 1);
            }
        }
        before.swap(previous);
        previous.swap(current);
    }
    return previous[b.size()];
}

std::string
NearestKey(std::string_view word, const std::vector<std::string>& candidates)
{
    const std::string lowerWord = Lower(word);
    std::string best;
    size_t bestScore = std::numeric_limits<size_t>::max();
    for (const std::string& candidate : candidates)
    {
        const std::string lowerCandidate = Lower(candidate);
        const size_t distance = EditDistance(lowerWord, lowerCandidate);
        const size_t shorter = std::min(lowerWord.size(), lowerCandidate.size());
        const bool prefix = shorter >= 3 && (StartsWith(lowerCandidate, lowerWord) ||
                                             StartsWith(lowerWord, lowerCandidate));
        // About one edit per four characters; never as many edits as the candidate is long,
        // or "x" would suggest "lr".
        const bool close = distance <= 1 + lowerWord.size() / 4 && distance < lowerCandidate.size();
        if (!prefix && !close)
        {
            continue;
        }
        // Prefix matches rank by edit distance too, so the longer "samples_per_second" loses
        // to an exact-but-for-case key.
        if (distance < bestScore)
        {
            bestScore = distance;
            best = candidate;
        }
    }
    return best;
}

} // namespace fedran
