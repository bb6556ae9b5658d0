#include "optim/StepSums.h"

#include <algorithm>
#include <cmath>

namespace ml {

namespace {

void setZero(const std::array<Eigen::ArrayXd*, 8>& arrays, Eigen::Index rows) {
    for (auto* array : arrays) array->setZero(rows);  // no allocation when the size is unchanged
}

// Rows [first, first + count) of column j, as a Chunk (16 floats fixed, or fewer), in place.
template <typename Chunk>
Eigen::Map<const Chunk> rowsOf(const Matrix& matrix, Eigen::Index j, Eigen::Index first, Eigen::Index count) {
    const float* data = matrix.data() + j * matrix.rows() + first;
    if constexpr (Chunk::SizeAtCompileTime == Eigen::Dynamic) return Eigen::Map<const Chunk>(data, count);
    else return Eigen::Map<const Chunk>(data);
}

}  // namespace

void StepSums::resize(const Parameters& shapes) {
    layers_.resize(shapes.size());
    for (std::size_t l = 0; l < shapes.size(); ++l) {
        setZero(layers_[l].weights.all(), shapes[l].rows());
        setZero(layers_[l].bias.all(), shapes[l].rows());
    }
}

// The sums of one block of columns [blockStart, blockEnd) for a chunk of rows, column by column,
// every sum of the chunk in registers (float, full SIMD width). The block's deviations of m from
// its own mean come from a second look at its columns while they are still in cache (free of
// cancellation); the block then joins the double sums, the deviations by Chan et al.'s update
// M2 = M2_a + M2_b + (mean_b - mean_a)^2 n_a n_b / (n_a + n_b). The bias column is a block of its own.
// Before the update, w + u is what is summed, and `finite` turns NaN when any of it is not finite
// (x - x is 0 for a finite x, NaN otherwise).
template <typename Chunk, bool hasMoment, bool beforeUpdate>
void StepSums::accumulateBlock(const Matrix& g, const Matrix& u, const Matrix& w, const Matrix& w0, const Matrix& m,
                               Eigen::Index first, Eigen::Index count, Eigen::Index blockStart, Eigen::Index blockEnd,
                               Layer& sums, float& finite) {
    const Eigen::Index in = w.cols() - 1;
    const auto load = [first, count](const Matrix& matrix, Eigen::Index j) {
        return rowsOf<Chunk>(matrix, j, first, count);
    };
    // The chunk's rows of a double sum: a fixed-size segment for a full chunk (vectorised whole).
    const auto into = [=](Eigen::ArrayXd& sum) {  // count is read only by the dynamic-size chunk
        if constexpr (Chunk::SizeAtCompileTime == Eigen::Dynamic) return sum.segment(first, count);
        else return sum.template segment<Chunk::SizeAtCompileTime>(first);
    };
    const bool bias = blockStart == in;
    Chunk gradient2 = Chunk::Zero(count), update2 = gradient2, weight2 = gradient2, distance2 = gradient2,
          moment = gradient2, moment2 = gradient2, momentGradient = gradient2, deviation2 = gradient2,
          check = gradient2;
    // The next chunk's rows of this column (the next cache line of each matrix): the columns are a
    // strided walk the hardware prefetcher does not follow, and the pass would wait on every load.
    const auto prefetchNext = [first](const Matrix& matrix, Eigen::Index j) {
        __builtin_prefetch(matrix.data() + j * matrix.rows() + first + kChunkRows);
    };
    for (Eigen::Index j = blockStart; j < blockEnd; ++j) {
        prefetchNext(g, j), prefetchNext(u, j), prefetchNext(w, j), prefetchNext(w0, j);
        if constexpr (hasMoment) prefetchNext(m, j);
        const auto gj = load(g, j);
        const auto uj = load(u, j);
        Chunk wj;
        if constexpr (beforeUpdate) {
            wj = load(w, j) + uj;
            check += wj - wj;
        } else {
            wj = load(w, j);
        }
        gradient2 += gj.square();
        update2 += uj.square();
        weight2 += wj.square();
        distance2 += (wj - load(w0, j)).square();
        if constexpr (hasMoment) {
            const auto mj = load(m, j);
            moment += mj;
            moment2 += mj.square();
            momentGradient += mj * gj;
        }
    }
    if constexpr (beforeUpdate) finite += check.sum();
    const double columns = static_cast<double>(blockEnd - blockStart);
    Sums& target = bias ? sums.bias : sums.weights;
    if constexpr (hasMoment) {
        if (!bias) {
            const Chunk mean = moment / static_cast<float>(columns);
            for (Eigen::Index j = blockStart; j < blockEnd; ++j) deviation2 += (load(m, j) - mean).square();
            const double joined = static_cast<double>(blockStart);
            if (joined > 0)
                into(target.deviation2) +=
                    (moment.template cast<double>() / columns - into(target.moment) / joined).square() *
                    (joined * columns / (joined + columns));
            into(target.deviation2) += deviation2.template cast<double>();
        }
        into(target.moment) += moment.template cast<double>();
        into(target.moment2) += moment2.template cast<double>();
        into(target.momentGradient) += momentGradient.template cast<double>();
    }
    into(target.gradient2) += gradient2.template cast<double>();
    into(target.update2) += update2.template cast<double>();
    into(target.weight2) += weight2.template cast<double>();
    into(target.distance2) += distance2.template cast<double>();
}

bool StepSums::accumulate(std::size_t l, const Matrix& g, const Matrix& u, const Matrix& w, bool weightsBeforeUpdate,
                          const Matrix& w0, const Matrix& m) {
    Layer& sums = layers_[l];
    const Eigen::Index rows = w.rows();
    const Eigen::Index in = w.cols() - 1;  // the incoming weights; the last column: biases
    setZero(sums.weights.all(), rows);
    setZero(sums.bias.all(), rows);
    const bool hasMoment = m.size() == w.size();
    using Full = Eigen::Array<float, kChunkRows, 1>;
    using Rest = Eigen::Array<float, Eigen::Dynamic, 1, 0, kChunkRows, 1>;  // on the stack
    using Block = void (*)(const Matrix&, const Matrix&, const Matrix&, const Matrix&, const Matrix&, Eigen::Index,
                           Eigen::Index, Eigen::Index, Eigen::Index, Layer&, float&);
    // [full chunk][has moment][before update]
    static constexpr Block kBlocks[2][2][2] = {
        {{&accumulateBlock<Rest, false, false>, &accumulateBlock<Rest, false, true>},
         {&accumulateBlock<Rest, true, false>, &accumulateBlock<Rest, true, true>}},
        {{&accumulateBlock<Full, false, false>, &accumulateBlock<Full, false, true>},
         {&accumulateBlock<Full, true, false>, &accumulateBlock<Full, true, true>}}};
    float finite = 0.0f;
    // Block by block (its columns of all five matrices stay in cache while every chunk of rows
    // takes its sums), so each matrix is read from memory once.
    for (Eigen::Index blockStart = 0, blockEnd = 0; blockStart <= in; blockStart = blockEnd) {
        blockEnd = blockStart == in ? in + 1 : std::min(in, blockStart + kBlockColumns);
        for (Eigen::Index first = 0; first < rows; first += kChunkRows) {
            const Eigen::Index count = std::min(kChunkRows, rows - first);
            kBlocks[count == kChunkRows][hasMoment][weightsBeforeUpdate](g, u, w, w0, m, first, count, blockStart,
                                                                         blockEnd, sums, finite);
        }
    }
    return !std::isnan(finite);
}

}  // namespace ml
