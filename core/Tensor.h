#pragma once
// The numeric types every layer of the core shares: float matrices and vectors (Eigen,
// column-major) and a network's parameters.
//
// Parameter layout (used everywhere: layers, optimizers, snapshots, files, views): a layer with
// parameters owns ONE matrix of shape [out x (fan-in + 1)]. Row j holds the incoming connections of
// output unit j and its last column holds that unit's bias.
#include <Eigen/Core>

#include <vector>

namespace ml {

using Matrix = Eigen::MatrixXf;
using Vector = Eigen::VectorXf;

// [batch x features], one sample per row: batches, the layers' outputs and their gradients.
// Row-major, so that gathering a sample writes one contiguous row rather than one value every
// `batch` floats. Measured against column-major with momentum-lab-bench (best of 8 short runs on a
// shared 2-core AVX-512 machine): gathering 784-float batches of 64 went from ~0.5 to ~1.4-2.0 M
// samples/s, 28x28 uint8 images from ~0.8-0.9 to ~6-9 M; the 784-128-10 b64 training step
// stayed the same or gained up to ~10 %, 1-2-2-1 b1 stayed the same within the noise.
using BatchMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

using Parameters = std::vector<Matrix>;  // one [out x (fan-in + 1)] matrix per layer with parameters

// Weight and bias views of one layer's parameter matrix.
inline auto weightsOf(Matrix& layer) { return layer.leftCols(layer.cols() - 1); }
inline auto weightsOf(const Matrix& layer) { return layer.leftCols(layer.cols() - 1); }
inline auto biasOf(Matrix& layer) { return layer.col(layer.cols() - 1); }
inline auto biasOf(const Matrix& layer) { return layer.col(layer.cols() - 1); }

// Zero-filled matrices with the shapes of a network's parameters.
inline Parameters zerosLike(const Parameters& parameters) {
    Parameters zeros;
    zeros.reserve(parameters.size());
    for (const Matrix& layer : parameters) zeros.push_back(Matrix::Zero(layer.rows(), layer.cols()));
    return zeros;
}

inline bool allFinite(const Parameters& parameters) {
    for (const Matrix& layer : parameters)
        if (!layer.allFinite()) return false;
    return true;
}

}  // namespace ml
