#include "compression/codec-spec.h"

#include "compression/internal/codecs.h"

#include <nlohmann/json.hpp>

namespace fedran
{

struct CodecSpec::Node
{
    std::string type;
    uint16_t wireId;
    nlohmann::json json;
    std::string path;
    const CodecTraits* traits;
    std::vector<CodecSpec> children;
    /// Where its parent read it (a JSON pointer into the parent's spec: "/base", "/ladder/0").
    nlohmann::json::json_pointer inParent;
    // What the codec built from these parameters does (asked of it once, at Parse).
    bool twoExchanges;
    bool stepMode;
    bool bringsAggregator;
    std::optional<RandomSupport> randomSupport;
};

CodecSpec
CodecSpec::Parse(const nlohmann::json& json, const std::string& path)
{
    std::unique_ptr<Codec> unused;
    return Parse(json, path, unused);
}

CodecSpec
CodecSpec::Parse(const nlohmann::json& json, const std::string& path, std::unique_ptr<Codec>& codec)
{
    internal::BuiltCodec built = internal::BuildCodec(json, path);
    auto node = std::make_shared<Node>(Node{std::string(built.codec->Name()),
                                            built.codec->Id(),
                                            json,
                                            path,
                                            built.traits,
                                            std::move(built.children),
                                            nlohmann::json::json_pointer(),
                                            built.codec->HasRoundExchange(),
                                            built.codec->StepState() != nullptr,
                                            built.codec->BringsAggregator(),
                                            built.codec->RandomSupportParameters()});
    CodecSpec spec;
    spec.m_node = std::move(node);
    codec = std::move(built.codec);
    return spec;
}

CodecSpec
CodecSpec::At(const std::string& path) const
{
    if (Empty())
    {
        return *this;
    }
    // Children keep their own paths under the new one, as Parse would have given them.
    return Parse(m_node->json, path);
}

namespace
{

[[noreturn]] void
ThrowEmpty()
{
    throw CodecConfigError("codec: no codec spec was given");
}

} // namespace

const std::string&
CodecSpec::Type() const
{
    if (Empty())
    {
        ThrowEmpty();
    }
    return m_node->type;
}

std::string
CodecSpec::Label() const
{
    std::string label = Type();
    if (!Traits().adaptive && m_node->children.size() == 1)
    {
        // Appended piece by piece: `"(" + std::string&&` trips GCC 12's -Wrestrict.
        label += '(';
        label += m_node->children.front().Label();
        label += ')';
    }
    return label;
}

const nlohmann::json::json_pointer&
CodecSpec::InParent() const
{
    if (Empty())
    {
        ThrowEmpty();
    }
    return m_node->inParent;
}

uint16_t
CodecSpec::WireId() const
{
    if (Empty())
    {
        ThrowEmpty();
    }
    return m_node->wireId;
}

const nlohmann::json&
CodecSpec::Json() const
{
    if (Empty())
    {
        ThrowEmpty();
    }
    return m_node->json;
}

const std::string&
CodecSpec::Path() const
{
    if (Empty())
    {
        ThrowEmpty();
    }
    return m_node->path;
}

const CodecTraits&
CodecSpec::Traits() const
{
    if (Empty())
    {
        ThrowEmpty();
    }
    return *m_node->traits;
}

std::span<const CodecSpec>
CodecSpec::Children() const
{
    if (Empty())
    {
        return {};
    }
    return m_node->children;
}

bool
CodecSpec::TwoExchanges() const
{
    return !Empty() && m_node->twoExchanges;
}

bool
CodecSpec::UsesStepMode() const
{
    return !Empty() && m_node->stepMode;
}

const std::optional<RandomSupport>&
CodecSpec::RandomSupportParameters() const
{
    static const std::optional<RandomSupport> kNone;
    return Empty() ? kNone : m_node->randomSupport;
}

bool
CodecSpec::BringsAggregator() const
{
    if (Empty())
    {
        return false;
    }
    if (m_node->bringsAggregator)
    {
        return true;
    }
    for (const CodecSpec& child : m_node->children)
    {
        if (child.BringsAggregator())
        {
            return true;
        }
    }
    return false;
}

std::string
CodecSpec::UnsplittableBecause() const
{
    if (Empty())
    {
        return {};
    }
    if (!m_node->traits->unsplittableBecause.empty())
    {
        return std::string(m_node->traits->unsplittableBecause);
    }
    if (m_node->stepMode)
    {
        return "its momentum and accumulation cover the whole update and are selected from at "
               "the round's end";
    }
    for (const CodecSpec& child : m_node->children)
    {
        if (std::string why = child.UnsplittableBecause(); !why.empty())
        {
            return why;
        }
    }
    return {};
}

uint32_t
CodecSpec::StateModels() const
{
    if (Empty())
    {
        return 0;
    }
    uint32_t models = m_node->traits->stateModels;
    for (const CodecSpec& child : m_node->children)
    {
        models += child.StateModels();
    }
    return models;
}

namespace
{

/// `json` (the spec at a node of `spec`'s tree) with the step modes in that tree turned off.
nlohmann::json
WithoutStepModes(const CodecSpec& spec, nlohmann::json json)
{
    if (spec.UsesStepMode())
    {
        json.merge_patch(nlohmann::json::parse(spec.Traits().stepModeOff));
    }
    const auto children = spec.Children();
    if (children.empty())
    {
        return json;
    }
    for (const CodecSpec& child : children)
    {
        const auto& at = child.InParent();
        json[at] = WithoutStepModes(child, json[at]);
    }
    return json;
}

} // namespace

CodecSpec
CodecSpec::ForFinishedUpdates() const
{
    if (Empty())
    {
        return *this;
    }
    return Parse(WithoutStepModes(*this, m_node->json), m_node->path);
}

std::unique_ptr<Codec>
MakeCodec(const CodecSpec& spec)
{
    return internal::BuildCodec(spec.Json(), spec.Path()).codec;
}

std::unique_ptr<Codec>
MakeCodec(const nlohmann::json& spec, const std::string& path)
{
    return internal::BuildCodec(spec, path).codec;
}

namespace internal
{

std::unique_ptr<Codec>
CodecArgs::BuildChild(const nlohmann::json& spec,
                      const std::string& pointer,
                      const std::string& path)
{
    std::unique_ptr<Codec> codec;
    CodecSpec child = CodecSpec::Parse(spec, path, codec);
    auto node = std::make_shared<CodecSpec::Node>(*child.m_node);
    node->inParent = nlohmann::json::json_pointer(pointer);
    child.m_node = std::move(node);
    m_children.push_back(std::move(child));
    return codec;
}

} // namespace internal

} // namespace fedran
