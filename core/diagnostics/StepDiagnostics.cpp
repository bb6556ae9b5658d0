#include "diagnostics/StepDiagnostics.h"

#include "optim/Optimizer.h"

#include <cmath>
#include <limits>

namespace ml {

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Quotient that is NaN, not inf, when both sides are 0 (a layer that has not moved yet).
float ratio(double numerator, double denominator) {
    return denominator > 0 ? static_cast<float>(numerator / denominator) : (numerator > 0 ? INFINITY : kNaN);
}

// The norms of one unit (a whole layer matrix or a row), all sums in double.
template <typename W, typename G, typename U, typename W0, typename M>
void fillNorms(UnitDiagnostics& out, const W& w, const G& g, const U& u, const W0& w0, const M* m) {
    const double gradient2 = g.template cast<double>().squaredNorm();
    const double update2 = u.template cast<double>().squaredNorm();
    out.gradientNorm = static_cast<float>(std::sqrt(gradient2));
    out.updateNorm = static_cast<float>(std::sqrt(update2));
    out.updateToWeight = ratio(std::sqrt(update2), std::sqrt(w.template cast<double>().squaredNorm()));
    out.distanceFromInitial = static_cast<float>(std::sqrt((w - w0).template cast<double>().squaredNorm()));
    if (m) {
        const double dot = (m->template cast<double>().cwiseProduct(g.template cast<double>())).sum();
        out.cosMomentGradient = ratio(dot, std::sqrt(m->template cast<double>().squaredNorm() * gradient2));
    } else {
        out.cosMomentGradient = kNaN;
    }
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
    for (const Matrix& layer : shapes) layers_.emplace_back(static_cast<std::size_t>(1 + layer.rows()));
}

void StepDiagnostics::compute(const Parameters& parameters, const Parameters& gradients, const Optimizer& optimizer,
                              const Parameters& initialParameters) {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const Matrix& w = parameters[l];
        const Matrix& g = gradients[l];
        const Matrix& w0 = initialParameters[l];
        const LayerState& state = optimizer.layerState(l);
        const Matrix& u = state.update;
        const bool hasMoment = state.firstMoment.size() == w.size();
        std::vector<UnitDiagnostics>& units = layers_[l];
        fillNorms(units[0], w, g, u, w0, hasMoment ? &state.firstMoment : nullptr);

        double keptEnergy = 0.0;
        double energy = 0.0;
        const Eigen::Index in = w.cols() - 1;  // the row without its bias
        for (Eigen::Index i = 0; i < w.rows(); ++i) {
            UnitDiagnostics& unit = units[1 + i];
            const auto row = [in, i](const Matrix& matrix) { return matrix.row(i).head(in); };
            if (hasMoment) {
                const auto m = row(state.firstMoment);
                fillNorms(unit, row(w), row(g), row(u), row(w0), &m);
                const double sum = m.cast<double>().sum();
                const double rowEnergy = m.cast<double>().squaredNorm();
                keptEnergy += sum * sum / static_cast<double>(in);
                energy += rowEnergy;
                unit.meanShare = static_cast<float>(meanShare(m));
                unit.momentCv = static_cast<float>(coefficientOfVariation(m));
            } else {
                using Row = decltype(row(w));
                fillNorms(unit, row(w), row(g), row(u), row(w0), static_cast<const Row*>(nullptr));
                unit.meanShare = unit.momentCv = kNaN;
            }
        }
        units[0].meanShare = hasMoment && energy > 0 ? static_cast<float>(keptEnergy / energy) : kNaN;
        units[0].momentCv = kNaN;
    }
}

}  // namespace ml
