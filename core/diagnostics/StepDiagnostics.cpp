#include "diagnostics/StepDiagnostics.h"

#include "nn/Network.h"
#include "optim/Optimizer.h"

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

namespace {

template <typename Scalar, std::size_t N>
void setZero(const std::array<Eigen::Array<Scalar, Eigen::Dynamic, 1>*, N>& arrays, Eigen::Index rows) {
    for (auto* array : arrays) array->setZero(rows);
}

}  // namespace

StepDiagnostics::StepDiagnostics(const Parameters& shapes) {
    layers_.reserve(shapes.size());
    sums_.resize(shapes.size());
    for (std::size_t l = 0; l < shapes.size(); ++l) {
        const Eigen::Index rows = shapes[l].rows();
        layers_.emplace_back(static_cast<std::size_t>(1 + rows));
        LayerSums& sums = sums_[l];
        setZero(sums.weights.all(), rows);
        setZero(sums.bias.all(), rows);
        setZero(sums.block.all(), rows);
        sums.blockMean.setZero(rows);
        sampleNorms_.push_back({Eigen::ArrayXf::Zero(rows), Eigen::ArrayXf::Zero(rows)});
        sampleScratch_.emplace_back();
    }
}

void StepDiagnostics::compute(const Parameters& parameters, const Parameters& gradients, const Optimizer& optimizer,
                              const Parameters& initialParameters, const Network* model) {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const Matrix& w = parameters[l];
        const Matrix& g = gradients[l];
        const Matrix& w0 = initialParameters[l];
        const LayerState& state = optimizer.layerState(l);
        const Matrix& u = state.update;
        const Matrix& m = state.firstMoment;
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
        LayerSums& sums = sums_[l];
        const Eigen::Index rows = w.rows();
        const Eigen::Index in = w.cols() - 1;  // the incoming weights; the last column: biases
        Sums<float>& block = sums.block;
        // Adds the block's float sums into `into` (double) and empties the block. `joined` columns
        // are in `into` already, `count` in the block: the deviations join by Chan et al.'s update,
        // M2 = M2_a + M2_b + (mean_b - mean_a)^2 n_a n_b / (n_a + n_b).
        const auto join = [&block](Sums<double>& into, double joined, double count) {
            if (joined > 0)
                into.deviation2 += (block.moment.cast<double>() / count - into.moment / joined).square() * (joined * count / (joined + count));
            const auto from = block.all();
            const auto to = into.all();
            for (std::size_t k = 0; k < from.size(); ++k) {
                *to[k] += from[k]->cast<double>();
                from[k]->setZero();
            }
        };
        setZero(sums.weights.all(), rows);
        setZero(sums.bias.all(), rows);
        Eigen::Index blockStart = 0;
        // Column by column (the matrices are column-major): one contiguous pass over each matrix,
        // every neuron's sums at once.
        for (Eigen::Index j = 0; j <= in; ++j) {
            const auto gj = g.col(j).array();
            block.gradient2 += gj.square();
            block.update2 += u.col(j).array().square();
            block.weight2 += w.col(j).array().square();
            block.distance2 += (w.col(j) - w0.col(j)).array().square();
            if (hasMoment) {
                const auto mj = m.col(j).array();
                block.moment += mj;
                block.moment2 += mj.square();
                block.momentGradient += mj * gj;
            }
            if (j == in) {
                join(sums.bias, 0.0, 1.0);
            } else if ((j + 1) % kBlockColumns == 0 || j + 1 == in) {
                const double count = static_cast<double>(j + 1 - blockStart);
                if (hasMoment) {  // the block's deviations from its own mean, its columns still in cache
                    sums.blockMean = block.moment / static_cast<float>(count);
                    for (Eigen::Index k = blockStart; k <= j; ++k) block.deviation2 += (m.col(k).array() - sums.blockMean).square();
                }
                join(sums.weights, static_cast<double>(blockStart), count);
                blockStart = j + 1;
            }
        }
        std::vector<UnitDiagnostics>& units = layers_[l];
        const double n = static_cast<double>(in);
        for (Eigen::Index i = 0; i < w.rows(); ++i) {
            const Sums<double>& s = sums.weights;
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
        using S = Sums<double>;
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
}

}  // namespace ml
