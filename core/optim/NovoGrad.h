#pragma once
// NovoGrad (Ginsburg et al. 2019): a second moment per tensor, the weight matrix W and the bias
// vector b separately. g: the gradient (no coupled decay); ||g||: the tensor's gradient norm.
//   D = sqrt(v) + eps; t = 1: v = ||g||^2, m = g/D + wd*w; later: v <- b2*v + (1-b2)*||g||^2, m <- b1*m + g/D + wd*w; w <- w - lr*m
// The paper speaks of layers; here each parameter tensor is one (weights and bias apart). The new
// term is not damped by (1-b1), as in the paper (some implementations offer that as an option).
// LayerState::secondMoment holds each tensor's v in all its entries.
// (The formula line is the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class NovoGrad : public Optimizer {
public:
    NovoGrad(std::string name, const HyperParameters& hp);

    // Its parts for the update explainer (UpdateRecipe.h).
    static const UpdateRecipe& explanation(const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
