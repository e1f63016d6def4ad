#ifndef FEDRAN_SIMULATOR_SCENARIO_JSON_TEXT_H
#define FEDRAN_SIMULATOR_SCENARIO_JSON_TEXT_H

// Scenario text is input from elsewhere: parsing it must end in a value or a ScenarioError
// that says where, never in a crash. Two limits come before nlohmann's parser: nesting depth
// (arrays and objects inside each other; recursive code further on, from copying to
// validation, would otherwise exhaust the stack) and numbers too large for a double.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace fedran
{

/// The deepest nesting of arrays and objects a scenario (or a --set value) may have. The
/// schema's own deepest path has 7 levels; 64 leaves room for any link trace written inline.
constexpr size_t kMaxScenarioDepth = 64;

/// Line and column (1-based, columns in bytes) of byte `offset` of `text`.
std::string TextPositionOf(const std::string& text, size_t offset);

/// The byte offset of the first bracket deeper than `limit`, or nothing.
std::optional<size_t> FindTooDeep(const std::string& text, size_t limit = kMaxScenarioDepth);

/**
 * Parses JSON text. Throws ScenarioError "<where>: line L, column C: reason" for a syntax
 * error, nesting deeper than kMaxScenarioDepth, or a number that overflows a double.
 */
nlohmann::json ParseScenarioText(const std::string& text, const std::string& where);

} // namespace fedran

#endif
