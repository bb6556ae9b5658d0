#pragma once
// SM3-II (Anil et al. 2019) with row and column covers of the weight matrix: one accumulator per
// neuron (mu_row) and per input (mu_col) instead of one per weight. g: the gradient (no coupled decay).
//   nu_ij = min(mu_row_i, mu_col_j) + g_ij^2; mu_row_i <- max_j nu_ij; mu_col_j <- max_i nu_ij (mu_0 = 0; a bias entry is its own cover: nu <- nu + g^2); D = sqrt(nu) (g/D = 0 where nu = 0); μ > 0: m <- μ*m + (1-μ)*g/D, w <- w - lr*m; else w <- w - lr*g/D
// SM3-II itself has no momentum (the paper's experiments add one); here it is an
// exponential average of the preconditioned gradient. LayerState::secondMoment holds nu,
// rowSecondMoment mu_row, columnSecondMoment mu_col.
// (The formula line is the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class Sm3 : public Optimizer {
public:
    Sm3(std::string name, const HyperParameters& hp);

    // Its parts for the update explainer (UpdateRecipe.h).
    static const UpdateRecipe& explanation(const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
