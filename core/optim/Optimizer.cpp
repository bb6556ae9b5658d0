#include "optim/Optimizer.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace ml {

namespace {
// Whether every a + b is finite, in one vectorized pass: x - x is 0 for a finite x and NaN for an
// infinite or NaN one, and a sum keeps NaN. (allFinite() on the expression evaluates a + b four
// times per coefficient and compares them one by one.)
bool sumIsFinite(const Matrix& a, const Matrix& b) {
    const auto sum = a.array() + b.array();
    return !std::isnan((sum - sum).sum());
}
}  // namespace

Optimizer::Optimizer(std::string name, const HyperParameters& hp, MomentumAggregation aggregation)
    : name_(std::move(name)), hp_(hp), aggregation_(aggregation), secondMomentSharing_(hp.secondMomentMean, hp.bias) {}

void Optimizer::allocateState(const Parameters& parameters) {
    states_.clear();
    states_.resize(parameters.size());
    for (std::size_t l = 0; l < parameters.size(); ++l) {
        if (l < columnsPerInput_.size()) states_[l].columnsPerInput = columnsPerInput_[l];
        allocate(parameters[l], states_[l]);
        states_[l].update = Matrix::Zero(parameters[l].rows(), parameters[l].cols());
        aggregation_.reserveScratch(parameters[l], states_[l].groupMeans);
        secondMomentSharing_.reserveScratch(parameters[l], states_[l].secondMomentRows, states_[l].secondMomentColumns);
    }
}

std::vector<LayerState>& Optimizer::restoreState(const Parameters& parameters, long stepCount) {
    allocateState(parameters);
    step_ = stepCount;
    return states_;
}

bool Optimizer::step(Parameters& parameters, const Parameters& gradients) {
    if (states_.empty()) allocateState(parameters);
    ++step_;
    const Parameters* initial = std::exchange(sumsInitial_, nullptr);
    sumsSource_ = {};
    if (initial) {
        if (initial->size() != parameters.size())
            throw std::logic_error("Optimizer::collectStepSums: the initial parameters have another layer count");
        for (std::size_t l = 0; l < parameters.size(); ++l)
            if ((*initial)[l].rows() != parameters[l].rows() || (*initial)[l].cols() != parameters[l].cols())
                throw std::logic_error("Optimizer::collectStepSums: the initial parameters have another shape");
        stepSums_.resize(parameters);
    }
    bool finite = true;
    for (std::size_t l = 0; l < parameters.size(); ++l) {
        update(parameters[l], gradients[l], states_[l]);
        const Matrix& u = states_[l].update;
        // The sum itself, not just the update: a finite update can still overflow the weight. The
        // sums' pass checks the same w + u on its way.
        finite = finite && (initial ? stepSums_.accumulate(l, gradients[l], u, parameters[l], true, (*initial)[l],
                                                           states_[l].firstMoment)
                                    : sumIsFinite(parameters[l], u));
    }
    if (!finite) return false;  // keep the last finite weights
    for (std::size_t l = 0; l < parameters.size(); ++l) parameters[l] += states_[l].update;
    if (initial) sumsSource_ = {&parameters, &gradients, initial, step_};
    return true;
}

const StepSums* Optimizer::stepSums(const Parameters& parameters, const Parameters& gradients,
                                    const Parameters& initial) const {
    const bool same = sumsSource_.step == step_ && sumsSource_.parameters == &parameters &&
                      sumsSource_.gradients == &gradients && sumsSource_.initial == &initial;
    return same ? &stepSums_ : nullptr;
}

const Matrix& Optimizer::ruleGradient(const Matrix& gradient, const Matrix& parameters, LayerState& state,
                                      double weightDecay) const {
    if (weightDecay == 0.0 && !hp_.gradientCentralization) return gradient;
    if (weightDecay == 0.0) state.ruleGradient = gradient;
    else state.ruleGradient = gradient + static_cast<float>(weightDecay) * parameters;
    if (hp_.gradientCentralization) {
        auto weights = weightsOf(state.ruleGradient);
        state.gradientRowMeans = weights.rowwise().mean();
        weights.colwise() -= state.gradientRowMeans;
    }
    return state.ruleGradient;
}

void Optimizer::shareSecondMoment(LayerState& state) const {
    secondMomentSharing_.share(state.secondMoment, state.secondMomentRows, state.secondMomentColumns,
                               state.columnsPerInput);
}

}  // namespace ml
