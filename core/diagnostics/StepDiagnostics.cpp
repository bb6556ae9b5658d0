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

void setZero(const std::array<Eigen::ArrayXd*, 8>& arrays, Eigen::Index rows) {
    for (auto* array : arrays) array->setZero(rows);
}

// Rows [first, first + count) of column j, as a Chunk (16 floats fixed, or fewer), in place.
template <typename Chunk>
Eigen::Map<const Chunk> rowsOf(const Matrix& matrix, Eigen::Index j, Eigen::Index first, Eigen::Index count) {
    const float* data = matrix.data() + j * matrix.rows() + first;
    if constexpr (Chunk::SizeAtCompileTime == Eigen::Dynamic) return Eigen::Map<const Chunk>(data, count);
    else return Eigen::Map<const Chunk>(data);
}

}  // namespace

// The sums of one block of columns [blockStart, blockEnd) for a chunk of rows, column by column,
// every sum of the chunk in registers (float, full SIMD width). The block's deviations of m from
// its own mean come from a second look at its columns while they are still in cache (free of
// cancellation); the block then joins the double sums, the deviations by Chan et al.'s update
// M2 = M2_a + M2_b + (mean_b - mean_a)^2 n_a n_b / (n_a + n_b). The bias column is a block of its own.
template <typename Chunk, bool hasMoment>
void StepDiagnostics::accumulateBlock(const Matrix& g, const Matrix& u, const Matrix& w, const Matrix& w0,
                                      const Matrix& m, Eigen::Index first, Eigen::Index count, Eigen::Index blockStart,
                                      Eigen::Index blockEnd, LayerSums& sums) {
    const Eigen::Index in = w.cols() - 1;
    const auto load = [first, count](const Matrix& matrix, Eigen::Index j) { return rowsOf<Chunk>(matrix, j, first, count); };
    const auto into = [first, count](Eigen::ArrayXd& sum) { return sum.segment(first, count); };
    const bool bias = blockStart == in;
    Chunk gradient2 = Chunk::Zero(count), update2 = gradient2, weight2 = gradient2, distance2 = gradient2,
          moment = gradient2, moment2 = gradient2, momentGradient = gradient2, deviation2 = gradient2;
    for (Eigen::Index j = blockStart; j < blockEnd; ++j) {
        const auto gj = load(g, j);
        const auto wj = load(w, j);
        gradient2 += gj.square();
        update2 += load(u, j).square();
        weight2 += wj.square();
        distance2 += (wj - load(w0, j)).square();
        if constexpr (hasMoment) {
            const auto mj = load(m, j);
            moment += mj;
            moment2 += mj.square();
            momentGradient += mj * gj;
        }
    }
    const double columns = static_cast<double>(blockEnd - blockStart);
    Sums& target = bias ? sums.bias : sums.weights;
    if constexpr (hasMoment) {
        if (!bias) {
            const Chunk mean = moment / static_cast<float>(columns);
            for (Eigen::Index j = blockStart; j < blockEnd; ++j) deviation2 += (load(m, j) - mean).square();
            const double joined = static_cast<double>(blockStart);
            if (joined > 0)
                into(target.deviation2) += (moment.template cast<double>() / columns - into(target.moment) / joined).square() *
                                           (joined * columns / (joined + columns));
            into(target.deviation2) += deviation2.template cast<double>();
        }
        into(target.moment) += moment.template cast<double>();
        into(target.moment2) += moment2.template cast<double>();
        into(target.momentGradient) += momentGradient.template cast<double>();
    }
    into(target.gradient2) += gradient2.template cast<double>();
    into(target.update2) += update2.template cast<double>();
    into(target.weight2) += weight2.template cast<double>();
    into(target.distance2) += distance2.template cast<double>();
}

StepDiagnostics::StepDiagnostics(const Parameters& shapes) {
    layers_.reserve(shapes.size());
    sums_.resize(shapes.size());
    for (std::size_t l = 0; l < shapes.size(); ++l) {
        const Eigen::Index rows = shapes[l].rows();
        layers_.emplace_back(static_cast<std::size_t>(1 + rows));
        LayerSums& sums = sums_[l];
        setZero(sums.weights.all(), rows);
        setZero(sums.bias.all(), rows);
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
        setZero(sums.weights.all(), rows);
        setZero(sums.bias.all(), rows);
        using Full = Eigen::Array<float, kChunkRows, 1>;
        using Rest = Eigen::Array<float, Eigen::Dynamic, 1, 0, kChunkRows, 1>;  // on the stack
        // Block by block (its columns of all five matrices stay in cache while every chunk of rows
        // takes its sums), so each matrix is read from memory once.
        for (Eigen::Index blockStart = 0, blockEnd = 0; blockStart <= in; blockStart = blockEnd) {
            blockEnd = blockStart == in ? in + 1 : std::min(in, blockStart + kBlockColumns);
            for (Eigen::Index first = 0; first < rows; first += kChunkRows) {
                const Eigen::Index count = std::min(kChunkRows, rows - first);
                const auto block = count == kChunkRows ? (hasMoment ? &accumulateBlock<Full, true> : &accumulateBlock<Full, false>)
                                                       : (hasMoment ? &accumulateBlock<Rest, true> : &accumulateBlock<Rest, false>);
                block(g, u, w, w0, m, first, count, blockStart, blockEnd, sums);
            }
        }
        std::vector<UnitDiagnostics>& units = layers_[l];
        const double n = static_cast<double>(in);
        for (Eigen::Index i = 0; i < w.rows(); ++i) {
            const Sums& s = sums.weights;
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
        using S = Sums;
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
