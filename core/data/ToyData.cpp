#include "ToyData.h"

#include "DenseDataset.h"
#include "InputError.h"
#include "Random.h"

#include <cmath>
#include <numbers>

namespace ml {

namespace {

constexpr float kPi = std::numbers::pi_v<float>;

using RowMatrix = DenseDataset::RowMatrix;

// One 2-d labelled point from the generator.
struct Point {
    float x1, x2;
    int label;
};
using PointGenerator = Point (*)(Random&, int index);

Point circle(Random& r, int) {
    const float a = r.uniform(-1.0f, 1.0f), b = r.uniform(-1.0f, 1.0f);
    return {a, b, a * a + b * b < 0.64f ? 1 : 0};
}

Point xorQuadrants(Random& r, int) {
    const float a = r.uniform(-1.0f, 1.0f), b = r.uniform(-1.0f, 1.0f);
    return {a, b, a * b < 0.0f ? 1 : 0};
}

Point gauss(Random& r, int index) {
    const int label = index % 2;
    const float centre = label ? 0.8f : -0.8f;
    const float a = centre + 0.6f * r.normal();
    return {a, centre + 0.6f * r.normal(), label};
}

Point spiral(Random& r, int index) {
    const int label = index % 2;
    const float t = r.uniform(0.05f, 1.0f);
    const float angle = 3.5f * kPi * t + static_cast<float>(label) * kPi;
    const float a = t * std::cos(angle) + 0.02f * r.normal();
    return {a, t * std::sin(angle) + 0.02f * r.normal(), label};
}

DenseDataset classification(Random& r, PointGenerator generate, int count) {
    RowMatrix x(count, 2);
    Eigen::VectorXi labels(count);
    for (int i = 0; i < count; ++i) {
        const Point p = generate(r, i);
        x(i, 0) = p.x1;
        x(i, 1) = p.x2;
        labels(i) = p.label;
    }
    return DenseDataset::classification(std::move(x), std::move(labels), 2);
}

DenseDataset sine(Random& r, int count) {
    RowMatrix x(count, 1), y(count, 1);
    for (int i = 0; i < count; ++i) {
        x(i, 0) = r.uniform(-kPi, kPi);
        y(i, 0) = std::sin(x(i, 0));
    }
    return DenseDataset::regression(std::move(x), std::move(y));
}

struct ToyClassifier {
    const char* name;
    PointGenerator generate;
};
constexpr ToyClassifier kClassifiers[] = {
    {"circle", circle}, {"xor", xorQuadrants}, {"gauss", gauss}, {"spiral", spiral}};

}  // namespace

std::vector<std::string> toyDataNames() {
    std::vector<std::string> names{"sine"};
    for (const ToyClassifier& c : kClassifiers) names.emplace_back(c.name);
    return names;
}

DataSplit makeToyData(const std::string& name, std::uint64_t seed) {
    Random r(seed);
    const std::string spec = "toy:" + name;
    if (name == "sine") {
        auto train = std::make_shared<DenseDataset>(sine(r, 200));
        return {spec, std::move(train), std::make_shared<DenseDataset>(sine(r, 100))};
    }
    for (const ToyClassifier& c : kClassifiers) {
        if (name != c.name) continue;
        auto train = std::make_shared<DenseDataset>(classification(r, c.generate, 400));
        return {spec, std::move(train), std::make_shared<DenseDataset>(classification(r, c.generate, 200))};
    }
    std::string valid;
    for (const std::string& n : toyDataNames()) valid += (valid.empty() ? "toy:" : ", toy:") + n;
    throw InputError("unknown toy data set \"" + spec + "\"; expected one of " + valid);
}

}  // namespace ml
