#pragma once
// SGD, SGD with momentum, Nesterov, and the neuron-mean variant (torch.optim.SGD's algorithm):
//   g <- g + weight_decay * w
//   b_1 = g;  b_t = mu * M(b_{t-1}) + (1 - tau) * g      (M: MomentumAggregation, identity for none)
//   d = g + mu * b (nesterov) or b (momentum) or g (mu = 0);   w <- w - lr * d
// With tau = 0 and M = fan-in this is the seed's a = grad + mu * mean_incoming(a) ("neuron-mean").
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
    void update(Matrix& parameters, const Matrix& gradient, LayerState& state) override;

private:
    bool useMomentum_;  // a momentum buffer is kept (Classic or Nesterov, and momentum > 0)
    bool nesterov_;
};

}  // namespace ml
