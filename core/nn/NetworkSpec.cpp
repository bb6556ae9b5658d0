#include "nn/NetworkSpec.h"

#include "InputError.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>

namespace ml {

namespace {

constexpr int kMaxSize = 100000;

std::vector<std::string> splitOn(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::size_t begin = 0;
    for (;;) {
        const std::size_t end = std::min(text.find(separator, begin), text.size());
        parts.push_back(text.substr(begin, end - begin));
        if (end == text.size()) return parts;
        begin = end + 1;
    }
}

// A whole positive number (digits only, at most kMaxSize), or nothing.
std::optional<int> positive(const std::string& digits, int smallest = 1) {
    if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return {};
    const int value = std::stoi(digits);
    if (value < smallest || value > kMaxSize) return {};
    return value;
}

// Reads the number that starts at `at` (digits only), advancing `at`.
std::optional<int> numberAt(const std::string& text, std::size_t& at, int smallest = 1) {
    std::size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    const std::optional<int> value = positive(text.substr(at, end - at), smallest);
    at = end;
    return value;
}

bool startsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// "conv8k5", "conv8k3s2p1", "pool2", "avgpool2" or a plain number; nothing when it is none of these.
std::optional<LayerToken> parseToken(const std::string& text) {
    LayerToken token;
    if (const auto units = positive(text)) {
        token.size = *units;
        return token;
    }
    std::size_t at = 0;
    for (const auto& [prefix, kind] :
         {std::pair{"avgpool", LayerToken::Kind::AvgPool}, std::pair{"pool", LayerToken::Kind::MaxPool}}) {
        if (!startsWith(text, prefix)) continue;
        at = std::string(prefix).size();
        token.kind = kind;
        const auto kernel = numberAt(text, at);
        if (!kernel || at != text.size()) return {};
        token.kernel = *kernel;
        token.stride = *kernel;
        return token;
    }
    if (!startsWith(text, "conv")) return {};
    token.kind = LayerToken::Kind::Conv;
    at = 4;
    const auto channels = numberAt(text, at);
    if (!channels || at >= text.size() || text[at] != 'k') return {};
    ++at;
    const auto kernel = numberAt(text, at);
    if (!kernel) return {};
    token.size = *channels;
    token.kernel = *kernel;
    if (at < text.size() && text[at] == 's') {
        const auto stride = numberAt(text, ++at);
        if (!stride) return {};
        token.stride = *stride;
    }
    if (at < text.size() && text[at] == 'p') {
        const auto padding = numberAt(text, ++at, 0);
        if (!padding) return {};
        token.padding = *padding;
    }
    if (at != text.size()) return {};
    return token;
}

// "1x28x28"
std::optional<SampleShape> parseImageShape(const std::string& text) {
    const std::vector<std::string> parts = splitOn(text, 'x');
    if (parts.size() != 3) return {};
    const auto c = positive(parts[0]), h = positive(parts[1]), w = positive(parts[2]);
    if (!c || !h || !w) return {};
    // One sample's values must fit an int (sizes and offsets are ints), far above any real image.
    if (static_cast<std::int64_t>(*c) * *h * *w > kMaxSize * std::int64_t{1000}) return {};
    return SampleShape{*c, *h, *w};
}

// The first number in `part` above kMaxSize, if any: named in the refusal, which would otherwise
// call a too-wide layer "not a layer".
std::optional<std::string> numberAboveLimit(const std::string& part) {
    for (std::size_t at = 0; at < part.size();) {
        std::size_t end = at;
        while (end < part.size() && std::isdigit(static_cast<unsigned char>(part[end]))) ++end;
        const std::string digits = part.substr(at, end - at);
        const std::size_t first = digits.find_first_not_of('0');
        if (first != std::string::npos && (digits.size() - first > 6 || std::stoi(digits.substr(first)) > kMaxSize))
            return digits;
        at = end == at ? at + 1 : end;
    }
    return {};
}

}  // namespace

std::string SampleShape::text() const {
    return std::to_string(channels) + "x" + std::to_string(height) + "x" + std::to_string(width);
}

std::string LayerToken::text() const {
    switch (kind) {
    case Kind::Dense: return std::to_string(size);
    case Kind::MaxPool: return "pool" + std::to_string(kernel);
    case Kind::AvgPool: return "avgpool" + std::to_string(kernel);
    case Kind::Conv: break;
    }
    std::string text = "conv" + std::to_string(size) + "k" + std::to_string(kernel);
    if (stride != 1) text += "s" + std::to_string(stride);
    if (padding != 0) text += "p" + std::to_string(padding);
    return text;
}

SampleShape LayerToken::outputShape(const SampleShape& in, bool inIsImage, const std::string& field) const {
    if (kind == Kind::Dense) return {size, 1, 1};  // flattens an image in C-H-W order
    const std::string name = field + ": " + text();
    if (!inIsImage)
        throw InputError(name +
                         " needs an image (CxHxW) as its input: give the input as e.g. 1x28x28 and put "
                         "convolutions and pooling before the dense layers");
    const int paddedHeight = in.height + 2 * padding, paddedWidth = in.width + 2 * padding;
    if (kernel > paddedHeight || kernel > paddedWidth)
        throw InputError(name + ": the " + std::to_string(kernel) + "x" + std::to_string(kernel) +
                         " window is larger than its input " + in.text() +
                         (padding ? " (padded by " + std::to_string(padding) + ")" : std::string()));
    const SampleShape out{kind == Kind::Conv ? size : in.channels, (paddedHeight - kernel) / stride + 1,
                          (paddedWidth - kernel) / stride + 1};
    // Sizes are ints throughout the network; a padding that overflows them is refused here, and
    // what fits is checked against the memory budget before training (NetworkSpec::passBytes).
    const std::uint64_t values = static_cast<std::uint64_t>(out.channels) * out.height * out.width;
    if (values > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        throw InputError(name + ": makes " + out.text() + " = " + std::to_string(values) +
                         " values per sample, more than a layer can hold (" +
                         std::to_string(std::numeric_limits<int>::max()) + ")" +
                         (padding ? "; the padding of " + std::to_string(padding) + " is the likely cause" : ""));
    return out;
}

void NetworkSpec::setLayers(const std::string& text, const std::string& field) {
    const auto refuse = [&](const std::string& why) {
        return InputError(field + ": '" + text + "' " + why +
                          "; expected layer sizes joined by '-', e.g. 1-2-2-1 or 784-128-10, or an image "
                          "network such as 1x28x28-conv8k5-pool2-conv16k5-pool2-64-10");
    };
    const std::vector<std::string> parts = splitOn(text, '-');
    if (parts.size() < 2) throw refuse("needs at least an input and an output");
    static_assert(kMaxSize == 100000, "the refusal below names the limit");
    for (const std::string& part : parts)
        if (const auto number = numberAboveLimit(part))
            throw InputError(field + ": '" + text + "' has '" + part + "': " + *number +
                             " is more than 100,000, the largest size a layer may have (units, channels, "
                             "kernel, stride, padding, or an input side)");
    NetworkSpec parsed = *this;
    parsed.layers.clear();
    if (const auto size = positive(parts[0])) {
        parsed.input = {*size, 1, 1};
        parsed.imageInput = false;
    } else if (const auto image = parseImageShape(parts[0])) {
        parsed.input = *image;
        parsed.imageInput = true;
    } else {
        throw refuse("does not start with an input size (a number, or CxHxW for images)");
    }
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const auto token = parseToken(parts[i]);
        if (!token) throw refuse("has '" + parts[i] + "', which is not a layer (N, convCkK[sS][pP], poolK, avgpoolK)");
        parsed.layers.push_back(*token);
    }
    if (parsed.layers.back().kind != LayerToken::Kind::Dense)
        throw InputError(field + ": " + parsed.layers.back().text() +
                         " is the last layer; the output must be a dense layer (a number such as 10)");
    parsed.shapes(field);  // throws naming the token that does not fit
    *this = parsed;
}

NetworkSpec::NetworkSpec(const std::vector<int>& sizes, Activation activation, LossKind loss)
    : activation(activation), loss(loss) {
    setSizes(sizes);
}

void NetworkSpec::setSizes(const std::vector<int>& sizes) {
    std::string text;
    for (std::size_t i = 0; i < sizes.size(); ++i) text += (i ? "-" : "") + std::to_string(sizes[i]);
    setLayers(text, "network");
}

std::string NetworkSpec::text() const {
    std::string text = imageInput ? input.text() : std::to_string(input.size());
    for (const LayerToken& layer : layers) text += "-" + layer.text();
    return text;
}

std::uint64_t NetworkSpec::parameterCount() const {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t count = 0;
    SampleShape in = input;
    bool image = imageInput;
    for (const LayerToken& layer : layers) {
        const SampleShape out = layer.outputShape(in, image, "network");
        // One row per output unit or channel: its kernel (or all inputs) plus the bias. Each factor
        // is below 2^31, so one product fits; only the sum can overflow (it saturates).
        std::uint64_t rows = 0, cols = 0;
        if (layer.kind == LayerToken::Kind::Dense) {
            rows = static_cast<std::uint64_t>(layer.size);
            cols = static_cast<std::uint64_t>(in.size()) + 1;
        } else if (layer.kind == LayerToken::Kind::Conv) {
            rows = static_cast<std::uint64_t>(layer.size);
            cols = static_cast<std::uint64_t>(in.channels) * layer.kernel * layer.kernel + 1;
        }
        const std::uint64_t layerCount = rows * cols;
        count = layerCount > kMax - count ? kMax : count + layerCount;
        in = out;
        image = layer.isImageLayer();
    }
    return count;
}

std::uint64_t NetworkSpec::passBytes(std::uint64_t samples) const {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    const auto add = [](std::uint64_t a, std::uint64_t b) { return b > kMax - a ? kMax : a + b; };
    const auto product = [](std::uint64_t a, std::uint64_t b) {
        std::uint64_t p = 0;
        return __builtin_mul_overflow(a, b, &p) ? kMax : p;
    };
    std::uint64_t perSample = static_cast<std::uint64_t>(input.size());  // the gathered batch
    std::uint64_t perPass = 0;
    SampleShape in = input;
    bool image = imageInput;
    for (const LayerToken& layer : layers) {
        const SampleShape out = layer.outputShape(in, image, "network");
        const std::uint64_t outValues = static_cast<std::uint64_t>(out.channels) * out.height * out.width;
        perSample = add(perSample, product(3, outValues));
        if (layer.kind == LayerToken::Kind::Conv) {
            const std::uint64_t patch = static_cast<std::uint64_t>(in.channels) * layer.kernel * layer.kernel;
            const std::uint64_t positions = static_cast<std::uint64_t>(out.height) * out.width;
            const std::uint64_t padded = static_cast<std::uint64_t>(in.channels) * (in.height + 2 * layer.padding) *
                                         (in.width + 2 * layer.padding);
            perPass = add(perPass, add(product(2, product(patch, positions)), padded));
        }
        in = out;
        image = layer.isImageLayer();
    }
    return product(sizeof(float), add(product(perSample, samples), perPass));
}

bool NetworkSpec::isDense() const {
    return std::none_of(layers.begin(), layers.end(), [](const LayerToken& l) { return l.isImageLayer(); });
}

std::vector<SampleShape> NetworkSpec::shapes(const std::string& field) const {
    std::vector<SampleShape> result;
    SampleShape shape = input;
    bool image = imageInput;
    for (const LayerToken& layer : layers) {
        shape = layer.outputShape(shape, image, field);
        image = layer.isImageLayer();
        result.push_back(shape);
    }
    return result;
}

}  // namespace ml
