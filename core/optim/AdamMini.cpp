#include "optim/AdamMini.h"

namespace ml {

namespace {
HyperParameters withSecondMomentPerNeuron(HyperParameters hp) {
    hp.secondMomentMean = SecondMomentScope::FanIn;
    hp.amsgrad = false;
    return hp;
}
}  // namespace

AdamMini::AdamMini(std::string name, const HyperParameters& hp, MomentumAggregation aggregation)
    : Adam(std::move(name), withSecondMomentPerNeuron(hp), WeightDecay::Decoupled, aggregation) {}

}  // namespace ml
