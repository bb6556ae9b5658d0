#pragma once
// RMSprop (torch.optim.RMSprop). g includes weight_decay * w; mu: momentum (b_0 = 0, kept in
// LayerState::firstMoment), c: LayerState::centredMean, S: SecondMomentSharing (identity for none;
// --centered needs none: v - c^2 of a shared v could be negative).
//   v <- S(alpha*v + (1-alpha)*g^2); D = sqrt(v)+eps, centered: c <- alpha*c + (1-alpha)*g, D = sqrt(v - c^2)+eps; a <- μ*a + g/D; w <- w - lr*a (μ = 0: w <- w - lr*g/D)
// (The formula lines are the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class RmsProp : public Optimizer {
public:
    RmsProp(std::string name, const HyperParameters& hp);

    // Its parts for the update explainer (UpdateRecipe.h).
    static const UpdateRecipe& explanation(const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
