#pragma once
// Adafactor (Shazeer & Stern 2018): a factored second moment of the weight matrix (row sums R and
// column sums C), update clipping and a step relative to the weights' RMS. G: the weight matrix's
// gradient (no coupled decay).
//   b2_t = 1 - t^-0.8; R <- b2_t*R + (1-b2_t)*rowsum(G^2 + eps1); C <- b2_t*C + (1-b2_t)*colsum(G^2 + eps1); V = R*C^T/sum(R); D = sqrt(V); U = G/D; U <- U/max(1, RMS(U)); alpha = max(eps2, RMS(W))*rho; b1 = 0: W <- W - alpha*U; b1 > 0: m <- b1*m + (1-b1)*U, W <- W - alpha*m (a bias vector: v <- b2_t*v + (1-b2_t)*(g^2 + eps1), D = sqrt(v), U = g/D, same clipping and alpha); rho = lr, or min(1e-2, 1/sqrt(t)) when lr = 0; eps1 = 1e-30, eps2 = 1e-3
// As the paper (Algorithms 4 and 5, with its eps1, eps2, d, b2_t and relative step). Common code (e.g.
// Hugging Face's Adafactor) keeps row and column means instead of sums, which gives the same V, and
// uses the relative step only when no lr is given; here lr 0 (the default) means "not given". RMS(W)
// is taken before the step. In float, V underflows to 0 where a row and a column without gradient
// meet (a dead unit and an always-zero input; G = 0 there): U is 0 there, not 0/0. LayerState::secondMoment holds V (bias column: the bias's v),
// rowSecondMoment R, columnSecondMoment C.
// (The formula line is the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class Adafactor : public Optimizer {
public:
    Adafactor(std::string name, const HyperParameters& hp);

    // Its parts for the update explainer (UpdateRecipe.h).
    static const UpdateRecipe& explanation(const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
