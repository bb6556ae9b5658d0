#pragma once
// Nero (Liu et al. 2021; reference: nero.py in github.com/jxbz/nero): per-neuron relative steps on
// weight rows kept centred and of unit length. g: the gradient (no coupled decay); g_i, w_i: neuron
// i's row of the weight matrix; b: beta2.
//   before the first forward pass: each weight row w_i <- (w_i - mean(w_i))/||w_i - mean(w_i)||; t = 1: scale = mean_i ||w_i|| (bias vector: mean |b|; 0.01 where 0); S_i <- b*S_i + (1-b)*||g_i||^2 (a bias entry: g^2); D = sqrt(S/(1-b^t)); w <- w - lr*scale*g/D (0 where S = 0); then each weight row is centred and normalised again
// As nero.py: the rows are projected when the rule starts (constrainInitialParameters, called by
// the trainer before the first forward pass, so the first gradient is taken at projected weights),
// the scale is taken after that projection (so 1 for a weight matrix without a constant row) and
// biases are scaled but never projected. A row that centres to 0 stays 0 (rather
// than 0/0). LayerState::rowSecondMoment holds S_i, secondMoment S spread over each row
// (bias column: the biases' S), tensorScales the two scales.
// (The formula line is the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Optimizer.h"

namespace ml {

class Nero : public Optimizer {
public:
    Nero(std::string name, const HyperParameters& hp);
    // Each weight row centred and normalised, as nero.py does when the optimizer is created (so the
    // first gradient is taken at projected weights); a row already so (to float rounding) is kept.
    bool constrainInitialParameters(Parameters& parameters) const override;

    // Its parts for the update explainer (UpdateRecipe.h).
    static const UpdateRecipe& explanation(const HyperParameters& hp);

protected:
    void allocate(const Matrix& parameters, LayerState& state) const override;
    void update(const Matrix& parameters, const Matrix& gradient, LayerState& state) override;
};

}  // namespace ml
