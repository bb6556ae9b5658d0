#pragma once
// RMSprop (torch.optim.RMSprop):
//   g <- g + weight_decay * w;  v <- alpha * v + (1 - alpha) * g^2
//   centered: c <- alpha * c + (1 - alpha) * g;  d = sqrt(v - c^2) + eps   else d = sqrt(v) + eps
//   momentum > 0: b <- mu * b + g / d;  w <- w - lr * b      else  w <- w - lr * g / d
#include "optim/Optimizer.h"

namespace ml {

class RmsProp : public Optimizer {
public:
    RmsProp(std::string name, const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
