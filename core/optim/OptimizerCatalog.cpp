#include "optim/OptimizerCatalog.h"

#include "InputError.h"
#include "optim/Adagrad.h"
#include "optim/Adam.h"
#include "optim/AdamMini.h"
#include "optim/EmaMomentum.h"
#include "optim/RmsProp.h"
#include "optim/Sgd.h"

#include <algorithm>

namespace ml {

bool OptimizerInfo::uses(const std::string& key) const {
    return std::find(parameters.begin(), parameters.end(), key) != parameters.end();
}

namespace {

MomentumAggregation aggregationOf(const HyperParameters& hp) {
    return {hp.momentumMean, hp.bias, hp.momentumMeanBlend, hp.momentumMeanStat};
}

// Factories: Rule(name, hp, options...), with the first-moment aggregation from hp or without.
template <typename Rule, auto... options>
std::unique_ptr<Optimizer> make(std::string name, const HyperParameters& hp) {
    return std::make_unique<Rule>(std::move(name), hp, options...);
}
template <typename Rule, auto... options>
std::unique_ptr<Optimizer> makeAggregated(std::string name, const HyperParameters& hp) {
    return std::make_unique<Rule>(std::move(name), hp, options..., aggregationOf(hp));
}

void nesterovNeedsMomentum(const HyperParameters& hp, const std::string& context) {
    if (hp.momentum <= 0.0 || hp.dampening != 0.0)
        throw InputError(context + ": nesterov needs --momentum > 0 and --dampening 0");
}

void neuronMeanIsFanIn(const HyperParameters& hp, const std::string& context) {
    if (hp.momentumMean != MeanScope::FanIn)
        throw InputError(context + ": neuron-mean always averages fan-in; use momentum with --momentum-mean "
                                   "for other scopes");
}

// v - c^2 of a shared v and an unshared c could be negative (no square root).
void centeredNeedsOwnSecondMoment(const HyperParameters& hp, const std::string& context) {
    if (hp.centered && hp.secondMomentMean != SecondMomentScope::None)
        throw InputError(context + ": --centered needs --second-moment-mean none (v - c^2 of a shared v can be "
                                   "negative)");
}

using Keys = std::vector<std::string>;
Keys operator+(Keys keys, const Keys& more) {
    keys.insert(keys.end(), more.begin(), more.end());
    return keys;
}
// The first-moment sharing settings (MomentumAggregation) and the second-moment one
// (SecondMomentSharing) that every rule with such a moment reads.
const Keys kFirstMomentSharing{"momentum-mean", "bias", "momentum-mean-blend", "momentum-mean-stat"};
const Keys kSecondMomentSharing{"second-moment-mean", "bias"};

HyperParameters withLr(double lr) {
    HyperParameters hp;
    hp.lr = lr;
    return hp;
}

std::vector<OptimizerInfo> buildCatalog() {
    HyperParameters sgd = withLr(0.01);
    sgd.momentum = 0.0;
    HyperParameters neuronMean = withLr(0.01);
    neuronMean.momentumMean = MeanScope::FanIn;
    HyperParameters rmsprop = withLr(0.01);
    rmsprop.momentum = 0.0;
    rmsprop.eps = 1e-8;
    HyperParameters adagrad = withLr(0.01);
    adagrad.eps = 1e-10;
    HyperParameters adamw = withLr(0.001);
    adamw.weightDecay = 0.01;
    HyperParameters adamMini = withLr(0.001);
    adamMini.weightDecay = 0.0;
    using Momentum = Sgd::Momentum;
    using WeightDecay = Adam::WeightDecay;
    std::vector<OptimizerInfo> catalog = {
        // name, summary, formula (the one source: headers quote it, docs/optimizers.md is generated),
        // parameters read, defaults, factory, own constraint.
        {"sgd", "plain stochastic gradient descent", "w <- w - lr*g", {"lr", "weight-decay"}, sgd,
         make<Sgd, Momentum::None>},
        {"momentum", "SGD with momentum (PyTorch form)", "b_1 = g; b <- mu*M(b) + (1-tau)*g; w <- w - lr*b",
         Keys{"lr", "momentum", "dampening", "weight-decay"} + kFirstMomentSharing, withLr(0.01),
         makeAggregated<Sgd, Momentum::Classic>},
        {"nesterov", "SGD with Nesterov momentum; needs momentum > 0 and dampening 0",
         "b_1 = g; b <- mu*M(b) + g; w <- w - lr*(g + mu*b)",
         Keys{"lr", "momentum", "dampening", "weight-decay"} + kFirstMomentSharing, withLr(0.01),
         makeAggregated<Sgd, Momentum::Nesterov>, nesterovNeedsMomentum},
        {"neuron-mean", "momentum whose accumulation is the mean over each neuron's incoming connections",
         "a_1 = g; a_jk <- mu*mean_i(a_ji) + (1-tau)*g_jk; w <- w - lr*a",
         {"lr", "momentum", "dampening", "weight-decay", "bias", "momentum-mean-blend", "momentum-mean-stat"}, neuronMean, makeAggregated<Sgd, Momentum::Classic>,
         neuronMeanIsFanIn},
        {"sgdm-ema", "SGD with momentum as an exponential moving average (beta: the momentum parameter)",
         "m_0 = 0; m <- beta*M(m) + (1-beta)*g; w <- w - lr*m", Keys{"lr", "momentum"} + kFirstMomentSharing,
         withLr(0.01), makeAggregated<EmaMomentum>},
        {"adagrad", "Adagrad",
         "s_0 = initial_accumulator; s <- S(s + g^2); w <- w - lr/(1+(t-1)*lr_decay) * g/(sqrt(s)+eps)",
         Keys{"lr", "lr-decay", "weight-decay", "initial-accumulator", "eps"} + kSecondMomentSharing, adagrad,
         make<Adagrad>},
        {"rmsprop", "RMSprop",
         "v <- S(alpha*v + (1-alpha)*g^2); d = sqrt(v)+eps, centered: c <- alpha*c + (1-alpha)*g, "
         "d = sqrt(v - c^2)+eps; b <- mu*b + g/d; w <- w - lr*b (mu = 0: w <- w - lr*g/d)",
         Keys{"lr", "alpha", "eps", "weight-decay", "momentum", "centered"} + kSecondMomentSharing, rmsprop,
         make<RmsProp>, centeredNeedsOwnSecondMoment},
        {"adam", "Adam with bias correction (coupled L2 weight decay)",
         "m <- b1*M(m) + (1-b1)*g; v <- S(b2*v + (1-b2)*g^2); v_hat = v, amsgrad: v_hat <- max(v_hat, v); "
         "w <- w - lr/(1-b1^t) * m/(sqrt(v_hat)/sqrt(1-b2^t) + eps)",
         Keys{"lr", "beta1", "beta2", "eps", "weight-decay", "amsgrad", "second-moment-mean"} + kFirstMomentSharing,
         withLr(0.001),
         makeAggregated<Adam, WeightDecay::Coupled>},
        {"adamw", "Adam with decoupled weight decay",
         "w <- w*(1 - lr*wd), then the adam step with g the plain gradient",
         Keys{"lr", "beta1", "beta2", "eps", "weight-decay", "amsgrad", "second-moment-mean"} + kFirstMomentSharing,
         adamw,
         makeAggregated<Adam, WeightDecay::Decoupled>},
        {"adam-mini", "Adam-mini: adamw with one second moment per neuron (the mean of g^2 over its incoming weights)",
         "m <- b1*M(m) + (1-b1)*g; v_i <- b2*v_i + (1-b2)*mean_j g_ij^2; w <- w*(1 - lr*wd), then "
         "w <- w - lr/(1-b1^t) * m/(sqrt(v)/sqrt(1-b2^t) + eps)",
         Keys{"lr", "beta1", "beta2", "eps", "weight-decay"} + kFirstMomentSharing, adamMini,
         makeAggregated<AdamMini>},
    };
    // Gradient centralization (Optimizer::ruleGradient) applies to every rule.
    for (OptimizerInfo& entry : catalog) entry.parameters.push_back("gradient-centralization");
    return catalog;
}

}  // namespace

const std::vector<OptimizerInfo>& optimizerCatalog() {
    static const std::vector<OptimizerInfo> catalog = buildCatalog();
    return catalog;
}

std::vector<std::string> optimizerNames() {
    std::vector<std::string> names;
    for (const OptimizerInfo& entry : optimizerCatalog()) names.push_back(entry.name);
    return names;
}

const OptimizerInfo& optimizerInfo(const std::string& name) {
    for (const OptimizerInfo& entry : optimizerCatalog())
        if (entry.name == name) return entry;
    std::string known;
    for (const std::string& n : optimizerNames()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("optimizer: unknown '" + name + "'; expected one of " + known);
}

void validateHyperParameters(const std::string& name, const HyperParameters& hp, const std::string& context) {
    const OptimizerInfo& entry = optimizerInfo(name);
    for (const std::string& key : entry.parameters)
        findParameterField(key)->checkRange(hp, context + " --" + key);
    if (entry.constraint) entry.constraint(hp, context);
}

std::unique_ptr<Optimizer> createOptimizer(const std::string& name, const HyperParameters& hp) {
    validateHyperParameters(name, hp, name);
    const OptimizerInfo& entry = optimizerInfo(name);
    return entry.create(entry.name, hp);
}

}  // namespace ml
