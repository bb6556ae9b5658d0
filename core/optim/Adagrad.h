#pragma once
// Adagrad (torch.optim.Adagrad). g includes weight_decay * w; S: SecondMomentSharing (identity for none).
//   s_0 = initial_accumulator; s <- S(s + g^2); D = sqrt(s)+eps; w <- w - lr/(1+(t-1)*lr_decay) * g/D
// (The formula lines are the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class Adagrad : public Optimizer {
public:
    Adagrad(std::string name, const HyperParameters& hp);

    // Its parts for the update explainer (UpdateRecipe.h).
    static const UpdateRecipe& explanation(const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
