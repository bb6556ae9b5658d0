#include "optim/OptimizerCatalog.h"

#include "InputError.h"
#include "optim/Adagrad.h"
#include "optim/Adam.h"
#include "optim/EmaMomentum.h"
#include "optim/RmsProp.h"
#include "optim/Sgd.h"

#include <algorithm>

namespace ml {

bool OptimizerInfo::uses(const std::string& key) const {
    return std::find(parameters.begin(), parameters.end(), key) != parameters.end();
}

namespace {

MomentumAggregation aggregationOf(const HyperParameters& hp) { return {hp.momentumMean, hp.bias}; }

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
    using Momentum = Sgd::Momentum;
    using WeightDecay = Adam::WeightDecay;
    return {
        // name, summary, formula (the one source: headers quote it, docs/optimizers.md is generated),
        // parameters read, defaults, factory, own constraint.
        {"sgd", "plain stochastic gradient descent", "w <- w - lr*g", {"lr", "weight-decay"}, sgd,
         make<Sgd, Momentum::None>},
        {"momentum", "SGD with momentum (PyTorch form)", "b_1 = g; b <- mu*M(b) + (1-tau)*g; w <- w - lr*b",
         {"lr", "momentum", "dampening", "weight-decay", "momentum-mean", "bias"}, withLr(0.01),
         makeAggregated<Sgd, Momentum::Classic>},
        {"nesterov", "SGD with Nesterov momentum; needs momentum > 0 and dampening 0",
         "b_1 = g; b <- mu*M(b) + g; w <- w - lr*(g + mu*b)",
         {"lr", "momentum", "dampening", "weight-decay", "momentum-mean", "bias"}, withLr(0.01),
         makeAggregated<Sgd, Momentum::Nesterov>, nesterovNeedsMomentum},
        {"neuron-mean", "momentum whose accumulation is the mean over each neuron's incoming connections",
         "a_1 = g; a_jk <- mu*mean_i(a_ji) + (1-tau)*g_jk; w <- w - lr*a",
         {"lr", "momentum", "dampening", "weight-decay", "bias"}, neuronMean, makeAggregated<Sgd, Momentum::Classic>,
         neuronMeanIsFanIn},
        {"sgdm-ema", "SGD with momentum as an exponential moving average (beta: the momentum parameter)",
         "m_0 = 0; m <- beta*M(m) + (1-beta)*g; w <- w - lr*m", {"lr", "momentum", "momentum-mean", "bias"},
         withLr(0.01), makeAggregated<EmaMomentum>},
        {"adagrad", "Adagrad",
         "s_0 = initial_accumulator; s <- s + g^2; w <- w - lr/(1+(t-1)*lr_decay) * g/(sqrt(s)+eps)",
         {"lr", "lr-decay", "weight-decay", "initial-accumulator", "eps"}, adagrad, make<Adagrad>},
        {"rmsprop", "RMSprop",
         "v <- alpha*v + (1-alpha)*g^2; d = sqrt(v)+eps, centered: c <- alpha*c + (1-alpha)*g, "
         "d = sqrt(v - c^2)+eps; b <- mu*b + g/d; w <- w - lr*b (mu = 0: w <- w - lr*g/d)",
         {"lr", "alpha", "eps", "weight-decay", "momentum", "centered"}, rmsprop, make<RmsProp>},
        {"adam", "Adam with bias correction (coupled L2 weight decay)",
         "m <- b1*M(m) + (1-b1)*g; v <- b2*v + (1-b2)*g^2; v_hat = v, amsgrad: v_hat <- max(v_hat, v); "
         "w <- w - lr/(1-b1^t) * m/(sqrt(v_hat)/sqrt(1-b2^t) + eps)",
         {"lr", "beta1", "beta2", "eps", "weight-decay", "amsgrad", "momentum-mean", "bias"}, withLr(0.001),
         makeAggregated<Adam, WeightDecay::Coupled>},
        {"adamw", "Adam with decoupled weight decay",
         "w <- w*(1 - lr*wd), then the adam step with g the plain gradient",
         {"lr", "beta1", "beta2", "eps", "weight-decay", "amsgrad", "momentum-mean", "bias"}, adamw,
         makeAggregated<Adam, WeightDecay::Decoupled>},
    };
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
