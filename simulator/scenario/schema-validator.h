#ifndef FEDRAN_SIMULATOR_SCENARIO_SCHEMA_VALIDATOR_H
#define FEDRAN_SIMULATOR_SCENARIO_SCHEMA_VALIDATOR_H

// A validator for the subset of JSON Schema (draft 2020-12) that scenario.schema.json uses,
// which also fills defaults. A general-purpose validator library would be a new dependency
// and would neither fill defaults nor produce the path-first messages users get here.
//
// Keywords: type (integer accepts integral floats such as 3.0 and rewrites them as
// integers), enum, minimum, exclusiveMinimum, maximum, exclusiveMaximum, minLength,
// format ("data-rate", "time"; other formats are annotations), properties, required,
// additionalProperties (false, or true/absent), items, minItems, default, const, local $ref
// ("#/..."), and oneOf with an OpenAPI-style "discriminator" (each branch names its value of
// the discriminating property with "const"; the instance is checked against that branch only,
// so errors name the branch's keys instead of listing every branch's failures). Keywords next
// to a $ref take precedence over the referenced schema's, which is the same as JSON Schema's
// conjunction for the way the scenario schema uses them.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fedran
{

class SchemaValidator
{
  public:
    /// `schema` must outlive the validator: $ref is resolved against it.
    explicit SchemaValidator(const nlohmann::json& schema);

    /**
     * Checks `instance` and fills absent keys in place: a property with a "default" gets it,
     * and an absent object without required keys is created so that its own defaults are
     * filled. Returns one line per problem (all of them, not just the first), each starting
     * with the dotted JSON path ("clients.groups.0.backhaul.rate: ..."), or "(root)".
     * Throws only ScenarioError, and only for a broken schema.
     */
    std::vector<std::string> Validate(nlohmann::json& instance) const;

  private:
    using Errors = std::vector<std::string>;

    void ValidateNode(nlohmann::json& node,
                      const nlohmann::json& schema,
                      const std::string& path,
                      Errors& errors) const;
    /// False when the node has none of the allowed types (then nothing else is checked).
    bool CheckType(nlohmann::json& node,
                   const nlohmann::json& schema,
                   const std::string& path,
                   Errors& errors) const;
    void CheckEnum(const nlohmann::json& node,
                   const nlohmann::json& schema,
                   const std::string& path,
                   Errors& errors) const;
    void CheckNumber(const nlohmann::json& node,
                     const nlohmann::json& schema,
                     const std::string& path,
                     Errors& errors) const;
    void CheckString(const nlohmann::json& node,
                     const nlohmann::json& schema,
                     const std::string& path,
                     Errors& errors) const;
    void CheckObject(nlohmann::json& node,
                     const nlohmann::json& schema,
                     const std::string& path,
                     Errors& errors) const;
    /// oneOf + discriminator: picks the branch by the discriminating property (filling it
    /// from the one branch that gives it a default) and validates the node against it.
    void CheckOneOf(nlohmann::json& node,
                    const nlohmann::json& schema,
                    const std::string& path,
                    Errors& errors) const;
    void CheckArray(nlohmann::json& node,
                    const nlohmann::json& schema,
                    const std::string& path,
                    Errors& errors) const;

    /// The keyword in `schema`, else in the schema its $ref points to; nullptr if neither.
    const nlohmann::json* Keyword(const nlohmann::json& schema, const char* name) const;

    const nlohmann::json& m_root;
};

} // namespace fedran

#endif
