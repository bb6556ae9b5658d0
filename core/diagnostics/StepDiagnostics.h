#pragma once
// Per-layer and per-neuron diagnostics of one training step (what docs/diagnostics.md documents as
// the columns of diagnostics.csv). For a layer matrix [out x (in + 1)] (bias in the last column):
//   gradient_norm          ||g||            (g: the step's batch gradient)
//   update_norm            ||u||            (u: w_after - w_before)
//   update_to_weight       ||u|| / ||w||
//   distance_from_initial  ||w - w0||
//   cos_moment_gradient    <m, g> / (||m|| ||g||)   (m: the optimizer's first moment; NaN without one)
//   mean_share             f = ||P m||^2 / ||m||^2, P the projection on the all-ones direction
//   moment_cv              std(m_ij) / |mean(m_ij)| over the connections
//   gradient_snr           mean over the parameters of GSNR_j = gbar_j^2 / (Var_s g_sj + eps): the
//                          per-sample gradients g_sj of the batch (gbar_j = g_j their mean, Var the
//                          population variance), eps = 1e-5; Cockpit's MeanGSNR (Liu et al. 2020).
//                          NaN unless asked for (a Network given) and for batches of one sample.
//                          Dense layers get the squared per-sample gradients from one product,
//                          convolutions sample by sample (Layer::sampleGradientSquares).
// A neuron i is row i without its bias (its incoming connections; for a convolution, an output
// channel's kernel): all seven over that row, mean_share and moment_cv being f_i and the
// coefficient of variation of the row's first moment. The layer row takes the whole matrix for the
// first five and gradient_snr, for mean_share the energy-weighted f of its neurons (sum ||P m_i||^2 / sum ||m_i||^2:
// the share of the layer's first-moment energy that neuron-mean keeps) and no moment_cv (NaN).
// compute() allocates nothing: the result buffers are sized once, in the constructor.
#include "Tensor.h"
#include "nn/Layer.h"

#include <array>
#include <vector>

namespace ml {

class Network;
class Optimizer;

struct UnitDiagnostics {
    float gradientNorm = NAN;
    float updateNorm = NAN;
    float updateToWeight = NAN;
    float distanceFromInitial = NAN;
    float cosMomentGradient = NAN;
    float meanShare = NAN;
    float momentCv = NAN;
    float gradientSnr = NAN;
};

// A row of a column-major matrix (strided) or a contiguous one, without a copy.
using RowView = Eigen::Ref<const Eigen::RowVectorXf, 0, Eigen::InnerStride<>>;

// f = (sum m)^2 / (n sum m^2): 1 when all entries are equal, 0 when they sum to zero; NaN for m = 0.
double meanShare(RowView moment);
// std / |mean| (population standard deviation); inf when the mean is 0, NaN for an empty row.
double coefficientOfVariation(RowView moment);

class StepDiagnostics {
public:
    // `shapes`: the network's parameters (only their shapes are read).
    explicit StepDiagnostics(const Parameters& shapes);

    // After a step: the parameters after it, the gradient it used, the optimizer (first moment,
    // update) and the parameters before step 1. With `model` (the network whose training pass
    // produced `gradients`) also the gradient signal-to-noise ratio, from its per-sample gradients.
    void compute(const Parameters& parameters, const Parameters& gradients, const Optimizer& optimizer,
                 const Parameters& initialParameters, const Network* model = nullptr);

    static constexpr float kSnrEpsilon = 1e-5f;  // Cockpit's MeanGSNR default

    // layer(l)[0] is the whole layer, layer(l)[1 + i] neuron i.
    const std::vector<UnitDiagnostics>& layer(std::size_t l) const { return layers_[l]; }
    std::size_t layerCount() const { return layers_.size(); }

private:
    // Per-neuron sums over a set of columns: squares of g, u, w, w - w0; m, m^2, m * g, and the
    // squared deviations of m from the mean (free of cancellation: each block's from its own mean,
    // by a second pass over the block while it is in cache, joined by Chan et al.'s update); the
    // per-parameter GSNR.
    template <typename Scalar>
    struct Sums {
        using Array = Eigen::Array<Scalar, Eigen::Dynamic, 1>;
        Array gradient2, update2, weight2, distance2, moment, moment2, momentGradient, deviation2, snr;
        std::array<Array*, 9> all() {
            return {&gradient2, &update2, &weight2, &distance2, &moment, &moment2, &momentGradient, &deviation2, &snr};
        }
    };
    // A layer's sums: float over blocks of kBlockColumns columns (full SIMD width, no conversion),
    // joined into double (the precision of long rows).
    struct LayerSums {
        Sums<double> weights;  // the incoming weights (all columns but the last)
        Sums<double> bias;     // the bias column
        Sums<float> block;
        Eigen::ArrayXf blockMean;  // each neuron's mean first moment over the block's columns
    };
    static constexpr Eigen::Index kBlockColumns = 32;
    std::vector<std::vector<UnitDiagnostics>> layers_;
    std::vector<LayerSums> sums_;
    Parameters sampleSquares_;  // per layer: sum over the batch of squared per-sample gradients
    std::vector<Layer::SampleScratch> sampleScratch_;  // per layer: each keeps its sizes (no reallocation)
};

}  // namespace ml
