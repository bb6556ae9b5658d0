#pragma once
// Adam and AdamW (torch.optim.Adam / AdamW), with bias correction:
//   adam: g <- g + weight_decay * w          adamw: w <- w * (1 - lr * weight_decay)
//   m <- beta1 * M(m) + (1 - beta1) * g;  v <- beta2 * v + (1 - beta2) * g^2   (M: MomentumAggregation)
//   v_hat = max(v_hat, v) with amsgrad, else v
//   w <- w - lr / (1 - beta1^t) * m / (sqrt(v_hat) / sqrt(1 - beta2^t) + eps)
#include "optim/Optimizer.h"

namespace ml {

class Adam : public Optimizer {
public:
    // Coupled: weight decay joins the gradient (adam); Decoupled: it shrinks the weights (adamw).
    enum class WeightDecay { Coupled, Decoupled };

    Adam(std::string name, const HyperParameters& hp, WeightDecay weightDecay, MomentumAggregation aggregation);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(Matrix& parameters, const Matrix& gradient, LayerState& state) override;

private:
    bool decoupled_;
};

}  // namespace ml
