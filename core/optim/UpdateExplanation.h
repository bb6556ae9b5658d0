#pragma once
// One connection's update taken apart into what its rule adds up (the desktop app's update
// explainer). One recipe (UpdateRecipe.h) serves every rule; each rule supplies its parts, beside
// its class, and its catalog row names them (OptimizerCatalog.h). The recipe:
//   g    = the rule's gradient: g + wd*w_before (coupled decay), weight rows centred with
//          --gradient-centralization
//   C(a) = what the first moment carries into the step: (1-lambda)*a + lambda*M(a) with the
//          run's MomentumAggregation, a itself without sharing
//   a_t  = decay*C(a_{t-1}) + gain*g         (sgd, adagrad, rmsprop without momentum: none;
//                                             rmsprop with momentum: gain*g/D, C(a) = a)
//   d    = a_t;  nesterov: g + mu*a_t;  sgd, adagrad, rmsprop without momentum: g
//   D    = sqrt(v_t)/sqrt(1-b2^t) + eps      (adam family; rmsprop sqrt(v_t) + eps; adagrad
//                                             sqrt(s_t) + eps; 1 otherwise)
//   dw   = -scale*d/D (rmsprop with momentum: -scale*d, D being inside a_t);  adamw also -lr*wd*w_before
// with (decay, gain, scale) = (mu, 1-tau, lr) for momentum / neuron-mean / nesterov (step 1:
// (0, 1): b_1 = g), (beta, 1-beta, lr) for sgdm-ema, (b1, 1-b1, lr/(1-b1^t)) for adam, adamw and
// adam-mini, (mu, 1, lr) for rmsprop, (-, -, lr/(1+(t-1)*lr_decay)) for adagrad. The step before (t-1) comes from its snapshot when one was recorded; otherwise the
// carried part is inferred as a_t - gain*g (carriedInferred) and a_{t-1}, M(a_{t-1}) are unknown.
// The layer-wise rules add a named trust ratio T, computed from the whole layer's weights W (before
// the step) and gradient G (weights only; biases take T = 1 and no decay):
//   lars:     T = eta*||W||/(||G|| + wd*||W||); (decay, gain) = (mu, lr*T) on g + wd*w; dw = -a
//   lamb:     T = ||W||/||R||, r = m/(1-b1^t)/D + wd*w (adam's m, D); dw = -lr*T*r
//   novograd: D = sqrt(v) + eps with v the tensor's (weights or bias) second moment; a_t =
//             b1*a_{t-1} + g/D + wd*w (extra = wd*w; step 1: decay 0); dw = -lr*a
//   sm3:      D = sqrt(nu) (nu recorded; g/D = 0 where nu = 0); (decay, gain) = (mu, 1-mu) on g/D;
//             dw = -lr*a (mu > 0) or -lr*g/D
//   adafactor: D = sqrt(V) (V recorded), U = g/D/c with the tensor's clipping c; (b1, 1-b1) on U;
//             dw = -alpha*a (b1 > 0) or -alpha*U, alpha = max(eps2, RMS(W))*rho (scale)
//   amsgrad:  D = sqrt(v_hat)/sqrt(1-b2^t) + eps, v_hat = max(v_hat', v_t) (max_second_moment)
//   centered rmsprop: D = sqrt(v - c^2) + eps, c the running mean of g (centred_mean)
//   nero:     D = sqrt(S/(1-b2^t)) (S recorded; g/D = 0 where S = 0), scale = lr*s with s the
//             tensor's scale (tensor_scales); the stepped weight w~ = w_before - scale*g/D; then the
//             weights' row is projected:
//             w_after = (w~ - mu)/rho, mu the row's mean of w~, rho its norm after centring (biases:
//             not projected): dw = w_after - w_before
// The state beyond the first and second moment comes from the record's ruleState (the rule's
// buffers by their training-state names). Reads the records in place: no matrix is copied (only
// the formula's text allocates).
#include "Tensor.h"
#include "optim/HyperParameters.h"

#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ml {

struct UpdateExplanation {
    bool explained = false;
    std::string reason;  // why not, when !explained
    long step = 0;
    bool carriedInferred = false;                 // the step before was not recorded (see above)
    bool hasFirstMoment = false;                  // sgd keeps none
    bool hasSecondMoment = false;                 // the adam family, rmsprop, adagrad
    bool denominatorFirst = false;                // rmsprop with momentum: g/D enters the first moment
    double decay = 0.0, gain = 0.0, scale = 0.0;  // the recipe's numbers at this step
    double gradient = NAN;                        // g (the rule's gradient)
    double ownMomentum = NAN;                     // a_{t-1} of this connection
    double neuronMean = NAN;                      // M(a_{t-1}) of this connection's group (fan-in mean without sharing)
    double carried = NAN;                         // decay*C(a_{t-1})
    double firstMoment = NAN;                     // a_t as recombined: carried + gain*g
    double recordedFirstMoment = NAN;
    double secondMoment = NAN;     // v_t
    double denominator = 1.0;      // D
    double decayTerm = 0.0;        // adamw's -lr*wd*w_before; lamb's -lr*T*wd*w_before
    double extra = 0.0;            // what joins the first moment besides gain*g: novograd's wd*w_before
    bool hasTrustRatio = false;    // lars, lamb
    double trustRatio = NAN;       // T (1 for biases)
    double clipFactor = 1.0;       // adafactor's update clipping c = max(1, RMS(U)/d) of the tensor
    double maxSecondMoment = NAN;  // amsgrad: v_hat, what D takes instead of v_t
    double centredMean = NAN;      // centered rmsprop: c_t, D = sqrt(v_t - c_t^2) + eps
    bool projected = false;        // nero's weights: the stepped row is centred and normalised
    double weightBefore = NAN;     // nero: w_before
    double start = NAN;            // nero: the weight the step starts from (w_before)
    double stepped = NAN;          // nero: w~ = start - scale*g/D, before the projection
    double rowMean = NAN;          // nero: mu, the mean of the row's w~
    double rowNorm = NAN;          // nero: rho, the norm of the row's w~ - mu
    double recombined = NAN;       // dw from the parts
    double update = NAN;           // dw as recorded
    std::string formula;           // the rule's lines with this step's numbers filled in
};

// One layer's record of a step, read in place: [out x (in + 1)] matrices with the bias in the last
// column, empty where not recorded (a snapshot's LayerSnapshot, train/Snapshot.h, hands its own).
struct LayerRecord {
    const Matrix& parameters;    // after the step
    const Matrix& gradient;      // the loss gradient of the step
    const Matrix& firstMoment;   // after the step
    const Matrix& secondMoment;  // after the step
    const Matrix& update;        // w_after - w_before
    Eigen::Index columnsPerInput = 1;
    const std::vector<std::pair<std::string, Matrix>>& ruleState;  // the rule's other buffers, by name

    const Matrix* ruleStateBuffer(std::string_view name) const {
        for (const auto& [key, buffer] : ruleState)
            if (key == name) return &buffer;
        return nullptr;
    }
};

// Explains the update of connection (row, column) of a layer at step `step` for a run of
// `optimizer` with `hp`: `now` is the layer's record of that step (null: there is no such layer),
// `previous` its record of the step before, or null when that was not recorded.
UpdateExplanation explainConnection(const std::string& optimizer, const HyperParameters& hp, long step,
                                    const LayerRecord* now, const LayerRecord* previous, int row, int column);

}  // namespace ml
