#pragma once
// SGD, SGD with momentum, Nesterov, and the neuron-mean variant (torch.optim.SGD's algorithm).
// g includes weight_decay * w; M: MomentumAggregation (identity for none); tau: dampening.
//   sgd:         w <- w - lr*g
//   momentum:    b_1 = g; b <- mu*M(b) + (1-tau)*g; w <- w - lr*b
//   nesterov:    b_1 = g; b <- mu*M(b) + g; w <- w - lr*(g + mu*b)
//   neuron-mean: a_1 = g; a_jk <- mu*mean_i(a_ji) + (1-tau)*g_jk; w <- w - lr*a
// neuron-mean is momentum with M = fan-in: the seed's a = grad + mu * mean_incoming(a). With
// momentum 0, momentum and neuron-mean are plain SGD.
// (The formula lines are the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class Sgd : public Optimizer {
public:
    // None: plain SGD; Classic: d = b; Nesterov: d = g + mu * b. Classic and Nesterov fall back to
    // plain SGD when momentum is 0.
    enum class Momentum { None, Classic, Nesterov };

    Sgd(std::string name, const HyperParameters& hp, Momentum momentum, MomentumAggregation aggregation = {});

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;

private:
    bool useMomentum_;  // a momentum buffer is kept (Classic or Nesterov, and momentum > 0)
    bool nesterov_;
};

}  // namespace ml
