#pragma once
// SGD with momentum in exponential-moving-average form (the second seed's "SGDM", literally).
// μ is the `momentum` hyper-parameter; M: MomentumAggregation (identity for none).
//   m_0 = 0; m <- μ*M(m) + (1-μ)*g; w <- w - lr*m
// The first step is damped by (1 - μ), unlike PyTorch's dampening, which leaves a_1 = g.
// (The formula lines are the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class EmaMomentum : public Optimizer {
public:
    EmaMomentum(std::string name, const HyperParameters& hp, MomentumAggregation aggregation);

    // Its parts for the update explainer (UpdateRecipe.h).
    static const UpdateRecipe& explanation(const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
