#pragma once
// A network's parameters as one flat vector: the layers in order, each matrix column-major (its
// storage order). The one ordering shared by every place that treats the weights as a single point
// (the Hessian probe, the loss landscape).
#include "Tensor.h"

namespace ml {

inline Eigen::Index parameterCount(const Parameters& parameters) {
    Eigen::Index size = 0;
    for (const Matrix& layer : parameters) size += layer.size();
    return size;
}

// flat <- the layers; `flat` must already have parameterCount(parameters) entries.
template <typename Scalar>
void flattenInto(const Parameters& parameters, Eigen::Matrix<Scalar, Eigen::Dynamic, 1>& flat) {
    Eigen::Index offset = 0;
    for (const Matrix& layer : parameters) {
        flat.segment(offset, layer.size()) =
            Eigen::Map<const Eigen::VectorXf>(layer.data(), layer.size()).template cast<Scalar>();
        offset += layer.size();
    }
}

// The layers <- flat (shapes as they are; no allocation).
template <typename Derived>
void unflattenInto(const Eigen::MatrixBase<Derived>& flat, Parameters& parameters) {
    Eigen::Index offset = 0;
    for (Matrix& layer : parameters) {
        Eigen::Map<Eigen::VectorXf>(layer.data(), layer.size()) =
            flat.segment(offset, layer.size()).template cast<float>();
        offset += layer.size();
    }
}

}  // namespace ml
