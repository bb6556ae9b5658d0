#pragma once
// Adam and AdamW (torch.optim.Adam / AdamW), with bias correction. adam: g includes
// weight_decay * w; M: MomentumAggregation (identity for none); S: SecondMomentSharing
// (identity for none); b1, b2: beta1, beta2.
//   adam:  m <- b1*M(m) + (1-b1)*g; v <- S(b2*v + (1-b2)*g^2); v_hat = v, amsgrad: v_hat <- max(v_hat, v); D = sqrt(v_hat)/sqrt(1-b2^t) + eps; w <- w - lr/(1-b1^t) * m/D
//   adamw: w <- w*(1 - lr*wd), then the adam step with g the plain gradient
// (The formula lines are the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class Adam : public Optimizer {
public:
    // Coupled: weight decay joins the gradient (adam); Decoupled: it shrinks the weights (adamw).
    enum class WeightDecay { Coupled, Decoupled };

    Adam(std::string name, const HyperParameters& hp, WeightDecay weightDecay, MomentumAggregation aggregation);

    // Its parts for the update explainer (UpdateRecipe.h).
    static const UpdateRecipe& explanation(const HyperParameters& hp, WeightDecay weightDecay);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;

private:
    bool decoupled_;
};

}  // namespace ml
