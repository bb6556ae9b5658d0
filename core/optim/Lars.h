#pragma once
// LARS (You et al. 2017): SGD with momentum and a layer-wise learning rate. g: the gradient (no
// coupled decay); W, G the weight matrix and its gradient; eta: --trust; mu: --momentum.
//   T = eta*||W||/(||G|| + wd*||W||) (1 when either norm is 0; biases: 1 and no wd); a_0 = 0; a <- μ*a + lr*T*(g + wd*w); w <- w - a
// The paper's Algorithm 1 with its global learning-rate schedule gamma_t taken constant (lr); biases
// are exempt from the local rate and the decay.
// (The formula line is the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class Lars : public Optimizer {
public:
    Lars(std::string name, const HyperParameters& hp);

    // Its parts for the update explainer (UpdateRecipe.h).
    static const UpdateRecipe& explanation(const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
