#pragma once
// Adam-mini (Zhang et al. 2024): one second moment per neuron, the mean of g^2 over its incoming
// weights (each bias its own v; with --bias join the bias joins its neuron's block). wd is decoupled.
//   m <- b1*M(m) + (1-b1)*g; v_i <- b2*v_i + (1-b2)*mean_j g_ij^2; D = sqrt(v)/sqrt(1-b2^t) + eps; w <- w*(1 - lr*wd), then w <- w - lr/(1-b1^t) * m/D
// It is adamw with --second-moment-mean fan-in (and no amsgrad), and is built as exactly that:
// v_i <- mean_j (b2*v_i + (1-b2)*g_ij^2) is the formula above, since v_i is one value per block.
// The paper partitions by the Hessian's blocks (attention heads, embedding rows, output neurons);
// for a dense layer the block is a neuron's incoming weights, as here; the bias follows --bias.
// (The formula line is the catalog's, OptimizerCatalog.cpp, verbatim; tests/test_optimizer_docs checks.)
#include "optim/Adam.h"

namespace ml {

class AdamMini : public Adam {
public:
    AdamMini(std::string name, const HyperParameters& hp, MomentumAggregation aggregation);
};

}  // namespace ml
