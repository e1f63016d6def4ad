#ifndef FEDRAN_SIMULATOR_SCENARIO_KEY_SUGGESTION_H
#define FEDRAN_SIMULATOR_SCENARIO_KEY_SUGGESTION_H

// "did you mean ...?" for misspelt scenario keys and enum values.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fedran
{

/// Optimal-string-alignment distance: Levenshtein plus adjacent transpositions, so that
/// "raet" is one edit from "rate".
size_t EditDistance(std::string_view a, std::string_view b);

/**
 * The candidate a user most plausibly meant by `word`, or "" when none is close: a
 * case-insensitive match, a prefix of at least 3 characters either way ("deadline" for
 * "deadline_s"), or a small edit distance relative to the word's length.
 */
std::string NearestKey(std::string_view word, const std::vector<std::string>& candidates);

} // namespace fedran

#endif
