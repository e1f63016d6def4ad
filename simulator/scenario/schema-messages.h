#ifndef FEDRAN_SIMULATOR_SCENARIO_SCHEMA_MESSAGES_H
#define FEDRAN_SIMULATOR_SCENARIO_SCHEMA_MESSAGES_H

// How validation messages spell paths and values, shared by the schema validator's files so
// that every line reads the same: "clients.groups.0.name: expected string, got number 3".

#include <nlohmann/json.hpp>

#include <string>

namespace fedran::schema
{

/// "a.b" + "c" -> "a.b.c"; array indices are keys too ("groups.0").
std::string Child(const std::string& path, const std::string& key);

/// One message line: the path ("(root)" for the whole document), ": ", the message.
std::string Line(const std::string& path, const std::string& message);

/// JSON text of a value; invalid UTF-8 (possible in --set strings) is replaced, not thrown.
std::string Dump(const nlohmann::json& value);

/// "string \"fast\"", "number 2.5", "object": what a type error says was found.
std::string Describe(const nlohmann::json& value);

} // namespace fedran::schema

#endif
