// The recipe for a new codec (docs/architecture.md, "Adding a codec"), followed from outside the
// library: this one file defines "test_stride" (every stride-th element as float32, zeros
// elsewhere) and registers it with one line; nothing else in the tree names it.

#include "compression/codec-spec.h"
#include "compression/internal/byte-io.h"
#include "compression/internal/codec-params.h"
#include "compression/internal/codecs.h"
#include "compression/internal/payload-header.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace fedran::internal
{
namespace
{

class StrideCodec : public RegisteredCodec
{
  public:
    StrideCodec(const CodecArgs& args, uint32_t stride)
        : RegisteredCodec(args)
        , m_stride(stride)
    {
    }

    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<StrideCodec>(*this);
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& /* rng */,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        ByteWriter writer(out);
        for (size_t i = 0; i < update.size(); i += m_stride)
        {
            writer.WriteF32(update[i]);
        }
    }

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override
    {
        CheckUpdateSize(layout, out.size(), Name());
        ByteReader reader(payload);
        std::fill(out.begin(), out.end(), 0.0f);
        for (size_t i = 0; i < out.size(); i += m_stride)
        {
            out[i] = reader.ReadF32();
        }
        reader.ExpectEnd();
    }

  private:
    uint32_t m_stride;
};

std::unique_ptr<Codec>
MakeStrideCodec(CodecArgs& args)
{
    const uint32_t stride = TakeCount(args, "stride").value_or(0);
    if (stride == 0)
    {
        args.Fail("stride", "required: an integer >= 1");
    }
    return std::make_unique<StrideCodec>(args, stride);
}

// The one registration line.
const CodecRegistration kStride{"test_stride",
                                9001,
                                &MakeStrideCodec,
                                CodecTraits{"its elements are chosen by position in the whole "
                                            "update",
                                            "",
                                            false,
                                            "",
                                            false,
                                            0}};

TEST(ExtensionCodec, OneFileAndOneLineMakeACodecEveryLayerCanUse)
{
    const auto names = CodecTypeNames();
    EXPECT_NE(std::find(names.begin(), names.end(), "test_stride"), names.end());

    const CodecSpec spec =
        CodecSpec::Parse({{"type", "test_stride"}, {"stride", 3}}, "compression.uplink");
    EXPECT_EQ(spec.Type(), "test_stride");
    EXPECT_EQ(spec.WireId(), 9001);
    EXPECT_EQ(spec.UnsplittableBecause(),
              "its elements are chosen by position in the whole update");
    EXPECT_FALSE(spec.KeepsState());

    const TensorLayout layout({{"w", {7}}});
    const std::vector<float> update = {1, 2, 3, 4, 5, 6, 7};
    Rng rng(1);
    std::vector<uint8_t> payload;
    MakeCodec(spec)->Encode(layout, update, rng, payload);
    EXPECT_EQ(payload.size(), 3 * sizeof(float));
    std::vector<float> decoded(7);
    MakeCodec(spec)->Decode(layout, payload, decoded);
    EXPECT_EQ(decoded, (std::vector<float>{1, 0, 0, 4, 0, 0, 7}));

    // Its keys are checked like a built-in codec's, and it can be an adaptive ladder's rung.
    EXPECT_THROW(CodecSpec::Parse({{"type", "test_stride"}}, "u"), CodecConfigError);
    EXPECT_THROW(CodecSpec::Parse({{"type", "test_stride"}, {"stride", 2}, {"strid", 1}}, "u"),
                 CodecConfigError);
    const CodecSpec ladder = CodecSpec::Parse(
        {{"type", "adaptive"},
         {"ladder", {{{"type", "none"}}, {{"type", "test_stride"}, {"stride", 4}}}}},
        "compression.uplink");
    ASSERT_EQ(ladder.Children().size(), 2u);
    EXPECT_EQ(ladder.Children()[1].Path(), "compression.uplink.ladder[1]");
    EXPECT_EQ(ladder.Children()[1].Type(), "test_stride");
}

TEST(ExtensionCodec, ANameOrWireIdTakenIsRefused)
{
    EXPECT_THROW(CodecRegistration("none", 9002, &MakeStrideCodec, CodecTraits()),
                 std::logic_error);
    EXPECT_THROW(CodecRegistration("test_other", 1, &MakeStrideCodec, CodecTraits()),
                 std::logic_error);
}

} // namespace
} // namespace fedran::internal
