#pragma once
// What --network describes: an input shape and a sequence of layer tokens, plus the hidden
// activation and the loss.
//   dense:  "784-128-10"                      input size, then each layer's units
//   conv:   "1x28x28-conv8k5-pool2-conv16k5-pool2-64-10"
//           input CxHxW; conv{C}k{K}[s{S}][p{P}] (C output channels, KxK kernel, stride S, zero
//           padding P on each side); pool{K} (max) and avgpool{K} (stride K, like PyTorch's
//           MaxPool2d(K)); plain numbers are dense layers. A dense layer after an image flattens it
//           in channel-height-width order (PyTorch's). The activation follows every conv and dense
//           layer except the last, which must be dense (the output).
#include "nn/Activation.h"
#include "nn/Loss.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ml {

// The values of one sample between two layers: C x H x W, stored channel by channel, row by row.
// A plain vector of n values is n x 1 x 1.
struct SampleShape {
    int channels = 1;
    int height = 1;
    int width = 1;
    int size() const { return channels * height * width; }
    bool operator==(const SampleShape&) const = default;
    std::string text() const;  // "1x28x28"
};

struct LayerToken {
    enum class Kind { Dense, Conv, MaxPool, AvgPool };
    Kind kind = Kind::Dense;
    int size = 0;     // dense: units; conv: output channels
    int kernel = 0;   // conv and pooling: the side of the square window
    int stride = 1;   // conv (pooling strides by its kernel)
    int padding = 0;  // conv: zero rows and columns added on each side
    bool hasParameters() const { return kind == Kind::Dense || kind == Kind::Conv; }
    bool isImageLayer() const { return kind != Kind::Dense; }
    std::string text() const;  // as written in --network: "64", "conv8k5", "conv8k3s2p1", "pool2"
    // The shape this layer makes of `in`; throws InputError naming `field` and this token when it
    // does not fit (a window larger than its input, a convolution after a dense layer).
    SampleShape outputShape(const SampleShape& in, bool inIsImage, const std::string& field) const;
};

struct NetworkSpec {
    SampleShape input{1, 1, 1};
    bool imageInput = false;  // written "CxHxW" (required before conv and pooling layers)
    std::vector<LayerToken> layers{
        {LayerToken::Kind::Dense, 2}, {LayerToken::Kind::Dense, 2}, {LayerToken::Kind::Dense, 1}};
    Activation activation = Activation::Tanh;
    LossKind loss = LossKind::Mse;

    NetworkSpec() = default;
    // A dense network of these sizes, e.g. {784, 128, 10} (throws InputError as setSizes).
    NetworkSpec(const std::vector<int>& sizes, Activation activation, LossKind loss);

    // Parses --network text (see above) into input and layers, checking every shape. Throws
    // InputError naming `field` and the token that does not fit; leaves *this unchanged then.
    void setLayers(const std::string& text, const std::string& field = "--network");
    // A dense network "1-2-2-1" (at least two positive sizes).
    void setSizes(const std::vector<int>& sizes);
    std::string text() const;  // the --network text: setLayers(text()) gives the same network

    int layerCount() const { return static_cast<int>(layers.size()); }
    int inputs() const { return input.size(); }
    int outputs() const { return layers.empty() ? 0 : layers.back().size; }
    bool isDense() const;
    // Weights and biases of all layers (saturates at the largest uint64); throws like shapes().
    std::uint64_t parameterCount() const;  // no conv or pooling layer
    // The sample shape after each layer, in order; throws like setLayers.
    std::vector<SampleShape> shapes(const std::string& field = "--network") const;
    // The buffers one forward and backward pass over `samples` samples holds: per layer and sample
    // its pre-activation, output and output gradient (3 floats per output value), the batch's
    // inputs, and a convolution's one-sample patches, their gradient and its padded image.
    // Saturates at the largest uint64 (a size no memory budget admits).
    std::uint64_t passBytes(std::uint64_t samples) const;
};

}  // namespace ml
