#pragma once
// Per-layer and per-neuron diagnostics of one training step (what docs/guide/diagnostics.md documents as
// the columns of diagnostics.csv). For a layer matrix [out x (in + 1)] (bias in the last column):
//   gradient_norm          ||g||            (g: the step's batch gradient)
//   update_norm            ||u||            (u: w_after - w_before)
//   update_to_weight       ||u|| / ||w||
//   distance_from_initial  ||w - w0||
//   cos_moment_gradient    <m, g> / (||m|| ||g||)   (m: the optimizer's first moment; NaN without one)
//   mean_share             f = ||P m||^2 / ||m||^2, P the projection on the all-ones direction
//   moment_cv              std(m_ij) / |mean(m_ij)| over the connections
//   gradient_snr           ||gbar||^2 / ((1/B) sum_s ||g_s - gbar||^2): the B per-sample gradients
//                          g_s of the batch, gbar = g their mean; the inverse of McCandlish et al.
//                          2018's simple noise scale tr(Sigma) / |G|^2. NaN unless asked for (a
//                          Network given) and for batches of one sample. sum_s ||g_s||^2 comes from
//                          Layer::sampleGradientNormSquares (dense: ||x_s||^2 ||delta_s||^2, no
//                          product; convolutions: sample by sample).
// A neuron i is row i without its bias (its incoming connections; for a convolution, an output
// channel's kernel): all eight over that row, mean_share and moment_cv being f_i and the
// coefficient of variation of the row's first moment. The layer row takes the whole matrix for the
// first five and gradient_snr (biases included), for mean_share the energy-weighted f of its neurons (sum ||P m_i||^2 / sum ||m_i||^2:
// the share of the layer's first-moment energy that neuron-mean keeps) and no moment_cv (NaN).
// The sums behind them (optim/StepSums.h) come from the optimizer's own pass over the step when it
// was asked to collect them (Optimizer::collectStepSums, as the trainer does for a step an observer
// wants), else from one pass here. compute() allocates nothing: the buffers are sized once, in the constructor.
#include "Tensor.h"
#include "nn/Layer.h"
#include "optim/StepSums.h"

#include <vector>

namespace ml {

class Network;
class Optimizer;
struct Snapshot;

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
    // The same from a saved snapshot (its weights, gradient, update and first moment: a run folder
    // without diagnostics.csv, a recorded PyTorch run); no gradient SNR (no per-sample gradients),
    // distance_from_initial NaN without the initial weights. False (nothing computed) for a snapshot
    // of other shapes or without gradient and update (final weights only).
    bool compute(const Snapshot& snapshot, const Parameters* initialParameters);

    // layer(l)[0] is the whole layer, layer(l)[1 + i] neuron i.
    const std::vector<UnitDiagnostics>& layer(std::size_t l) const { return layers_[l]; }
    std::size_t layerCount() const { return layers_.size(); }

private:
    void computeLayer(std::size_t l, const Matrix& w, const Matrix& g, const Matrix& u, const Matrix& m,
                      const Matrix& w0, const StepSums* collected, const Network* model);

    std::vector<std::vector<UnitDiagnostics>> layers_;
    StepSums ownSums_;  // for a step whose optimizer did not collect them (Optimizer::collectStepSums)
    std::vector<Layer::SampleNormSquares> sampleNorms_;  // per layer: sum_s ||c_s||^2 per row
    std::vector<Layer::SampleScratch> sampleScratch_;    // per layer: each keeps its sizes (no reallocation)
};

}  // namespace ml
