#pragma once
// The Hessian of a network's training loss on one fixed batch, seen through Hessian-vector
// products by central differences of the (exact, back-propagated) gradients:
//   H v ~ (g(w + h v) - g(w - h v)) / (2 h),   h = 1e-3 * max(1, ||w||) / ||v||
// (kRelativeStep: the perturbation is a thousandth of the weights' norm, large enough that float
// rounding of g, ~1e-7 |g|, stays far below the difference, small enough that the O(h^2) error
// stays ~1e-6 on the networks of this app; on a quadratic loss the difference is exact).
//  - largestEigenvalue: power iteration on H (Rayleigh quotient), then, if that dominant eigenvalue
//    is negative, again on H - lambda I, so that the result is the largest (algebraic) eigenvalue,
//    the one the stability thresholds 2/lr (SGD) and (2 + 2 mu)/lr (heavy ball) refer to
//    (Cohen et al. 2021, "Gradient descent on neural networks typically occurs at the edge of
//    stability").
//  - spectrum: every eigenvalue, from the Hessian built column by column (H e_k by the same
//    difference), symmetrised, by Eigen's SelfAdjointEigenSolver; up to kMaxSpectrumParameters.
// The probe owns a copy of the network (its own buffers): probing never touches a training run.
// After construction nothing allocates except spectrum().
#include "Random.h"
#include "Tensor.h"
#include "data/Dataset.h"
#include "nn/Network.h"

#include <cstdint>

namespace ml {

// The first min(size, n) samples of `data`, in stored order (a batch that stays the same all run).
Batch fixedBatch(const Dataset& data, long size);

struct PowerIterationResult {
    double eigenvalue = 0.0;
    int iterations = 0;  // Hessian-vector products used (each two gradients)
    bool converged = false;
};

class HessianProbe {
public:
    static constexpr double kRelativeStep = 1e-3;
    static constexpr Eigen::Index kMaxSpectrumParameters = 1000;

    HessianProbe(const NetworkSpec& spec, Batch batch);

    // The point w at which H is taken (copied).
    void setPoint(const Parameters& parameters);
    Eigen::Index parameterCount() const { return point_.size(); }
    // out = H v (v need not be normalised; v = 0 gives 0).
    void multiply(const Eigen::VectorXd& v, Eigen::VectorXd& out);

    // Stops when the Rayleigh quotient changes by at most `tolerance` relative to its size, or after
    // maxIterations products per pass. The start vector is drawn from `seed`.
    PowerIterationResult largestEigenvalue(int maxIterations = 100, double tolerance = 1e-5, std::uint64_t seed = 1);
    // Every eigenvalue, ascending. Throws InputError when parameterCount() > kMaxSpectrumParameters.
    Eigen::VectorXd spectrum();

private:
    PowerIterationResult powerIteration(double shift, int maxIterations, double tolerance, std::uint64_t seed);
    void gradientAt(double step, const Eigen::VectorXd& direction, Parameters& gradient);

    Network network_;
    Batch batch_;
    Eigen::VectorXf point_;  // w, flattened layer by layer (each matrix column-major)
    Parameters plusGradient_, minusGradient_;
    Eigen::VectorXd vector_, product_;
};

}  // namespace ml
