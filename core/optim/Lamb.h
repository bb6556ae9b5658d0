#pragma once
// LAMB (You et al. 2020): Adam's moments with a layer-wise trust ratio. g: the gradient (no coupled decay);
// W the weight matrix, b the bias vector of a layer.
//   m <- b1*m + (1-b1)*g; v <- b2*v + (1-b2)*g^2; D = sqrt(v_hat) + eps; r = m_hat/D + wd*w (biases: no wd); T = ||W||/||R|| (1 when either is 0; biases: 1); w <- w - lr*T*r
// m_hat = m/(1-b1^t), v_hat = v/(1-b2^t). The paper scales the ratio with a function phi(||W||);
// this rule takes phi = identity, as common implementations do, and exempts biases from decay and
// trust ratio.
// (The formula line is the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class Lamb : public Optimizer {
public:
    Lamb(std::string name, const HyperParameters& hp);

    // Its parts for the update explainer (UpdateRecipe.h).
    static const UpdateRecipe& explanation(const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
