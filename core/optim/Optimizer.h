#pragma once
// The optimizer interface. Every rule is: hyper-parameters (HyperParameters, defaults in
// OptimizerCatalog) + per-layer state (LayerState, keyed by layer index) + one update.
// A layer's parameters are one [out x (in+1)] matrix (bias in the last column), so each rule
// is written once for weights and biases alike.
#include "Tensor.h"
#include "optim/HyperParameters.h"
#include "optim/MomentumAggregation.h"
#include "optim/SecondMomentSharing.h"
#include "optim/StepSums.h"

#include <string>
#include <vector>

namespace ml {

class UpdateRecipe;  // a rule's parts for the update explainer (UpdateRecipe.h)

// What a rule keeps for one layer; every buffer has the layer's shape, or is empty when the rule
// (with its settings) does not use it. Snapshots and the GUI show firstMoment and secondMoment.
struct LayerState {
    Matrix firstMoment;       // momentum buffer b (SGD family, rmsprop with momentum) or m (adam, sgdm-ema)
    Matrix secondMoment;      // v: running mean of g^2 (adam, rmsprop), or s: sum of g^2 (adagrad)
    Matrix maxSecondMoment;   // amsgrad: running maximum of v
    Matrix centredMean;       // rmsprop centered: running mean of g
    Matrix update;            // what the last step added to the parameters (or would have, if refused)
    Matrix ruleGradient;      // scratch: g + weight_decay * w, centralised, when either is on
    Vector groupMeans;        // scratch of the momentum aggregation
    Vector gradientRowMeans;  // scratch of gradient centralization
    Vector secondMomentRows, secondMomentColumns;  // scratch of the second-moment sharing
    Vector rowSecondMoment;                        // per-neuron second moment: adafactor R, sm3 mu_row, nero S
    Vector columnSecondMoment;                     // per-input second moment: adafactor C, sm3 mu_col
    Vector tensorScales;                           // nero: the step scale of the weight matrix and of the bias vector
    Eigen::Index columnsPerInput = 1;              // the layer's weight columns per input (fan-out groups; k*k conv)
};

// The buffers that carry a rule's state from one step to the next, by name (the keys of a
// training-state file, train/TrainingState.h); the rest of LayerState is scratch that every step
// rebuilds. The one list every rule's state is saved and restored through: a new buffer is one line here.
template <typename State, typename Visit>
void forEachStateBuffer(State& state, Visit&& visit) {
    visit("first_moment", state.firstMoment);
    visit("second_moment", state.secondMoment);
    visit("max_second_moment", state.maxSecondMoment);
    visit("centred_mean", state.centredMean);
    visit("update", state.update);
    visit("row_second_moment", state.rowSecondMoment);
    visit("column_second_moment", state.columnSecondMoment);
    visit("tensor_scales", state.tensorScales);
}

// The two tensors of a layer matrix, for rules that treat them apart: the weights [out x in] and
// the bias vector (the last column).
template <typename M>
auto weightsOf(M& layer) {
    return layer.leftCols(layer.cols() - 1);
}
template <typename M>
auto biasOf(M& layer) {
    return layer.rightCols(1);
}

class Optimizer {
public:
    Optimizer(std::string name, const HyperParameters& hp, MomentumAggregation aggregation = {});
    virtual ~Optimizer() = default;
    Optimizer(const Optimizer&) = delete;
    Optimizer& operator=(const Optimizer&) = delete;

    // One update of all layers. State is allocated on the first call (zero-filled). When an update
    // would make a parameter non-finite, no layer is changed and it returns false (the run has
    // diverged; the state then holds that step's moments and is not meant to continue).
    bool step(Parameters& parameters, const Parameters& gradients);
    // The rule's constraint on the weights it starts from, applied to a fresh run's parameters
    // before the first forward pass (nero: centred, unit-length weight rows; the others: none).
    // Parameters that already satisfy it stay exactly as they are (a fork resumes from constrained
    // weights). Returns whether anything changed.
    virtual bool constrainInitialParameters(Parameters&) const { return false; }
    // The weight columns per input of each layer (Network::columnsPerInput()); before the first
    // step. Without it every layer is dense (one column per input).
    void setColumnsPerInput(std::vector<Eigen::Index> columnsPerInput) {
        columnsPerInput_ = std::move(columnsPerInput);
    }

    // For continuing from a saved state: allocates the state for `parameters` as the first step
    // would (zero-filled, the rule's buffers only), sets the step count (the bias corrections
    // continue from it) and returns the layers' states for the caller to fill.
    std::vector<LayerState>& restoreState(const Parameters& parameters, long stepCount);

    // For diagnostics: the next step (only) also fills the per-neuron sums of StepSums.h, in the pass
    // that checks its update for finite values (the layer's gradient, moment and update still in
    // cache), `initial` being the parameters before step 1. Off (no call) costs nothing.
    void collectStepSums(const Parameters& initial) { sumsInitial_ = &initial; }
    // Those sums, when the last step collected them for these very matrices; otherwise null.
    const StepSums* stepSums(const Parameters& parameters, const Parameters& gradients,
                             const Parameters& initial) const;

    const std::string& name() const { return name_; }
    const HyperParameters& hyperParameters() const { return hp_; }
    const MomentumAggregation& aggregation() const { return aggregation_; }
    const SecondMomentSharing& secondMomentSharing() const { return secondMomentSharing_; }
    long stepCount() const { return step_; }
    const LayerState& layerState(std::size_t layer) const { return states_.at(layer); }
    std::size_t layerCount() const { return states_.size(); }

protected:
    // Which buffers the rule keeps; called once per layer before the first step.
    virtual void allocate(const Matrix& parameters, LayerState& state) const = 0;
    // Must set state.update to the change of `parameters` (step() applies it). stepCount() is
    // already t (1-based).
    virtual void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) = 0;

    // The gradient the rule works with: g + weight_decay * w (coupled decay; 0 when the rule has
    // none or decouples it), then with --gradient-centralization each weight row loses its mean,
    // g_ij <- g_ij - mean_k g_ik (biases untouched). g itself when neither applies.
    const Matrix& ruleGradient(const Matrix& gradient, const Matrix& parameters, LayerState& state,
                               double weightDecay) const;
    // state.secondMoment <- its shared form (--second-moment-mean; identity for none).
    void shareSecondMoment(LayerState& state) const;

private:
    void allocateState(const Parameters& parameters);
    std::string name_;
    HyperParameters hp_;
    MomentumAggregation aggregation_;
    SecondMomentSharing secondMomentSharing_;
    long step_ = 0;
    std::vector<LayerState> states_;
    std::vector<Eigen::Index> columnsPerInput_;
    const Parameters* sumsInitial_ = nullptr;  // collectStepSums: for the next step only
    StepSums stepSums_;                        // sized once, at the first step that collects
    struct SumsSource {
        const Parameters* parameters = nullptr;
        const Parameters* gradients = nullptr;
        const Parameters* initial = nullptr;
        long step = 0;
    } sumsSource_;  // what stepSums_ describes
};

}  // namespace ml
