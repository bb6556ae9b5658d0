#pragma once
// The research variant's one idea, shared by every first-moment optimizer: before the moment
// decays, each entry is replaced by the mean of its group.
//   fan-in : a_ji <- mean_k a_jk   (row j = incoming connections of neuron j; the seed question)
//   fan-out: a_ji <- mean_k a_ki   (column i = outgoing connections of input i; what the seed
//                                   answer's reduce_mean(axis=1) on TF's [in x out] kernel does)
//            An input may own several consecutive columns (columnsPerInput, Layer.h): a
//            convolution's input channel c owns its k*k kernel positions, so its group is the
//            C_out*k*k weights of columns [c*k*k, (c+1)*k*k), not one kernel position.
//   layer  : a_ji <- mean of the whole weight matrix
// Bias (last column of a layer matrix): own leaves it alone (ordinary momentum); join counts it as
// one more connection: fan-in averages row j with its bias, fan-out averages the bias vector
// (the bias unit's outgoing connections), layer averages weights and biases together.
// Two settings shape what is shared:
//   blend lambda (--momentum-mean-blend): a <- (1-lambda)*a + lambda*M(a); 0 leaves a alone
//     (ordinary momentum), 1 is the full group mean above.
//   statistic (--momentum-mean-stat): mean as above, or signed-abs-mean:
//     M(a)_ji = sign(a_ji) * mean_k |a_jk| over the group (each connection keeps its direction).
#include "optim/HyperParameters.h"

#include <Eigen/Core>

namespace ml {

class MomentumAggregation {
public:
    MomentumAggregation(MeanScope scope = MeanScope::None, BiasMode bias = BiasMode::Own, double blend = 1.0,
                        MeanStatistic statistic = MeanStatistic::Mean)
        : scope_(scope), bias_(bias), blend_(static_cast<float>(blend)), statistic_(statistic) {}

    MeanScope scope() const { return scope_; }
    BiasMode bias() const { return bias_; }
    float blend() const { return blend_; }
    MeanStatistic statistic() const { return statistic_; }

    // In place: every entry in a group becomes the group's mean. `scratch` holds the means
    // (reused between steps, so the training loop does not allocate).
    // columnsPerInput: the weight columns of one input (1 dense, k*k conv); only fan-out reads it.
    void aggregate(Eigen::MatrixXf& buffer, Eigen::VectorXf& scratch, Eigen::Index columnsPerInput = 1) const;
    void aggregate(Eigen::MatrixXf& buffer, Eigen::Index columnsPerInput = 1) const;
    // buffer <- decay * aggregate(buffer) + gain * gradient: the shared first-moment update.
    void accumulate(Eigen::MatrixXf& buffer, const Eigen::MatrixXf& gradient, float decay, float gain,
                    Eigen::VectorXf& scratch, Eigen::Index columnsPerInput = 1) const;
    void accumulate(Eigen::MatrixXf& buffer, const Eigen::MatrixXf& gradient, float decay, float gain) const;
    // Sizes `scratch` for buffers shaped like `buffer` up front, so that no later step allocates
    // (a rule may aggregate for the first time only at step 2).
    void reserveScratch(const Eigen::MatrixXf& buffer, Eigen::VectorXf& scratch) const;

    // The group means of a layer's first moment, one value per neuron of the scope:
    // fan-in and none: one per output neuron (row means); fan-out: one per input (the means of its
    // columns; plus the bias unit with join); layer: a single value. With own, biases are left out.
    void neuronMeans(const Eigen::MatrixXf& buffer, Eigen::VectorXf& means, Eigen::Index columnsPerInput = 1) const;
    // M(a): the full group value spread back to the buffer's shape, entry (j, i) holding its
    // group's mean (signed-abs-mean: sign(a_ji) * the group's mean magnitude), whatever the blend;
    // scope none takes the neuron's fan-in mean. With own, the bias column holds the bias itself.
    void meanPerEntry(const Eigen::MatrixXf& buffer, Eigen::MatrixXf& out, Eigen::Index columnsPerInput = 1) const;
    // The shared-versus-own decomposition of a first moment (the views' colour quantities):
    // shared = M(a) (meanPerEntry), own = a - M(a), so shared + own = a (exactly whenever the
    // float subtraction is; an own bias is all shared, its own part 0).
    void splitShared(const Eigen::MatrixXf& buffer, Eigen::MatrixXf& shared, Eigen::MatrixXf& own,
                     Eigen::Index columnsPerInput = 1) const;

private:
    // entries <- (1-blend)*entries + blend*shared, shared = groupValue (mean) or
    // sign(entries)*groupValue (signed-abs-mean); groupValue has the entries' shape.
    template <typename Entries, typename GroupValue>
    void share(Entries entries, const GroupValue& groupValue) const;
    // The value a group shares before the sign: its mean, or its mean magnitude.
    template <typename Entries>
    float groupStatistic(const Entries& entries) const;

    MeanScope scope_;
    BiasMode bias_;
    float blend_;
    MeanStatistic statistic_;
};

}  // namespace ml
