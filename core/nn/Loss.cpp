#include "nn/Loss.h"

#include "InputError.h"

namespace ml {

std::string toString(LossKind loss) { return loss == LossKind::Mse ? "mse" : "cross-entropy"; }

std::vector<std::string> lossNames() { return {"mse", "cross-entropy"}; }

LossKind lossFromString(const std::string& name) {
    if (name == "mse") return LossKind::Mse;
    if (name == "cross-entropy" || name == "ce") return LossKind::CrossEntropy;
    throw InputError("loss: unknown '" + name + "'; expected mse or cross-entropy");
}

namespace {

// scratch <- the regression targets, or one-hot rows for class labels.
void targetsInto(const Batch& batch, Eigen::Index outputs, BatchMatrix& scratch) {
    if (batch.labels.size() == 0) {
        scratch = batch.targets;
        return;
    }
    scratch.setZero(batch.size(), outputs);
    for (Eigen::Index i = 0; i < batch.size(); ++i) scratch(i, batch.labels(i)) = 1.0f;
}

// work.values <- row-wise log-softmax of z (max-shifted for stability). The row reductions go
// through work.perSample: as sub-expressions Eigen would evaluate them into heap temporaries.
void logSoftmaxInto(const BatchMatrix& z, LossWorkspace& work) {
    work.perSample = z.rowwise().maxCoeff();
    work.values = z.colwise() - work.perSample;
    work.perSample = work.values.array().exp().rowwise().sum().log();
    work.values.colwise() -= work.perSample;
}

Eigen::Index countCorrect(const BatchMatrix& z, const Batch& batch) {
    Eigen::Index correct = 0;
    for (Eigen::Index i = 0; i < batch.labels.size(); ++i) {
        Eigen::Index best = 0;
        z.row(i).maxCoeff(&best);
        correct += best == batch.labels(i);
    }
    return correct;
}

float negativeLogLikelihood(const BatchMatrix& logProbabilities, const Batch& batch) {
    double sum = 0.0;
    for (Eigen::Index i = 0; i < batch.size(); ++i) sum -= logProbabilities(i, batch.labels(i));
    return static_cast<float>(sum / static_cast<double>(batch.size()));
}

}  // namespace

float lossAndGradient(LossKind loss, const BatchMatrix& z, const Batch& batch, BatchMatrix& gradient,
                      LossWorkspace& work) {
    const float batchSize = static_cast<float>(z.rows());
    if (loss == LossKind::Mse) {
        // Regression targets are used where they are; class labels become one-hot rows first.
        if (batch.labels.size() == 0) {
            gradient = z - batch.targets;
        } else {
            targetsInto(batch, z.cols(), work.values);
            gradient = z - work.values;
        }
        const float count = batchSize * static_cast<float>(z.cols());
        const float value = gradient.squaredNorm() / count;
        gradient *= 2.0f / count;
        return value;
    }
    logSoftmaxInto(z, work);
    const float value = negativeLogLikelihood(work.values, batch);
    gradient = work.values.array().exp();
    for (Eigen::Index i = 0; i < batch.size(); ++i) gradient(i, batch.labels(i)) -= 1.0f;
    gradient /= batchSize;
    return value;
}

float lossOnly(LossKind loss, const BatchMatrix& z, const Batch& batch, LossWorkspace& work, Eigen::Index& correct) {
    correct = countCorrect(z, batch);
    if (loss == LossKind::Mse) {
        targetsInto(batch, z.cols(), work.values);
        return (z - work.values).squaredNorm() / static_cast<float>(z.rows() * z.cols());
    }
    logSoftmaxInto(z, work);
    return negativeLogLikelihood(work.values, batch);
}

}  // namespace ml
