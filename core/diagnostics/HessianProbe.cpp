#include "diagnostics/HessianProbe.h"

#include "InputError.h"
#include "nn/FlatParameters.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ml {

Batch fixedBatch(const Dataset& data, long size) {
    std::vector<Eigen::Index> indices(static_cast<std::size_t>(std::min<long>(size, static_cast<long>(data.size()))));
    std::iota(indices.begin(), indices.end(), Eigen::Index{0});
    Batch batch;
    data.gather(indices, batch);
    return batch;
}

HessianProbe::HessianProbe(const NetworkSpec& spec, Batch batch) : network_(spec), batch_(std::move(batch)) {
    const Parameters& parameters = network_.parameters();
    point_.resize(ml::parameterCount(parameters));
    flattenInto(parameters, point_);
    plusGradient_ = zerosLike(parameters);
    minusGradient_ = zerosLike(parameters);
    vector_.resize(point_.size());
    product_.resize(point_.size());
}

void HessianProbe::setPoint(const Parameters& parameters) {
    network_.checkShapes(parameters, "the probed weights");
    flattenInto(parameters, point_);
}

// gradient <- g(w + step * direction), evaluated in the probe's own network.
void HessianProbe::gradientAt(double step, const Eigen::VectorXd& direction, Parameters& gradient) {
    Eigen::Index offset = 0;
    for (Matrix& layer : network_.parameters()) {
        Eigen::Map<Eigen::VectorXf>(layer.data(), layer.size()) =
            point_.segment(offset, layer.size()) + (step * direction.segment(offset, layer.size())).cast<float>();
        offset += layer.size();
    }
    network_.computeGradients(batch_, gradient);
}

void HessianProbe::multiply(const Eigen::VectorXd& v, Eigen::VectorXd& out) {
    const double norm = v.norm();
    if (!(norm > 0)) {
        out.setZero(v.size());
        return;
    }
    const double pointNorm = point_.cast<double>().norm();
    const double h = kRelativeStep * std::max(1.0, pointNorm) / norm;
    gradientAt(h, v, plusGradient_);
    gradientAt(-h, v, minusGradient_);
    Eigen::Index offset = 0;
    for (std::size_t l = 0; l < plusGradient_.size(); ++l) {
        const Eigen::Index size = plusGradient_[l].size();
        out.segment(offset, size) = (Eigen::Map<const Eigen::VectorXf>(plusGradient_[l].data(), size).cast<double>() -
                                     Eigen::Map<const Eigen::VectorXf>(minusGradient_[l].data(), size).cast<double>()) /
                                    (2.0 * h);
        offset += size;
    }
}

PowerIterationResult HessianProbe::powerIteration(double shift, int maxIterations, double tolerance,
                                                  std::uint64_t seed) {
    Random random(seed);
    for (Eigen::Index i = 0; i < vector_.size(); ++i) vector_(i) = random.normal();
    vector_.normalize();
    PowerIterationResult result;
    result.eigenvalue = NAN;
    for (int iteration = 1; iteration <= maxIterations; ++iteration) {
        multiply(vector_, product_);
        product_ -= shift * vector_;
        const double rayleigh = vector_.dot(product_);  // v is a unit vector
        const double norm = product_.norm();
        result.iterations = iteration;
        const bool settled = std::abs(rayleigh - result.eigenvalue) <= tolerance * std::abs(rayleigh);
        result.eigenvalue = rayleigh;
        if (!(norm > 0) || settled) {
            result.converged = std::isfinite(rayleigh);  // a non-finite gradient is no answer
            break;
        }
        vector_ = product_ / norm;
    }
    result.eigenvalue += shift;
    return result;
}

PowerIterationResult HessianProbe::largestEigenvalue(int maxIterations, double tolerance, std::uint64_t seed) {
    PowerIterationResult dominant = powerIteration(0.0, maxIterations, tolerance, seed);
    if (dominant.eigenvalue >= 0 || !std::isfinite(dominant.eigenvalue)) return dominant;
    // The dominant eigenvalue is negative: every eigenvalue of H - lambda I is >= 0, the largest
    // being lambda_max - lambda.
    PowerIterationResult top = powerIteration(dominant.eigenvalue, maxIterations, tolerance, seed);
    top.iterations += dominant.iterations;
    return top;
}

Eigen::VectorXd HessianProbe::spectrum() {
    const Eigen::Index n = parameterCount();
    if (n > kMaxSpectrumParameters)
        throw InputError("Hessian spectrum: the network has " + std::to_string(n) +
                         " parameters; the exact spectrum is computed for at most " +
                         std::to_string(kMaxSpectrumParameters));
    Eigen::MatrixXd hessian(n, n);
    Eigen::VectorXd unit = Eigen::VectorXd::Zero(n);
    for (Eigen::Index k = 0; k < n; ++k) {
        unit(k) = 1.0;
        multiply(unit, product_);
        hessian.col(k) = product_;
        unit(k) = 0.0;
    }
    const Eigen::MatrixXd symmetric = 0.5 * (hessian + hessian.transpose());
    return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric, Eigen::EigenvaluesOnly).eigenvalues();
}

}  // namespace ml
