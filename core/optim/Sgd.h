#pragma once
// SGD, SGD with momentum, Nesterov, and the neuron-mean variant (torch.optim.SGD's algorithm).
// g includes weight_decay * w; a: the first moment; μ: momentum; M: MomentumAggregation (identity for none).
//   sgd:         w <- w - lr*g
//   momentum:    a_1 = g; a <- μ*M(a) + (1-dampening)*g; w <- w - lr*a
//   nesterov:    a_1 = g; a <- μ*M(a) + g; w <- w - lr*(g + μ*a)
//   neuron-mean: a_1 = g; a <- μ*M(a) + (1-dampening)*g, M(a) = the mean of a over the neuron's incoming connections; w <- w - lr*a
// neuron-mean is momentum with M = fan-in: the seed's a = g + μ*mean_incoming(a). With
// momentum 0, momentum and neuron-mean are plain SGD.
// (The formula lines are the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class Sgd : public Optimizer {
public:
    // None: plain SGD; Classic: step along a; Nesterov: along g + μ*a. Classic and Nesterov fall back to
    // plain SGD when momentum is 0.
    enum class Momentum { None, Classic, Nesterov };

    Sgd(std::string name, const HyperParameters& hp, Momentum momentum, MomentumAggregation aggregation = {});

    // Its parts for the update explainer (UpdateRecipe.h): plain sgd when momentum is 0.
    static const UpdateRecipe& explanation(const HyperParameters& hp, Momentum momentum);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;

private:
    bool useMomentum_;  // a momentum buffer is kept (Classic or Nesterov, and momentum > 0)
    bool nesterov_;
};

}  // namespace ml
