#include "optim/OptimizerCatalog.h"

#include "InputError.h"
#include "optim/Adagrad.h"
#include "optim/Adam.h"
#include "optim/AdamMini.h"
#include "optim/Adafactor.h"
#include "optim/Lamb.h"
#include "optim/Lars.h"
#include "optim/Nero.h"
#include "optim/NovoGrad.h"
#include "optim/Sm3.h"
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
// Explanations: Rule::explanation(hp, options...).
template <typename Rule, auto... options>
const UpdateRecipe& explained(const HyperParameters& hp) {
    return Rule::explanation(hp, options...);
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
        throw InputError(context +
                         ": neuron-mean always averages fan-in; use momentum with --momentum-mean "
                         "for other scopes");
}

// v - c^2 of a shared v and an unshared c could be negative (no square root).
void centeredNeedsOwnSecondMoment(const HyperParameters& hp, const std::string& context) {
    if (hp.centered && hp.secondMomentMean != SecondMomentScope::None)
        throw InputError(context +
                         ": --centered needs --second-moment-mean none (v - c^2 of a shared v can be "
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
    HyperParameters lamb = withLr(0.001);
    lamb.eps = 1e-6;
    lamb.weightDecay = 0.01;
    HyperParameters lars = withLr(1.0);
    lars.momentum = 0.9;
    HyperParameters novograd = withLr(0.01);
    novograd.beta1 = 0.95;
    novograd.beta2 = 0.98;
    HyperParameters sm3 = withLr(0.1);
    sm3.momentum = 0.0;
    HyperParameters adafactor = withLr(0.0);  // lr 0: the relative step size
    adafactor.beta1 = 0.0;
    HyperParameters nero = withLr(0.01);
    using Momentum = Sgd::Momentum;
    using WeightDecay = Adam::WeightDecay;
    std::vector<OptimizerInfo> catalog = {
        // name, summary, formula (the one source: headers quote it, docs/optimizers.md is generated),
        // parameters read, defaults, factory, explanation parts, own constraint.
        {"sgd",
         "plain stochastic gradient descent",
         "w <- w - lr*g",
         {"lr", "weight-decay"},
         sgd,
         make<Sgd, Momentum::None>,
         explained<Sgd, Momentum::None>},
        {"momentum", "SGD with momentum (PyTorch form)", "a_1 = g; a <- μ*M(a) + (1-dampening)*g; w <- w - lr*a",
         Keys{"lr", "momentum", "dampening", "weight-decay"} + kFirstMomentSharing, withLr(0.01),
         makeAggregated<Sgd, Momentum::Classic>, explained<Sgd, Momentum::Classic>},
        {"nesterov", "SGD with Nesterov momentum; needs momentum > 0 and dampening 0",
         "a_1 = g; a <- μ*M(a) + g; w <- w - lr*(g + μ*a)",
         Keys{"lr", "momentum", "dampening", "weight-decay"} + kFirstMomentSharing, withLr(0.01),
         makeAggregated<Sgd, Momentum::Nesterov>, explained<Sgd, Momentum::Nesterov>, nesterovNeedsMomentum},
        {"neuron-mean",
         "momentum whose accumulation is the mean over each neuron's incoming connections",
         "a_1 = g; a <- μ*M(a) + (1-dampening)*g, M(a) = the mean of a over the neuron's incoming connections; w <- w - lr*a",
         {"lr", "momentum", "dampening", "weight-decay", "bias", "momentum-mean-blend", "momentum-mean-stat"},
         neuronMean,
         makeAggregated<Sgd, Momentum::Classic>,
         explained<Sgd, Momentum::Classic>,
         neuronMeanIsFanIn},
        {"sgdm-ema", "SGD with momentum as an exponential moving average (μ: the momentum parameter)",
         "m_0 = 0; m <- μ*M(m) + (1-μ)*g; w <- w - lr*m", Keys{"lr", "momentum"} + kFirstMomentSharing, withLr(0.01),
         makeAggregated<EmaMomentum>, explained<EmaMomentum>},
        {"adagrad", "Adagrad",
         "s_0 = initial_accumulator; s <- S(s + g^2); D = sqrt(s)+eps; w <- w - lr/(1+(t-1)*lr_decay) * g/D",
         Keys{"lr", "lr-decay", "weight-decay", "initial-accumulator", "eps"} + kSecondMomentSharing, adagrad,
         make<Adagrad>, explained<Adagrad>},
        {"rmsprop", "RMSprop",
         "v <- S(alpha*v + (1-alpha)*g^2); D = sqrt(v)+eps, centered: c <- alpha*c + (1-alpha)*g, "
         "D = sqrt(v - c^2)+eps; a <- μ*a + g/D; w <- w - lr*a (μ = 0: w <- w - lr*g/D)",
         Keys{"lr", "alpha", "eps", "weight-decay", "momentum", "centered"} + kSecondMomentSharing, rmsprop,
         make<RmsProp>, explained<RmsProp>, centeredNeedsOwnSecondMoment},
        {"adam", "Adam with bias correction (coupled L2 weight decay)",
         "m <- b1*M(m) + (1-b1)*g; v <- S(b2*v + (1-b2)*g^2); v_hat = v, amsgrad: v_hat <- max(v_hat, v); "
         "D = sqrt(v_hat)/sqrt(1-b2^t) + eps; w <- w - lr/(1-b1^t) * m/D",
         Keys{"lr", "beta1", "beta2", "eps", "weight-decay", "amsgrad", "second-moment-mean"} + kFirstMomentSharing,
         withLr(0.001), makeAggregated<Adam, WeightDecay::Coupled>, explained<Adam, WeightDecay::Coupled>},
        {"adamw", "Adam with decoupled weight decay",
         "w <- w*(1 - lr*wd), then the adam step with g the plain gradient",
         Keys{"lr", "beta1", "beta2", "eps", "weight-decay", "amsgrad", "second-moment-mean"} + kFirstMomentSharing,
         adamw, makeAggregated<Adam, WeightDecay::Decoupled>, explained<Adam, WeightDecay::Decoupled>},
        {"adam-mini", "Adam-mini: adamw with one second moment per neuron (the mean of g^2 over its incoming weights)",
         "m <- b1*M(m) + (1-b1)*g; v_i <- b2*v_i + (1-b2)*mean_j g_ij^2; D = sqrt(v)/sqrt(1-b2^t) + eps; "
         "w <- w*(1 - lr*wd), then w <- w - lr/(1-b1^t) * m/D",
         Keys{"lr", "beta1", "beta2", "eps", "weight-decay"} + kFirstMomentSharing, adamMini, makeAggregated<AdamMini>,
         explained<Adam, WeightDecay::Decoupled>},
        {"lamb",
         "LAMB: adam directions with a layer-wise trust ratio ||W||/||R||",
         "m <- b1*m + (1-b1)*g; v <- b2*v + (1-b2)*g^2; D = sqrt(v_hat) + eps; r = m_hat/D + wd*w (biases: no wd); "
         "T = ||W||/||R|| (1 when either is 0; biases: 1); w <- w - lr*T*r",
         {"lr", "beta1", "beta2", "eps", "weight-decay"},
         lamb,
         make<Lamb>,
         explained<Lamb>},
        {"lars",
         "LARS: momentum SGD with a layer-wise learning rate eta*||W||/(||G|| + wd*||W||)",
         "T = eta*||W||/(||G|| + wd*||W||) (1 when either norm is 0; biases: 1 and no wd); a_0 = 0; "
         "a <- μ*a + lr*T*(g + wd*w); w <- w - a",
         {"lr", "momentum", "weight-decay", "trust"},
         lars,
         make<Lars>,
         explained<Lars>},
        {"novograd",
         "NovoGrad: one second moment per tensor (weight matrix, bias vector), gradients normalised by it",
         "D = sqrt(v) + eps; t = 1: v = ||g||^2, m = g/D + wd*w; later: v <- b2*v + (1-b2)*||g||^2, "
         "m <- b1*m + g/D + wd*w; w <- w - lr*m",
         {"lr", "beta1", "beta2", "eps", "weight-decay"},
         novograd,
         make<NovoGrad>,
         explained<NovoGrad>},
        {"sm3",
         "SM3-II: adagrad with one accumulator per neuron and per input (row and column covers)",
         "nu_ij = min(mu_row_i, mu_col_j) + g_ij^2; mu_row_i <- max_j nu_ij; mu_col_j <- max_i nu_ij (mu_0 = 0; "
         "a bias entry is its own cover: nu <- nu + g^2); D = sqrt(nu) (g/D = 0 where nu = 0); "
         "μ > 0: m <- μ*m + (1-μ)*g/D, w <- w - lr*m; else w <- w - lr*g/D",
         {"lr", "momentum"},
         sm3,
         make<Sm3>,
         explained<Sm3>},
        {"adafactor",
         "Adafactor: factored second moment, update clipping, steps relative to the weights' RMS "
         "(lr 0: the relative step size)",
         "b2_t = 1 - t^-0.8; R <- b2_t*R + (1-b2_t)*rowsum(G^2 + eps1); C <- b2_t*C + (1-b2_t)*colsum(G^2 + eps1); "
         "V = R*C^T/sum(R); D = sqrt(V); U = G/D; U <- U/max(1, RMS(U)); alpha = max(eps2, RMS(W))*rho; "
         "b1 = 0: W <- W - alpha*U; b1 > 0: m <- b1*m + (1-b1)*U, W <- W - alpha*m (a bias vector: "
         "v <- b2_t*v + (1-b2_t)*(g^2 + eps1), D = sqrt(v), U = g/D, same clipping and alpha); rho = lr, or "
         "min(1e-2, 1/sqrt(t)) when lr = 0; eps1 = 1e-30, eps2 = 1e-3",
         {"lr", "beta1"},
         adafactor,
         make<Adafactor>,
         explained<Adafactor>},
        {"nero",
         "Nero: per-neuron relative steps on centred, unit-length weight rows (beta: beta2)",
         "before the first forward pass: each weight row w_i <- (w_i - mean(w_i))/||w_i - mean(w_i)||; "
         "t = 1: scale = mean_i ||w_i|| "
         "(bias vector: mean |b|; 0.01 where 0); S_i <- b*S_i + (1-b)*||g_i||^2 (a bias entry: g^2); "
         "D = sqrt(S/(1-b^t)); w <- w - lr*scale*g/D (0 where S = 0); then each weight row is centred and normalised again",
         {"lr", "beta2"},
         nero,
         make<Nero>,
         explained<Nero>},
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
    for (const std::string& key : entry.parameters) findParameterField(key)->checkRange(hp, context + " --" + key);
    if (entry.constraint) entry.constraint(hp, context);
}

std::unique_ptr<Optimizer> createOptimizer(const std::string& name, const HyperParameters& hp) {
    validateHyperParameters(name, hp, name);
    const OptimizerInfo& entry = optimizerInfo(name);
    return entry.create(entry.name, hp);
}

}  // namespace ml
