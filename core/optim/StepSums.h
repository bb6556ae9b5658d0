#pragma once
// The per-neuron sums behind one step's diagnostics (diagnostics/StepDiagnostics.h turns them into
// norms, ratios and shares). For a layer matrix [out x (in + 1)], per row, in double, apart for the
// incoming weights (all columns but the last) and the bias column: the squares of the gradient g,
// the update u, the weights after it w and of w - w0 (w0: before step 1); the first moment m, m^2,
// m * g, and the squared deviations of m from its row mean.
// One blocked pass per layer reads each matrix from memory once. Optimizer::step runs it when asked
// before a step (collectStepSums), in place of its finite check, while the layer's gradient, moment
// and update are still in cache; StepDiagnostics runs it afterwards for a step nobody announced.
#include "Tensor.h"

#include <array>
#include <vector>

namespace ml {

class StepSums {
public:
    struct Sums {
        Eigen::ArrayXd gradient2, update2, weight2, distance2, moment, moment2, momentGradient, deviation2;
        std::array<Eigen::ArrayXd*, 8> all() {
            return {&gradient2, &update2, &weight2, &distance2, &moment, &moment2, &momentGradient, &deviation2};
        }
    };
    struct Layer {
        Sums weights;  // the incoming weights (all columns but the last)
        Sums bias;     // the bias column
    };

    // Sized for these layer shapes; reuses its buffers when they already fit (no allocation).
    void resize(const Parameters& shapes);
    // Layer l's sums. `w` holds the weights before the update when `weightsBeforeUpdate` (the
    // optimizer, before applying it: w + u is summed, as step() will store it), else after it.
    // `m` may be empty (a rule without a first moment: its sums stay 0). Returns whether every w + u
    // is finite (always true after the update).
    bool accumulate(std::size_t l, const Matrix& g, const Matrix& u, const Matrix& w, bool weightsBeforeUpdate,
                    const Matrix& w0, const Matrix& m);
    const Layer& layer(std::size_t l) const { return layers_[l]; }
    std::size_t layerCount() const { return layers_.size(); }

private:
    template <typename Chunk, bool hasMoment, bool beforeUpdate>
    static void accumulateBlock(const Matrix& g, const Matrix& u, const Matrix& w, const Matrix& w0, const Matrix& m,
                                Eigen::Index first, Eigen::Index count, Eigen::Index blockStart, Eigen::Index blockEnd,
                                Layer& sums, float& finite);
    static constexpr Eigen::Index kBlockColumns = 16;
    static constexpr Eigen::Index kChunkRows = 16;  // one AVX-512 register of floats per sum
    std::vector<Layer> layers_;
};

}  // namespace ml
