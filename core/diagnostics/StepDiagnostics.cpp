#include "diagnostics/StepDiagnostics.h"

#include "nn/Network.h"
#include "optim/Optimizer.h"
#include "train/Snapshot.h"

#include <cmath>
#include <algorithm>
#include <limits>

namespace ml {

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Quotient that is NaN, not inf, when both sides are 0 (a layer that has not moved yet).
float ratio(double numerator, double denominator) {
    return denominator > 0 ? static_cast<float>(numerator / denominator) : (numerator > 0 ? INFINITY : kNaN);
}

// The four norms of a unit from its sums of squares.
void fillNorms(UnitDiagnostics& out, double gradient2, double update2, double weight2, double distance2) {
    out.gradientNorm = static_cast<float>(std::sqrt(gradient2));
    out.updateNorm = static_cast<float>(std::sqrt(update2));
    out.updateToWeight = ratio(std::sqrt(update2), std::sqrt(weight2));
    out.distanceFromInitial = static_cast<float>(std::sqrt(distance2));
}

}  // namespace

double meanShare(RowView moment) {
    const double sum = moment.cast<double>().sum();
    const double energy = moment.cast<double>().squaredNorm();
    if (!(energy > 0)) return kNaN;
    return sum * sum / (static_cast<double>(moment.size()) * energy);
}

double coefficientOfVariation(RowView moment) {
    if (moment.size() == 0) return kNaN;
    const double mean = moment.cast<double>().mean();
    const double variance = (moment.cast<double>().array() - mean).square().mean();
    return mean != 0 ? std::sqrt(variance) / std::abs(mean) : INFINITY;
}

StepDiagnostics::StepDiagnostics(const Parameters& shapes) {
    layers_.reserve(shapes.size());
    ownSums_.resize(shapes);
    for (std::size_t l = 0; l < shapes.size(); ++l) {
        const Eigen::Index rows = shapes[l].rows();
        layers_.emplace_back(static_cast<std::size_t>(1 + rows));
        sampleNorms_.push_back({Eigen::ArrayXf::Zero(rows), Eigen::ArrayXf::Zero(rows)});
        sampleScratch_.emplace_back();
    }
}

void StepDiagnostics::compute(const Parameters& parameters, const Parameters& gradients, const Optimizer& optimizer,
                              const Parameters& initialParameters, const Network* model) {
    const StepSums* collected = optimizer.stepSums(parameters, gradients, initialParameters);
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerState& state = optimizer.layerState(l);
        computeLayer(l, parameters[l], gradients[l], state.update, state.firstMoment, initialParameters[l], collected,
                     model);
    }
}

bool StepDiagnostics::compute(const Snapshot& snapshot, const Parameters* initialParameters) {
    if (snapshot.layers.size() != layers_.size()) return false;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerSnapshot& layer = snapshot.layers[l];
        if (layers_[l].size() != static_cast<std::size_t>(1 + layer.parameters.rows()) ||
            ownSums_.layer(l).weights.gradient2.size() != layer.parameters.rows() ||
            layer.gradient.size() != layer.parameters.size() || layer.update.size() != layer.parameters.size())
            return false;
    }
    const bool hasInitial = initialParameters && initialParameters->size() == layers_.size();
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerSnapshot& layer = snapshot.layers[l];
        if (hasInitial && (*initialParameters)[l].size() != layer.parameters.size()) return false;
        computeLayer(l, layer.parameters, layer.gradient, layer.update, layer.firstMoment,
                     hasInitial ? (*initialParameters)[l] : layer.parameters, nullptr, nullptr);
        if (!hasInitial)  // measured from the weights themselves: unknown, not 0
            for (UnitDiagnostics& unit : layers_[l]) unit.distanceFromInitial = kNaN;
    }
    return true;
}

void StepDiagnostics::computeLayer(std::size_t l, const Matrix& w, const Matrix& g, const Matrix& u, const Matrix& m,
                                   const Matrix& w0, const StepSums* collected, const Network* model) {
    const bool hasMoment = m.size() == w.size();
    // The per-sample gradient is g_s = B c_s (c_s: sample s's share of the mean-loss gradient),
    // so (1/B) sum_s ||g_s - gbar||^2 = B sum_s ||c_s||^2 - ||gbar||^2 with gbar = g.
    const Layer::SampleNormSquares& norms = sampleNorms_[l];
    const Eigen::Index batch = model ? model->sampleGradientNormSquares(l, sampleScratch_[l], sampleNorms_[l]) : 0;
    const bool hasSnr = batch >= 2;
    const double batchSize = static_cast<double>(batch);
    const auto snr = [batchSize](double gradient2, double sampleNorms2) {
        return ratio(gradient2, std::max(0.0, batchSize * sampleNorms2 - gradient2));
    };
    if (!collected) ownSums_.accumulate(l, g, u, w, false, w0, m);
    const StepSums::Layer& sums = (collected ? *collected : ownSums_).layer(l);
    const Eigen::Index in = w.cols() - 1;  // the incoming weights; the last column: biases
    std::vector<UnitDiagnostics>& units = layers_[l];
    const double n = static_cast<double>(in);
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
        const StepSums::Sums& s = sums.weights;
        UnitDiagnostics& unit = units[1 + i];
        fillNorms(unit, s.gradient2(i), s.update2(i), s.weight2(i), s.distance2(i));
        unit.gradientSnr = hasSnr && in > 0 ? snr(s.gradient2(i), norms.weights(i)) : kNaN;
        if (hasMoment) {
            const double mean = s.moment(i) / n;
            unit.cosMomentGradient = ratio(s.momentGradient(i), std::sqrt(s.moment2(i) * s.gradient2(i)));
            unit.meanShare = s.moment2(i) > 0 ? static_cast<float>(s.moment(i) * mean / s.moment2(i)) : kNaN;
            const double variance = s.deviation2(i) / n;
            unit.momentCv = mean != 0 ? static_cast<float>(std::sqrt(variance) / std::abs(mean)) : INFINITY;
        } else {
            unit.cosMomentGradient = unit.meanShare = unit.momentCv = kNaN;
        }
    }
    using S = StepSums::Sums;
    const auto total = [&sums](const Eigen::ArrayXd S::*field) {
        return (sums.weights.*field).sum() + (sums.bias.*field).sum();
    };
    UnitDiagnostics& layer = units[0];
    fillNorms(layer, total(&S::gradient2), total(&S::update2), total(&S::weight2), total(&S::distance2));
    layer.momentCv = kNaN;
    layer.gradientSnr =
        hasSnr ? snr(total(&S::gradient2), norms.weights.cast<double>().sum() + norms.bias.cast<double>().sum()) : kNaN;
    if (hasMoment) {
        layer.cosMomentGradient =
            ratio(total(&S::momentGradient), std::sqrt(total(&S::moment2) * total(&S::gradient2)));
        // sum_i ||P m_i||^2 / sum_i ||m_i||^2 over the weights, ||P m_i||^2 = (sum_j m_ij)^2 / n.
        const double energy = sums.weights.moment2.sum();
        layer.meanShare = energy > 0 ? static_cast<float>(sums.weights.moment.square().sum() / n / energy) : kNaN;
    } else {
        layer.cosMomentGradient = layer.meanShare = kNaN;
    }
}

}  // namespace ml
