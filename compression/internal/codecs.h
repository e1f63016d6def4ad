#ifndef FEDRAN_COMPRESSION_INTERNAL_CODECS_H
#define FEDRAN_COMPRESSION_INTERNAL_CODECS_H

// What a codec implementation needs to plug into the registry, and every codec's factory.
// To add a codec: write <name>-codec.cc defining Make<Name>Codec, declare it below, and add
// one line to the table in codec-registry.cc.

#include "compression/codec-spec.h"
#include "compression/internal/magnitude-filter.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fedran::internal
{

/**
 * A codec spec on its way to a factory: the registry entry it matched, the JSON object and
 * its path. A factory reads its parameters with Take(); once it returns, the registry rejects
 * every key nobody took, so a misspelt parameter never silently falls back to a default.
 */
class CodecArgs
{
  public:
    CodecArgs(std::string_view name,
              uint16_t id,
              const nlohmann::json& spec,
              const std::string& path);

    std::string_view Name() const
    {
        return m_name;
    }

    uint16_t Id() const
    {
        return m_id;
    }

    /// The value of `key`, or nullptr if the spec has none; either way `key` counts as known.
    const nlohmann::json* Take(const std::string& key);

    /// "<path>.<key>", for error messages.
    std::string PathOf(std::string_view key) const;

    /// Throws CodecConfigError "<path>.<key>: <message>".
    [[noreturn]] void Fail(std::string_view key, const std::string& message) const;

    /// Throws CodecConfigError naming the first key of the spec that no Take() asked for.
    void RejectUnknownKeys() const;

    /// Builds a codec this one wraps (a base, a rung) and records its checked spec as one of
    /// this spec's children (CodecSpec::Children), in the order they are built.
    /// `pointer` is where it sits in this spec ("/base"), `path` its scenario path.
    std::unique_ptr<Codec> BuildChild(const nlohmann::json& spec,
                                      const std::string& pointer,
                                      const std::string& path);

    const std::vector<CodecSpec>& Children() const
    {
        return m_children;
    }

    /// The children recorded so far, handed over.
    std::vector<CodecSpec> TakeChildren()
    {
        return std::move(m_children);
    }

  private:
    std::string_view m_name;
    uint16_t m_id;
    const nlohmann::json& m_spec;
    const std::string& m_path;
    std::set<std::string, std::less<>> m_taken;
    std::vector<CodecSpec> m_children;
};

/// Base of every registered codec: Name() and Id() come from the registry table, so the wire
/// id is written down in exactly one place.
class RegisteredCodec : public Codec
{
  public:
    explicit RegisteredCodec(const CodecArgs& args)
        : m_name(args.Name())
        , m_id(args.Id())
    {
    }

    std::string_view Name() const final
    {
        return m_name;
    }

    uint16_t Id() const final
    {
        return m_id;
    }

  private:
    std::string_view m_name; ///< points into the static registry table
    uint16_t m_id;
};

/**
 * Implemented by the codecs whose decoded update is zero except at the positions the payload
 * lists (top_k, threshold, dgc). Error feedback needs e = p - decode(payload); with this it
 * subtracts at those positions only, instead of decoding into a model-sized buffer and
 * subtracting all of it. The result is the same bit for bit: x - (+0.0f) is x for every float
 * an arithmetic operation produced (-0.0 included; only a signalling NaN would change, and
 * arithmetic never produces one).
 */
class SparseDecoder
{
  public:
    /// residual[i] -= decoded[i] wherever `payload` carries a value; errors as Decode.
    virtual void SubtractDecoded(const TensorLayout& layout,
                                 std::span<const uint8_t> payload,
                                 std::span<float> residual) = 0;

  protected:
    ~SparseDecoder() = default;
};

/**
 * Implemented by the codecs that can form what they compress while they read it (top_k):
 * error feedback's p = g + beta * e, written into e, encoded exactly as Encode(layout, e, ...)
 * after forming all of e would, with one pass over the model-sized residual fewer.
 */
class CompensatingEncoder
{
  public:
    /// e = g + beta * e (g + 0.0f where `fresh`: e is unset memory), then Encode of e.
    virtual void EncodeCompensated(const TensorLayout& layout,
                                   const Compensation& compensation,
                                   std::span<float> e,
                                   Rng& rng,
                                   std::vector<uint8_t>& out) = 0;

  protected:
    ~CompensatingEncoder() = default;
};

using CodecFactory = std::unique_ptr<Codec> (*)(CodecArgs& args);

/// A codec built from a JSON spec by the registry, with its type's traits and the specs it
/// wraps (CodecArgs::ParseChild). Throws CodecConfigError naming the key under `path`.
struct BuiltCodec
{
    std::unique_ptr<Codec> codec;
    const CodecTraits* traits;
    std::vector<CodecSpec> children;
};

BuiltCodec BuildCodec(const nlohmann::json& spec, const std::string& path);

/**
 * Adds a codec type at run time, from the file that defines it: for a codec outside this
 * library (a test's, a user's extension), one namespace-scope line
 *     const CodecRegistration kMine{"mine", 900, &MakeMineCodec, CodecTraits{}};
 * The fields are those of a row of the registry table (codec-registry.cc); a codec with no
 * cost model costs no time. Throws std::logic_error if the name or wire id is taken. The
 * strings must outlive the program (literals).
 */
struct CodecRegistration
{
    CodecRegistration(std::string_view name,
                      uint16_t id,
                      CodecFactory factory,
                      CodecTraits traits,
                      uint32_t costTerms = 0,
                      std::string_view calibration = "");
};

std::unique_ptr<Codec> MakeNoneCodec(CodecArgs& args);
std::unique_ptr<Codec> MakeFp16Codec(CodecArgs& args);
std::unique_ptr<Codec> MakeTopKCodec(CodecArgs& args);
std::unique_ptr<Codec> MakeRandomKCodec(CodecArgs& args);
std::unique_ptr<Codec> MakeThresholdCodec(CodecArgs& args);
std::unique_ptr<Codec> MakeQuantizationCodec(CodecArgs& args);
std::unique_ptr<Codec> MakeQsgdCodec(CodecArgs& args);
std::unique_ptr<Codec> MakeSignCodec(CodecArgs& args);
std::unique_ptr<Codec> MakeErrorFeedbackCodec(CodecArgs& args);
std::unique_ptr<Codec> MakeClippedCodec(CodecArgs& args);
std::unique_ptr<Codec> MakeDgcCodec(CodecArgs& args);
std::unique_ptr<Codec> MakePowerSgdCodec(CodecArgs& args);
std::unique_ptr<Codec> MakeAdaptiveCodec(CodecArgs& args);

} // namespace fedran::internal

#endif
