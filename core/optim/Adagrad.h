#pragma once
// Adagrad (torch.optim.Adagrad):
//   g <- g + weight_decay * w;  clr = lr / (1 + (t - 1) * lr_decay)
//   s <- s + g^2  (s_0 = initial_accumulator);   w <- w - clr * g / (sqrt(s) + eps)
#include "optim/Optimizer.h"

namespace ml {

class Adagrad : public Optimizer {
public:
    Adagrad(std::string name, const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
