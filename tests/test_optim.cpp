// Optimizer tests: golden values per update rule (computed independently by
// tests/optim_reference.py: torch.optim in float64, plain Python for what torch lacks), the
// first-moment aggregation formulas, aggregated rules on the first step, neuron-mean == momentum
// --momentum-mean fan-in, the state-sharing family (blend and statistic formulas, blend
// endpoints bit for bit, gradient centralization + fan-in mean = gradient, second-moment sharing
// formulas, factored keeps rank 1, adam-mini == adamw fan-in, nero by hand, zero gradients; the
// group sizes per layer and the shared-versus-own decomposition the views show), the
// catalog and field table, named state slots, hyper-parameter
// validation (float range included), refused non-finite steps (and the trainer's divergence), and
// LayerState::update == w_after - w_before.
#include "TestSupport.h"
#include "InputError.h"
#include "optim/GroupSizes.h"
#include "optim/MomentumAggregation.h"
#include "optim/OptimizerCatalog.h"
#include "optim/SecondMomentSharing.h"
#include "data/DenseDataset.h"
#include "train/LockstepTrainer.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <set>

using ml::BiasMode;
using ml::HyperParameters;
using ml::Matrix;
using ml::MeanScope;
using ml::MeanStatistic;
using ml::Parameters;
using ml::SecondMomentScope;

using Values = QList<double>;  // a 2x3 layer, row-major
Q_DECLARE_METATYPE(ml::HyperParameters)
Q_DECLARE_METATYPE(ml::MeanScope)
Q_DECLARE_METATYPE(ml::BiasMode)
Q_DECLARE_METATYPE(ml::MeanStatistic)
Q_DECLARE_METATYPE(ml::SecondMomentScope)

namespace {

using ml::test::inputErrorOf;

HyperParameters defaultsOf(const char* name) { return ml::optimizerInfo(name).defaults; }

Matrix layer(const Values& v) {
    Matrix m(2, 3);
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 3; ++c) m(r, c) = static_cast<float>(v[r * 3 + c]);
    return m;
}

// The fixed problem of the golden tests: W (2 neurons x (2 inputs + bias)), two gradients.
const Values kW0{0.5, -1.0, 0.25, 1.5, 0.75, -0.5};
const Values kG1{0.2, -0.4, 0.1, -0.3, 0.6, 0.5};
const Values kG2{-0.1, 0.3, 0.2, 0.4, -0.02, -0.05};

// |got - expected| <= rel * max(1, |expected|), entry by entry, with a readable failure.
bool closeTo(const Matrix& got, const Values& expected, double rel, QString& why) {
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 3; ++c) {
            const double e = expected[r * 3 + c];
            const double g = got(r, c);
            if (!(std::abs(g - e) <= rel * std::max(1.0, std::abs(e)))) {
                why = QString("entry (%1,%2): got %3, expected %4").arg(r).arg(c).arg(g, 0, 'g', 9).arg(e, 0, 'g', 9);
                return false;
            }
        }
    return true;
}

bool closeTo(const Matrix& got, const Matrix& expected, double tolerance, QString& why) {
    if (got.rows() != expected.rows() || got.cols() != expected.cols()) {
        why = QString("shape %1x%2, expected %3x%4")
                  .arg(got.rows())
                  .arg(got.cols())
                  .arg(expected.rows())
                  .arg(expected.cols());
        return false;
    }
    for (Eigen::Index r = 0; r < got.rows(); ++r)
        for (Eigen::Index c = 0; c < got.cols(); ++c)
            if (!(std::abs(got(r, c) - expected(r, c)) <= tolerance * std::max(1.0f, std::abs(expected(r, c))))) {
                why = QString("entry (%1,%2): got %3, expected %4")
                          .arg(r)
                          .arg(c)
                          .arg(got(r, c), 0, 'g', 9)
                          .arg(expected(r, c), 0, 'g', 9);
                return false;
            }
    return true;
}

// A deterministic two-layer problem (2x3 and 1x3) and a gradient that changes every step.
Parameters twoLayers() {
    Matrix a(2, 3), b(1, 3);
    a << 0.3f, -0.7f, 0.1f, 0.9f, 0.2f, -0.4f;
    b << -0.6f, 0.5f, 0.05f;
    return {a, b};
}
Parameters gradientAt(int t) {
    Parameters g = twoLayers();
    for (Matrix& m : g)
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index c = 0; c < m.cols(); ++c)
                m(r, c) = 0.5f * std::sin(1.7f * static_cast<float>(t) + 0.9f * static_cast<float>(r) +
                                          2.3f * static_cast<float>(c) + static_cast<float>(m.rows()));
    return g;
}

HyperParameters withMean(const char* name, MeanScope scope, BiasMode bias) {
    HyperParameters h = defaultsOf(name);
    h.momentumMean = scope;
    h.bias = bias;
    return h;
}

struct GoldenRow {
    const char* label;
    const char* name;
    HyperParameters hp;
    Values afterStep1;
    Values afterStep2;
};

// W0 = [[0.5, -1, 0.25], [1.5, 0.75, -0.5]] (last column: biases)
// g1 = [[0.2, -0.4, 0.1], [-0.3, 0.6, 0.5]],  g2 = [[-0.1, 0.3, 0.2], [0.4, -0.02, -0.05]]
// Expected W1, W2 printed by tests/optim_reference.py (torch.optim in float64 where torch has the
// rule, else Python doubles; no code under test), following torch.optim's documented algorithms:
//  sgd:         g <- g + wd*w;  w <- w - lr*g
//  momentum:    g <- g + wd*w;  b1 = g;  b_t = mu*Agg(b_{t-1}) + (1-tau)*g;  w <- w - lr*b
//  nesterov:    as momentum, then w <- w - lr*(g + mu*b)
//  neuron-mean: momentum with Agg = fan-in (row mean; join includes the bias column)
//  sgdm-ema:    m0 = 0;  m <- beta*Agg(m) + (1-beta)*g;  w <- w - lr*m
//  adagrad:     g <- g + wd*w;  s <- s + g^2 (s0 = initial_accumulator);
//               w <- w - lr/(1+(t-1)*lr_decay) * g/(sqrt(s)+eps)
//  rmsprop:     g <- g + wd*w;  v <- alpha*v + (1-alpha)*g^2;  centered: c <- alpha*c + (1-alpha)*g,
//               d = sqrt(v - c^2)+eps, else d = sqrt(v)+eps;  momentum: b <- mu*b + g/d, w <- w - lr*b,
//               else w <- w - lr*g/d
//  adam:        g <- g + wd*w;  m <- b1*Agg(m) + (1-b1)*g;  v <- b2*v + (1-b2)*g^2;
//               vhat = max(vhat, v) with amsgrad, else v;
//               w <- w - lr/(1-b1^t) * m/(sqrt(vhat)/sqrt(1-b2^t) + eps)
//  adamw:       w <- w*(1 - lr*wd), then the adam step on the undecayed g
// Agg (--momentum-mean / --bias): identity for none; fan-in: row means; fan-out: column means;
// layer: one mean; own leaves the bias column alone, join includes it.
// The state-sharing rows (blend, signed-abs-mean, gradient centralization, second-moment sharing,
// adam-mini, lamb, lars, novograd, sm3, adafactor, nero) follow the formulas in each header and in
// tests/optim_reference.py, which computes them in plain Python doubles.
const std::vector<GoldenRow>& goldenRows() {
    static const std::vector<GoldenRow> table = [] {
        std::vector<GoldenRow> rows;
        // BEGIN GENERATED by tests/optim_reference.py (python3 tests/optim_reference.py --write)
        {
            HyperParameters h = defaultsOf("sgd");
            h.lr = 0.1;
            h.weightDecay = 0.0;
            rows.push_back(
                {"sgd", "sgd", h, {0.48, -0.96, 0.24, 1.53, 0.69, -0.55}, {0.49, -0.99, 0.22, 1.49, 0.692, -0.545}});
        }
        {
            HyperParameters h = defaultsOf("sgd");
            h.lr = 0.1;
            h.weightDecay = 0.1;
            rows.push_back({"sgd weight_decay",
                            "sgd",
                            h,
                            {0.475, -0.95, 0.2375, 1.515, 0.6825, -0.545},
                            {0.48025, -0.9705, 0.215125, 1.45985, 0.677675, -0.53455}});
        }
        {
            HyperParameters h = defaultsOf("momentum");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"momentum",
                            "momentum",
                            h,
                            {0.48, -0.96, 0.24, 1.53, 0.69, -0.55},
                            {0.472, -0.954, 0.211, 1.517, 0.638, -0.59}});
        }
        {
            HyperParameters h = defaultsOf("momentum");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.5;
            h.weightDecay = 0.1;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"momentum dampening weight_decay",
                            "momentum",
                            h,
                            {0.475, -0.95, 0.2375, 1.515, 0.6825, -0.545},
                            {0.455125, -0.91525, 0.2150625, 1.500925, 0.6193375, -0.580275}});
        }
        {
            HyperParameters h = defaultsOf("nesterov");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"nesterov",
                            "nesterov",
                            h,
                            {0.462, -0.924, 0.231, 1.557, 0.636, -0.595},
                            {0.4648, -0.9486, 0.1849, 1.5053, 0.5912, -0.626}});
        }
        {
            HyperParameters h = defaultsOf("nesterov");
            h.lr = 0.1;
            h.momentum = 0.8;
            h.dampening = 0.0;
            h.weightDecay = 0.05;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"nesterov weight_decay",
                            "nesterov",
                            h,
                            {0.4595, -0.919, 0.22975, 1.5405, 0.63525, -0.5855},
                            {0.4589645, -0.935929, 0.18448225, 1.4690355, 0.59233275, -0.6016305}});
        }
        {
            HyperParameters h = defaultsOf("nesterov");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.momentumMean = MeanScope::FanIn;
            h.bias = BiasMode::Join;
            rows.push_back({"nesterov fan-in join",
                            "nesterov",
                            h,
                            {0.462, -0.924, 0.231, 1.557, 0.636, -0.595},
                            {0.4837, -0.9783, 0.1957, 1.4594, 0.6182, -0.6071}});
        }
        {
            HyperParameters h = defaultsOf("momentum");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.momentumMean = MeanScope::FanOut;
            h.bias = BiasMode::Own;
            rows.push_back({"momentum fan-out own",
                            "momentum",
                            h,
                            {0.48, -0.96, 0.24, 1.53, 0.69, -0.55},
                            {0.4945, -0.999, 0.211, 1.4945, 0.683, -0.59}});
        }
        {
            HyperParameters h = defaultsOf("neuron-mean");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.momentumMean = MeanScope::FanIn;
            h.bias = BiasMode::Own;
            rows.push_back({"neuron-mean own",
                            "neuron-mean",
                            h,
                            {0.48, -0.96, 0.24, 1.53, 0.69, -0.55},
                            {0.499, -0.981, 0.211, 1.4765, 0.6785, -0.59}});
        }
        {
            HyperParameters h = defaultsOf("neuron-mean");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.momentumMean = MeanScope::FanIn;
            h.bias = BiasMode::Join;
            rows.push_back({"neuron-mean join",
                            "neuron-mean",
                            h,
                            {0.48, -0.96, 0.24, 1.53, 0.69, -0.55},
                            {0.493, -0.987, 0.223, 1.466, 0.668, -0.569}});
        }
        {
            HyperParameters h = defaultsOf("sgdm-ema");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"sgdm-ema",
                            "sgdm-ema",
                            h,
                            {0.498, -0.996, 0.249, 1.503, 0.744, -0.505},
                            {0.4972, -0.9954, 0.2461, 1.5017, 0.7388, -0.509}});
        }
        {
            HyperParameters h = defaultsOf("sgdm-ema");
            h.lr = 0.1;
            h.momentum = 0.5;
            h.momentumMean = MeanScope::Layer;
            h.bias = BiasMode::Join;
            rows.push_back({"sgdm-ema layer join",
                            "sgdm-ema",
                            h,
                            {0.49, -0.98, 0.245, 1.515, 0.72, -0.525},
                            {0.492083333, -0.997916667, 0.232083333, 1.49208333, 0.718083333, -0.525416667}});
        }
        {
            HyperParameters h = defaultsOf("adagrad");
            h.lr = 0.1;
            h.eps = 1e-10;
            h.lrDecay = 0.0;
            h.initialAccumulator = 0.0;
            h.weightDecay = 0.0;
            rows.push_back({"adagrad",
                            "adagrad",
                            h,
                            {0.4, -0.9, 0.15, 1.6, 0.65, -0.6},
                            {0.44472136, -0.96, 0.060557281, 1.52, 0.653331483, -0.590049628}});
        }
        {
            HyperParameters h = defaultsOf("adagrad");
            h.lr = 0.1;
            h.eps = 1e-10;
            h.lrDecay = 0.5;
            h.initialAccumulator = 0.1;
            h.weightDecay = 0.0;
            rows.push_back({"adagrad lr_decay initial_accumulator",
                            "adagrad",
                            h,
                            {0.446547752, -0.921553546, 0.219848866, 1.56882472, 0.661534826, -0.584515425},
                            {0.463761011, -0.955359716, 0.185422347, 1.52374983, 0.663499865, -0.578901079}});
        }
        {
            HyperParameters h = defaultsOf("adagrad");
            h.lr = 0.1;
            h.eps = 1e-10;
            h.lrDecay = 0.0;
            h.initialAccumulator = 0.0;
            h.weightDecay = 0.15;
            rows.push_back({"adagrad weight_decay",
                            "adagrad",
                            h,
                            {0.4, -0.9, 0.15, 1.6, 0.65, -0.6},
                            {0.414393985, -0.928734789, 0.0649327714, 1.50067965, 0.639186587, -0.568712642}});
        }
        {
            HyperParameters h = defaultsOf("adagrad");
            h.lr = 0.1;
            h.eps = 0.1;
            h.lrDecay = 0.0;
            h.initialAccumulator = 0.0;
            h.weightDecay = 0.0;
            rows.push_back({"adagrad eps 0.1",
                            "adagrad",
                            h,
                            {0.433333333, -0.92, 0.2, 1.575, 0.664285714, -0.583333333},
                            {0.464235033, -0.97, 0.138196601, 1.50833333, 0.667141498, -0.575034492}});
        }
        {
            HyperParameters h = defaultsOf("adagrad");
            h.lr = 0.1;
            h.eps = 1.0;
            h.lrDecay = 0.0;
            h.initialAccumulator = 0.1;
            h.weightDecay = 0.0;
            rows.push_back({"adagrad eps 1 initial_accumulator",
                            "adagrad",
                            h,
                            {0.485445715, -0.973508214, 0.24249059, 1.52089297, 0.714248111, -0.531414771},
                            {0.49265397, -0.992357076, 0.22807408, 1.49576115, 0.715439631, -0.528277451}});
        }
        {
            HyperParameters h = defaultsOf("rmsprop");
            h.lr = 0.01;
            h.alpha = 0.99;
            h.eps = 1e-08;
            h.momentum = 0.0;
            h.centered = false;
            h.weightDecay = 0.0;
            rows.push_back({"rmsprop",
                            "rmsprop",
                            h,
                            {0.40000005, -0.900000025, 0.1500001, 1.59999997, 0.650000017, -0.59999998},
                            {0.444901355, -0.960192939, 0.0604678439, 1.51985559, 0.653348264, -0.589999982}});
        }
        {
            HyperParameters h = defaultsOf("rmsprop");
            h.lr = 0.01;
            h.alpha = 0.99;
            h.eps = 1e-08;
            h.momentum = 0.0;
            h.centered = true;
            h.weightDecay = 0.0;
            rows.push_back({"rmsprop centered",
                            "rmsprop",
                            h,
                            {0.399496269, -0.899496244, 0.149496319, 1.60050375, 0.649496235, -0.600503761},
                            {0.444441109, -0.959700328, 0.059151092, 1.5203423, 0.652860049, -0.590463921}});
        }
        {
            HyperParameters h = defaultsOf("rmsprop");
            h.lr = 0.01;
            h.alpha = 0.99;
            h.eps = 1e-08;
            h.momentum = 0.9;
            h.centered = false;
            h.weightDecay = 0.0;
            rows.push_back({"rmsprop momentum",
                            "rmsprop",
                            h,
                            {0.40000005, -0.900000025, 0.1500001, 1.59999997, 0.650000017, -0.59999998},
                            {0.3549014, -0.870192962, -0.0295320661, 1.60985556, 0.563348279, -0.679999964}});
        }
        {
            HyperParameters h = defaultsOf("rmsprop");
            h.lr = 0.01;
            h.alpha = 0.9;
            h.eps = 1e-08;
            h.momentum = 0.5;
            h.centered = true;
            h.weightDecay = 0.1;
            rows.push_back({"rmsprop centered momentum weight_decay",
                            "rmsprop",
                            h,
                            {0.466666671, -0.966666669, 0.216666676, 1.53333333, 0.716666668, -0.533333331},
                            {0.457117605, -0.9626039, 0.169269799, 1.51851826, 0.69731137, -0.542378589}});
        }
        {
            HyperParameters h = defaultsOf("rmsprop");
            h.lr = 0.01;
            h.alpha = 0.99;
            h.eps = 0.1;
            h.momentum = 0.0;
            h.centered = false;
            h.weightDecay = 0.0;
            rows.push_back({"rmsprop eps 0.1",
                            "rmsprop",
                            h,
                            {0.483333333, -0.971428571, 0.240909091, 1.52307692, 0.7125, -0.533333333},
                            {0.491511884, -0.991449962, 0.224560982, 1.49639423, 0.713752091, -0.53}});
        }
        {
            HyperParameters h = defaultsOf("rmsprop");
            h.lr = 0.01;
            h.alpha = 0.9;
            h.eps = 1.0;
            h.momentum = 0.5;
            h.centered = true;
            h.weightDecay = 0.0;
            rows.push_back({"rmsprop centered momentum eps 1",
                            "rmsprop",
                            h,
                            {0.498113208, -0.996428571, 0.249029126, 1.50275229, 0.744915254, -0.504347826},
                            {0.498106711, -0.997245097, 0.246663478, 1.50066433, 0.742543466, -0.506085222}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.999;
            h.eps = 1e-08;
            h.weightDecay = 0.0;
            h.amsgrad = false;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adam",
                            "adam",
                            h,
                            {0.400000005, -0.900000002, 0.15000001, 1.6, 0.650000002, -0.599999998},
                            {0.373366303, -0.891067502, 0.0534818135, 1.58064896, 0.585511728, -0.659264848}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.9;
            h.eps = 1e-08;
            h.weightDecay = 0.0;
            h.amsgrad = true;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adam amsgrad",
                            "adam",
                            h,
                            {0.400000005, -0.900000002, 0.15000001, 1.6, 0.650000002, -0.599999998},
                            {0.372939603, -0.891001577, 0.0549563547, 1.58078864, 0.587125395, -0.658038096}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.999;
            h.eps = 1e-08;
            h.weightDecay = 0.1;
            h.amsgrad = false;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adam weight_decay",
                            "adam",
                            h,
                            {0.400000004, -0.900000002, 0.150000008, 1.59999999, 0.650000001, -0.599999998},
                            {0.352220525, -0.867054117, 0.0519948151, 1.54544657, 0.578190343, -0.64740945}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.8;
            h.beta2 = 0.999;
            h.eps = 1e-08;
            h.weightDecay = 0.0;
            h.amsgrad = false;
            h.momentumMean = MeanScope::Layer;
            h.bias = BiasMode::Own;
            rows.push_back({"adam layer own",
                            "adam",
                            h,
                            {0.400000005, -0.900000002, 0.15000001, 1.6, 0.650000002, -0.599999998},
                            {0.428113357, -0.950286672, 0.0516328059, 1.53400799, 0.650000002, -0.654737672}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.999;
            h.eps = 0.1;
            h.weightDecay = 0.0;
            h.amsgrad = false;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adam eps 0.1",
                            "adam",
                            h,
                            {0.433333333, -0.92, 0.2, 1.575, 0.664285714, -0.583333333},
                            {0.417019165, -0.913037055, 0.140872011, 1.55991527, 0.612095121, -0.629579513}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.9;
            h.eps = 1.0;
            h.weightDecay = 0.0;
            h.amsgrad = true;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adam eps 1 amsgrad",
                            "adam",
                            h,
                            {0.483333333, -0.971428571, 0.240909091, 1.52307692, 0.7125, -0.533333333},
                            {0.47968974, -0.969091015, 0.227757897, 1.51803168, 0.693431727, -0.548782106}});
        }
        {
            HyperParameters h = defaultsOf("adamw");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.999;
            h.eps = 1e-08;
            h.weightDecay = 0.1;
            h.amsgrad = false;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adamw",
                            "adamw",
                            h,
                            {0.395000005, -0.890000002, 0.14750001, 1.585, 0.642500002, -0.594999998},
                            {0.364416303, -0.872167502, 0.0495068134, 1.54979896, 0.571586728, -0.648314848}});
        }
        {
            HyperParameters h = defaultsOf("adamw");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.9;
            h.eps = 1e-08;
            h.weightDecay = 0.1;
            h.amsgrad = true;
            h.momentumMean = MeanScope::FanOut;
            h.bias = BiasMode::Join;
            rows.push_back({"adamw amsgrad fan-out join",
                            "adamw",
                            h,
                            {0.395000005, -0.890000002, 0.14750001, 1.585, 0.642500002, -0.594999998},
                            {0.440096983, -0.939589766, -0.00801125896, 1.51668822, 0.627611112, -0.620970952}});
        }
        {
            HyperParameters h = defaultsOf("adamw");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.999;
            h.eps = 0.1;
            h.weightDecay = 0.1;
            h.amsgrad = false;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adamw eps 0.1",
                            "adamw",
                            h,
                            {0.428333333, -0.91, 0.1975, 1.56, 0.656785714, -0.578333333},
                            {0.407735831, -0.893937055, 0.136397011, 1.52931527, 0.598027264, -0.61879618}});
        }
        {
            HyperParameters h = defaultsOf("adamw");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.999;
            h.eps = 1.0;
            h.weightDecay = 0.1;
            h.amsgrad = false;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adamw eps 1",
                            "adamw",
                            h,
                            {0.478333333, -0.961428571, 0.238409091, 1.50807692, 0.705, -0.528333333},
                            {0.46991425, -0.949481203, 0.222845946, 1.48794133, 0.678735916, -0.538584365}});
        }
        {
            HyperParameters h = defaultsOf("momentum");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.momentumMeanBlend = 0.5;
            h.momentumMean = MeanScope::FanIn;
            h.bias = BiasMode::Own;
            rows.push_back({"momentum blend 0.5 fan-in own",
                            "momentum",
                            h,
                            {0.48, -0.96, 0.24, 1.53, 0.69, -0.55},
                            {0.4855, -0.9675, 0.211, 1.49675, 0.65825, -0.59}});
        }
        {
            HyperParameters h = defaultsOf("nesterov");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.momentumMeanBlend = 0.25;
            h.momentumMean = MeanScope::FanOut;
            h.bias = BiasMode::Join;
            rows.push_back({"nesterov blend 0.25 fan-out join",
                            "nesterov",
                            h,
                            {0.462, -0.924, 0.231, 1.557, 0.636, -0.595},
                            {0.4698625, -0.958725, 0.18085, 1.5002375, 0.601325, -0.62195}});
        }
        {
            HyperParameters h = defaultsOf("neuron-mean");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.momentumMeanStat = MeanStatistic::SignedAbsMean;
            h.momentumMean = MeanScope::FanIn;
            h.bias = BiasMode::Join;
            rows.push_back({"neuron-mean signed-abs-mean join",
                            "neuron-mean",
                            h,
                            {0.48, -0.96, 0.24, 1.53, 0.69, -0.55},
                            {0.469, -0.969, 0.199, 1.532, 0.65, -0.587}});
        }
        {
            HyperParameters h = defaultsOf("momentum");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.momentumMeanBlend = 0.5;
            h.momentumMeanStat = MeanStatistic::SignedAbsMean;
            h.momentumMean = MeanScope::Layer;
            h.bias = BiasMode::Own;
            rows.push_back({"momentum signed-abs-mean blend 0.5 layer own",
                            "momentum",
                            h,
                            {0.48, -0.96, 0.24, 1.53, 0.69, -0.55},
                            {0.464125, -0.955125, 0.211, 1.520375, 0.648125, -0.59}});
        }
        {
            HyperParameters h = defaultsOf("sgdm-ema");
            h.lr = 0.1;
            h.momentum = 0.5;
            h.momentumMeanStat = MeanStatistic::SignedAbsMean;
            h.momentumMean = MeanScope::FanOut;
            h.bias = BiasMode::Own;
            rows.push_back({"sgdm-ema signed-abs-mean fan-out own",
                            "sgdm-ema",
                            h,
                            {0.49, -0.98, 0.245, 1.515, 0.72, -0.525},
                            {0.48875, -0.9825, 0.2325, 1.50125, 0.7085, -0.535}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.8;
            h.beta2 = 0.999;
            h.eps = 1e-08;
            h.weightDecay = 0.0;
            h.amsgrad = false;
            h.momentumMeanBlend = 0.5;
            h.momentumMeanStat = MeanStatistic::SignedAbsMean;
            h.momentumMean = MeanScope::FanIn;
            h.bias = BiasMode::Own;
            rows.push_back({"adam blend 0.5 signed-abs-mean fan-in own",
                            "adam",
                            h,
                            {0.400000005, -0.900000002, 0.15000001, 1.6, 0.650000002, -0.599999998},
                            {0.364858314, -0.903142919, 0.0516328059, 1.58428761, 0.597637728, -0.654737672}});
        }
        {
            HyperParameters h = defaultsOf("sgd");
            h.lr = 0.1;
            h.weightDecay = 0.1;
            h.gradientCentralization = true;
            rows.push_back({"sgd gradient-centralization weight_decay",
                            "sgd",
                            h,
                            {0.4625, -0.9625, 0.2375, 1.54125, 0.70875, -0.545},
                            {0.475375, -0.975375, 0.215125, 1.5160875, 0.7339125, -0.53455}});
        }
        {
            HyperParameters h = defaultsOf("neuron-mean");
            h.lr = 0.1;
            h.momentum = 0.9;
            h.dampening = 0.0;
            h.weightDecay = 0.0;
            h.gradientCentralization = true;
            h.momentumMean = MeanScope::FanIn;
            h.bias = BiasMode::Own;
            rows.push_back({"neuron-mean gradient-centralization",
                            "neuron-mean",
                            h,
                            {0.47, -0.97, 0.24, 1.545, 0.705, -0.55},
                            {0.49, -0.99, 0.211, 1.524, 0.726, -0.59}});
        }
        {
            HyperParameters h = defaultsOf("sgdm-ema");
            h.lr = 0.1;
            h.momentum = 0.5;
            h.gradientCentralization = true;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"sgdm-ema gradient-centralization",
                            "sgdm-ema",
                            h,
                            {0.485, -0.985, 0.245, 1.5225, 0.7275, -0.525},
                            {0.4875, -0.9875, 0.2325, 1.52325, 0.72675, -0.535}});
        }
        {
            HyperParameters h = defaultsOf("adamw");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.999;
            h.eps = 1e-08;
            h.weightDecay = 0.1;
            h.amsgrad = false;
            h.gradientCentralization = true;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adamw gradient-centralization",
                            "adamw",
                            h,
                            {0.395000003, -0.890000003, 0.14750001, 1.585, 0.642500002, -0.594999998},
                            {0.376597951, -0.866647951, 0.0495068134, 1.59838272, 0.606842281, -0.648314848}});
        }
        {
            HyperParameters h = defaultsOf("adagrad");
            h.lr = 0.1;
            h.eps = 1e-10;
            h.lrDecay = 0.0;
            h.initialAccumulator = 0.0;
            h.weightDecay = 0.15;
            h.gradientCentralization = true;
            rows.push_back({"adagrad gradient-centralization weight_decay",
                            "adagrad",
                            h,
                            {0.4, -0.9, 0.15, 1.6, 0.65, -0.6},
                            {0.424115144, -0.924115144, 0.0649327714, 1.54187618, 0.708123819, -0.568712642}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.9;
            h.eps = 1e-08;
            h.weightDecay = 0.0;
            h.amsgrad = false;
            h.secondMomentMean = SecondMomentScope::FanIn;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adam second-moment fan-in own",
                            "adam",
                            h,
                            {0.436754449, -0.873508898, 0.15000001, 1.56324555, 0.623508896, -0.599999998},
                            {0.421243115, -0.861875397, 0.0549563547, 1.54550759, 0.552557062, -0.660840456}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.9;
            h.eps = 1e-08;
            h.weightDecay = 0.0;
            h.amsgrad = true;
            h.secondMomentMean = SecondMomentScope::FanOut;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Join;
            rows.push_back({"adam second-moment fan-out join amsgrad",
                            "adam",
                            h,
                            {0.421553549, -0.921553547, 0.222264991, 1.61766968, 0.632330321, -0.638675045},
                            {0.406232545, -0.913315643, 0.165681647, 1.59277305, 0.560935152, -0.716721037}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.999;
            h.eps = 1e-08;
            h.weightDecay = 0.1;
            h.amsgrad = false;
            h.secondMomentMean = SecondMomentScope::Layer;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adam second-moment layer own",
                            "adam",
                            h,
                            {0.443767846, -0.887535691, 0.150000008, 1.53373929, 0.598173183, -0.599999998},
                            {0.420213807, -0.854333911, 0.0519948151, 1.47555897, 0.508155316, -0.64740945}});
        }
        {
            HyperParameters h = defaultsOf("adamw");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.9;
            h.eps = 1e-08;
            h.weightDecay = 0.1;
            h.amsgrad = false;
            h.secondMomentMean = SecondMomentScope::Factored;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adamw second-moment factored own",
                            "adamw",
                            h,
                            {0.395000005, -0.890000002, 0.14750001, 1.585, 0.642500002, -0.594999998},
                            {0.372225467, -0.870978294, 0.0509813546, 1.54762323, 0.574343471, -0.649890456}});
        }
        {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.9;
            h.eps = 1e-08;
            h.weightDecay = 0.0;
            h.amsgrad = false;
            h.secondMomentMean = SecondMomentScope::Factored;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Join;
            rows.push_back({"adam second-moment factored join",
                            "adam",
                            h,
                            {0.384529953, -0.884529949, 0.209175173, 1.59486833, 0.655131672, -0.611803396},
                            {0.364524364, -0.873773205, 0.135290776, 1.57392752, 0.595080471, -0.677448672}});
        }
        {
            HyperParameters h = defaultsOf("rmsprop");
            h.lr = 0.01;
            h.alpha = 0.9;
            h.eps = 1e-08;
            h.momentum = 0.5;
            h.centered = false;
            h.weightDecay = 0.0;
            h.secondMomentMean = SecondMomentScope::Layer;
            h.bias = BiasMode::Join;
            rows.push_back({"rmsprop second-moment layer join momentum",
                            "rmsprop",
                            h,
                            {0.483760042, -0.967520085, 0.241880021, 1.52435994, 0.701280127, -0.540599894},
                            {0.482953113, -0.973219276, 0.223193933, 1.50728771, 0.678382801, -0.557243316}});
        }
        {
            HyperParameters h = defaultsOf("rmsprop");
            h.lr = 0.01;
            h.alpha = 0.9;
            h.eps = 1e-08;
            h.momentum = 0.0;
            h.centered = false;
            h.weightDecay = 0.0;
            h.secondMomentMean = SecondMomentScope::Factored;
            h.bias = BiasMode::Own;
            rows.push_back({"rmsprop second-moment factored own",
                            "rmsprop",
                            h,
                            {0.468377228, -0.968377226, 0.218377233, 1.53162277, 0.718377225, -0.531622775},
                            {0.47863401, -0.990436978, 0.189805809, 1.50275108, 0.719412154, -0.528307807}});
        }
        {
            HyperParameters h = defaultsOf("adagrad");
            h.lr = 0.1;
            h.eps = 1e-10;
            h.lrDecay = 0.0;
            h.initialAccumulator = 0.1;
            h.weightDecay = 0.0;
            h.secondMomentMean = SecondMomentScope::FanIn;
            h.bias = BiasMode::Join;
            rows.push_back({"adagrad second-moment fan-in join",
                            "adagrad",
                            h,
                            {0.451492875, -0.90298575, 0.225746438, 1.55196152, 0.646076952, -0.58660254},
                            {0.472976321, -0.967436089, 0.182779545, 1.48771503, 0.649289276, -0.578571729}});
        }
        {
            HyperParameters h = defaultsOf("adagrad");
            h.lr = 0.1;
            h.eps = 1e-10;
            h.lrDecay = 0.0;
            h.initialAccumulator = 0.0;
            h.weightDecay = 0.0;
            h.secondMomentMean = SecondMomentScope::Factored;
            h.bias = BiasMode::Own;
            rows.push_back({"adagrad second-moment factored own",
                            "adagrad",
                            h,
                            {0.4, -0.9, 0.15, 1.6, 0.65, -0.6},
                            {0.431804961, -0.966891277, 0.060557281, 1.51081163, 0.653126307, -0.590049628}});
        }
        {
            HyperParameters h = defaultsOf("adam-mini");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.9;
            h.eps = 1e-08;
            h.weightDecay = 0.0;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Own;
            rows.push_back({"adam-mini",
                            "adam-mini",
                            h,
                            {0.436754449, -0.873508898, 0.15000001, 1.56324555, 0.623508896, -0.599999998},
                            {0.421243115, -0.861875397, 0.0549563547, 1.54550759, 0.552557062, -0.660840456}});
        }
        {
            HyperParameters h = defaultsOf("adam-mini");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.999;
            h.eps = 1e-08;
            h.weightDecay = 0.1;
            h.momentumMean = MeanScope::None;
            h.bias = BiasMode::Join;
            rows.push_back({"adam-mini join weight_decay",
                            "adam-mini",
                            h,
                            {0.419407108, -0.838814217, 0.209703554, 1.5471059, 0.618288202, -0.598509832},
                            {0.397778931, -0.817350494, 0.144407882, 1.51359001, 0.539926006, -0.648047282}});
        }
        {
            HyperParameters h = defaultsOf("lamb");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.999;
            h.eps = 1e-06;
            h.weightDecay = 0.01;
            rows.push_back({"lamb",
                            "lamb",
                            h,
                            {0.398912561, -0.898409384, 0.150001, 1.59907591, 0.648660763, -0.5999998},
                            {0.326582732, -0.87210521, 0.0534834077, 1.54302052, 0.474376421, -0.659264485}});
        }
        {
            HyperParameters h = defaultsOf("lamb");
            h.lr = 0.1;
            h.beta1 = 0.8;
            h.beta2 = 0.9;
            h.eps = 1e-06;
            h.weightDecay = 0.5;
            rows.push_back({"lamb weight_decay 0.5",
                            "lamb",
                            h,
                            {0.395074087, -0.874088611, 0.150001, 1.52098499, 0.634581174, -0.5999998},
                            {0.343132413, -0.814964092, 0.0531371822, 1.39356973, 0.516539926, -0.656192563}});
        }
        {
            HyperParameters h = defaultsOf("lars");
            h.lr = 1.0;
            h.momentum = 0.9;
            h.weightDecay = 0.0;
            h.trust = 0.001;
            rows.push_back({"lars",
                            "lars",
                            h,
                            {0.4995, -0.999, 0.15, 1.50075, 0.7485, -1},
                            {0.49944486, -0.999284579, -0.14, 1.49984556, 0.747228972, -1.4}});
        }
        {
            HyperParameters h = defaultsOf("lars");
            h.lr = 0.5;
            h.momentum = 0.5;
            h.weightDecay = 0.1;
            h.trust = 0.1;
            rows.push_back({"lars weight_decay trust 0.1",
                            "lars",
                            h,
                            {0.475, -0.95, 0.2, 1.515, 0.6825, -0.75},
                            {0.469816922, -0.953570839, 0.075, 1.44563748, 0.6420254, -0.85}});
        }
        {
            HyperParameters h = defaultsOf("novograd");
            h.lr = 0.01;
            h.beta1 = 0.95;
            h.beta2 = 0.98;
            h.eps = 1e-08;
            h.weightDecay = 0.0;
            rows.push_back({"novograd",
                            "novograd",
                            h,
                            {0.497519305, -0.995038611, 0.248038839, 1.50372104, 0.742557916, -0.509805807},
                            {0.496410495, -0.994068839, 0.242220184, 1.50226463, 0.735737506, -0.518132435}});
        }
        {
            HyperParameters h = defaultsOf("novograd");
            h.lr = 0.1;
            h.beta1 = 0.9;
            h.beta2 = 0.5;
            h.eps = 1e-08;
            h.weightDecay = 0.1;
            rows.push_back({"novograd weight_decay",
                            "novograd",
                            h,
                            {0.470193053, -0.940386107, 0.227888387, 1.52221042, 0.66807916, -0.593058066},
                            {0.4534866, -0.921794929, 0.154283105, 1.46769078, 0.590633959, -0.658023257}});
        }
        {
            HyperParameters h = defaultsOf("sm3");
            h.lr = 0.1;
            h.momentum = 0.0;
            rows.push_back({"sm3",
                            "sm3",
                            h,
                            {0.4, -0.9, 0.15, 1.6, 0.65, -0.6},
                            {0.431622777, -0.96, 0.0605572809, 1.52, 0.653331483, -0.590049628}});
        }
        {
            HyperParameters h = defaultsOf("sm3");
            h.lr = 0.1;
            h.momentum = 0.9;
            rows.push_back({"sm3 momentum",
                            "sm3",
                            h,
                            {0.49, -0.99, 0.24, 1.51, 0.74, -0.51},
                            {0.484162278, -0.987, 0.222055728, 1.511, 0.731333148, -0.518004963}});
        }
        {
            HyperParameters h = defaultsOf("adafactor");
            h.lr = 0.0;
            h.beta1 = 0.0;
            rows.push_back({"adafactor",
                            "adafactor",
                            h,
                            {0.489922178, -0.989922178, 0.246047153, 1.51007782, 0.739922178, -0.503952847},
                            {0.494369386, -0.999904458, 0.24124094, 1.49746685, 0.740393958, -0.503349088}});
        }
        {
            HyperParameters h = defaultsOf("adafactor");
            h.lr = 0.05;
            h.beta1 = 0.9;
            rows.push_back({"adafactor lr beta1",
                            "adafactor",
                            h,
                            {0.494961089, -0.994961089, 0.248023576, 1.50503891, 0.744961089, -0.501976424},
                            {0.492655828, -0.995425843, 0.243842724, 1.50325864, 0.740666334, -0.503456644}});
        }
        {
            HyperParameters h = defaultsOf("nero");
            h.lr = 0.01;
            h.beta2 = 0.999;
            rows.push_back({"nero",
                            "nero",
                            h,
                            {0.707106781, -0.707106781, 0.24625, 0.707106781, -0.707106781, -0.50375},
                            {0.707106781, -0.707106781, 0.241507295, 0.707106781, -0.707106781, -0.503222172}});
        }
        {
            HyperParameters h = defaultsOf("nero");
            h.lr = 0.1;
            h.beta2 = 0.9;
            rows.push_back({"nero beta 0.9",
                            "nero",
                            h,
                            {0.707106781, -0.707106781, 0.2125, 0.707106781, -0.707106781, -0.5375},
                            {0.707106781, -0.707106781, 0.165797511, 0.707106781, -0.707106781, -0.532081397}});
        }  // END GENERATED
        return rows;
    }();
    return table;
}

}  // namespace

class TestOptim : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // ------------------------------------------------------------ golden values over two steps
    void goldenTwoSteps_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<HyperParameters>("hp");
        QTest::addColumn<Values>("afterStep1");
        QTest::addColumn<Values>("afterStep2");
        for (const GoldenRow& row : goldenRows())
            QTest::newRow(row.label) << QString(row.name) << row.hp << row.afterStep1 << row.afterStep2;
    }
    void goldenTwoSteps() {
        QFETCH(QString, name);
        QFETCH(HyperParameters, hp);
        QFETCH(Values, afterStep1);
        QFETCH(Values, afterStep2);
        auto optimizer = ml::createOptimizer(name.toStdString(), hp);
        QCOMPARE(QString::fromStdString(optimizer->name()), name);
        Parameters w{layer(kW0)};
        QString why;
        optimizer->constrainInitialParameters(w);  // as the trainer does before the first forward pass
        optimizer->step(w, Parameters{layer(kG1)});
        QCOMPARE(optimizer->stepCount(), 1L);
        QVERIFY2(closeTo(w[0], afterStep1, 1e-6, why), qPrintable("after step 1, " + why));
        optimizer->step(w, Parameters{layer(kG2)});
        QCOMPARE(optimizer->stepCount(), 2L);
        // Regression: 1 - beta2 must be formed in double (1 - 0.999f loses digits; off by 1.3e-6 here).
        QVERIFY2(closeTo(w[0], afterStep2, 1e-6, why), qPrintable("after step 2, " + why));
    }
    // The first step has a closed form, whatever the decay factors (torch.optim computes 1 - beta
    // in double precision before it scales the float32 state, so this holds to float precision):
    //   adam:     m1 = (1-b1)*g, v1 = (1-b2)*g^2  ->  dw = -lr * g / (|g| + eps)
    //   rmsprop:  v1 = (1-a)*g^2                  ->  dw = -lr * g / (sqrt(1-a)*|g| + eps)
    //   sgdm-ema: m1 = (1-beta)*g                 ->  dw = -lr * (1-beta) * g
    // Decay factors close to 1 expose 1.0f - float(beta), whose cancellation loses digits
    // (1 - 0.999f = 0.0009999871, 1 - 0.9999f = 0.00010001659).
    void firstStepClosedForm_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<HyperParameters>("hp");
        auto adam = [](double b1, double b2) {
            HyperParameters h = defaultsOf("adam");
            h.lr = 0.1, h.beta1 = b1, h.beta2 = b2, h.eps = 1e-8;
            return h;
        };
        auto rmsprop = [](double alpha) {
            HyperParameters h = defaultsOf("rmsprop");
            h.lr = 0.01, h.alpha = alpha, h.eps = 1e-8, h.momentum = 0.0, h.centered = false;
            return h;
        };
        auto ema = [](double beta) {
            HyperParameters h = defaultsOf("sgdm-ema");
            h.lr = 0.1, h.momentum = beta;
            return h;
        };
        QTest::newRow("adam beta2 0.9") << "adam" << adam(0.9, 0.9);
        QTest::newRow("adam beta2 0.999") << "adam" << adam(0.9, 0.999);
        QTest::newRow("adam beta2 0.9999") << "adam" << adam(0.9, 0.9999);
        QTest::newRow("adam beta2 0.99999") << "adam" << adam(0.9, 0.99999);
        QTest::newRow("adam beta1 0.9999") << "adam" << adam(0.9999, 0.9);
        QTest::newRow("adamw beta2 0.999") << "adamw" << [&] {
            HyperParameters h = adam(0.9, 0.999);
            h.weightDecay = 0;
            return h;
        }();
        QTest::newRow("rmsprop alpha 0.9") << "rmsprop" << rmsprop(0.9);
        QTest::newRow("rmsprop alpha 0.99") << "rmsprop" << rmsprop(0.99);
        QTest::newRow("rmsprop alpha 0.9999") << "rmsprop" << rmsprop(0.9999);
        QTest::newRow("sgdm-ema beta 0.9") << "sgdm-ema" << ema(0.9);
        QTest::newRow("sgdm-ema beta 0.9999") << "sgdm-ema" << ema(0.9999);
    }
    void firstStepClosedForm() {
        QFETCH(QString, name);
        QFETCH(HyperParameters, hp);
        auto optimizer = ml::createOptimizer(name.toStdString(), hp);
        Parameters w{layer(kW0)};
        const Matrix g = layer(kG1);
        optimizer->step(w, Parameters{g});
        const Matrix& update = optimizer->layerState(0).update;
        double worst = 0.0;
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 3; ++c) {
                const double gi = g(r, c);
                double expected = 0.0;
                if (name.startsWith("adam")) expected = -hp.lr * gi / (std::abs(gi) + hp.eps);
                else if (name == "rmsprop")
                    expected = -hp.lr * gi / (std::sqrt(1.0 - hp.alpha) * std::abs(gi) + hp.eps);
                else expected = -hp.lr * (1.0 - hp.momentum) * gi;
                worst = std::max(worst, std::abs(update(r, c) - expected) / std::abs(expected));
            }
        // Regression: the gains 1 - beta are formed in double before rounding, as in torch.optim.
        QVERIFY2(worst <= 1e-6, qPrintable(QString("largest relative error of the first update: %1").arg(worst)));
    }

    // Every optimizer of the catalog has at least one golden row, and every golden row names one.
    void goldenRowsCoverTheCatalog() {
        std::set<std::string> golden;
        for (const GoldenRow& row : goldenRows()) golden.insert(row.name);
        const std::vector<std::string> names = ml::optimizerNames();
        const std::set<std::string> catalog(names.begin(), names.end());
        for (const std::string& name : catalog)
            QVERIFY2(golden.count(name) == 1, ("no golden row for optimizer " + name).c_str());
        for (const std::string& name : golden)
            QVERIFY2(catalog.count(name) == 1, ("golden row for an optimizer not in the catalog: " + name).c_str());
        QCOMPARE(catalog.size(), std::size_t{16});
    }

    // ------------------------------------------------------------ the catalog and the field table
    // Every row can be built under its own name and names only known fields.
    void catalogRowsAreComplete() {
        for (const ml::OptimizerInfo& entry : ml::optimizerCatalog()) {
            QVERIFY2(entry.create != nullptr, qPrintable(QString::fromStdString(entry.name) + ": no factory"));
            QCOMPARE(QString::fromStdString(ml::createOptimizer(entry.name, entry.defaults)->name()),
                     QString::fromStdString(entry.name));
            for (const std::string& key : entry.parameters)
                QVERIFY2(ml::findParameterField(key) != nullptr,
                         qPrintable(QString::fromStdString(entry.name + ": unknown parameter " + key)));
        }
    }
    // Each field writes its own member and no other: set one field to a value different from the
    // default, then every other field still reads its default.
    void fieldsWriteTheirOwnSlot() {
        const HyperParameters defaults;
        for (const ml::ParameterField& field : ml::parameterFields()) {
            HyperParameters hp;
            std::string value;
            switch (field.kind) {
            case ml::ParameterField::Kind::Real: value = field.getReal(defaults) == 0.5 ? "0.25" : "0.5"; break;
            case ml::ParameterField::Kind::Flag: value = field.getReal(defaults) != 0.0 ? "false" : "true"; break;
            case ml::ParameterField::Kind::Choice: value = field.choices.back(); break;
            }
            QVERIFY(field.get(defaults) != value);
            field.set(hp, value, "ctx");
            QCOMPARE(QString::fromStdString(field.get(hp)), QString::fromStdString(value));
            for (const ml::ParameterField& other : ml::parameterFields())
                if (&other != &field)
                    QVERIFY2(other.get(hp) == other.get(defaults),
                             qPrintable(QString::fromStdString("setting " + field.key + " changed " + other.key)));
        }
        HyperParameters hp;
        ml::findParameterField("bias")->set(hp, "join", "ctx");
        ml::findParameterField("momentum-mean")->set(hp, "fan-out", "ctx");
        QVERIFY(hp.bias == BiasMode::Join);
        QVERIFY(hp.momentumMean == MeanScope::FanOut);
        const QString refused = inputErrorOf([&] { ml::findParameterField("bias")->set(hp, "both", "--bias"); });
        QVERIFY2(refused.contains("--bias") && refused.contains("own or join"), qPrintable(refused));
    }

    // ------------------------------------------------------------ named state slots
    // amsgrad keeps max(v_1, v_2) in maxSecondMoment; rmsprop centered keeps the running mean of g
    // in centredMean and its momentum buffer in firstMoment; unused slots stay empty.
    void namedStateSlots() {
        const Matrix g1 = layer(kG1), g2 = layer(kG2);
        QString why;
        {
            HyperParameters h = defaultsOf("adam");
            h.beta2 = 0.9;
            h.amsgrad = true;
            auto adam = ml::createOptimizer("adam", h);
            Parameters w{layer(kW0)};
            adam->step(w, Parameters{g1});
            adam->step(w, Parameters{g2});
            const Matrix v1 = 0.1f * g1.cwiseAbs2();
            const Matrix v2 = 0.9f * v1 + 0.1f * g2.cwiseAbs2();
            const ml::LayerState& state = adam->layerState(0);
            QVERIFY2(closeTo(state.secondMoment, v2, 1e-6, why), qPrintable("v2: " + why));
            QVERIFY2(closeTo(state.maxSecondMoment, Matrix(v1.cwiseMax(v2)), 1e-6, why), qPrintable("max v: " + why));
            QCOMPARE(state.centredMean.size(), Eigen::Index(0));
            h.amsgrad = false;
            auto plain = ml::createOptimizer("adam", h);
            plain->step(w, Parameters{g1});
            QCOMPARE(plain->layerState(0).maxSecondMoment.size(), Eigen::Index(0));
        }
        {
            HyperParameters h = defaultsOf("rmsprop");
            h.alpha = 0.9;
            h.centered = true;
            h.momentum = 0.5;
            auto rmsprop = ml::createOptimizer("rmsprop", h);
            Parameters w{layer(kW0)};
            rmsprop->step(w, Parameters{g1});
            rmsprop->step(w, Parameters{g2});
            const ml::LayerState& state = rmsprop->layerState(0);
            QVERIFY2(closeTo(state.centredMean, Matrix(0.9f * 0.1f * g1 + 0.1f * g2), 1e-6, why),
                     qPrintable("centred mean: " + why));
            QCOMPARE(state.firstMoment.size(), g1.size());  // the momentum buffer
            QCOMPARE(state.maxSecondMoment.size(), Eigen::Index(0));
        }
    }

    // ------------------------------------------------------------ the aggregation formulas
    // B = [[1, 2, 6], [4, -2, 3]] (bias column 6, 3). Agg(B) by hand:
    //   fan-in  own : row means of the weights  (1+2)/2 = 1.5, (4-2)/2 = 1; biases kept
    //   fan-in  join: row means incl. the bias  (1+2+6)/3 = 3, (4-2+3)/3 = 5/3
    //   fan-out own : column means              (1+4)/2 = 2.5, (2-2)/2 = 0; biases kept
    //   fan-out join: also the bias column      (6+3)/2 = 4.5
    //   layer   own : mean of the 4 weights     (1+2+4-2)/4 = 1.25; biases kept
    //   layer   join: mean of all 6 entries     14/6 = 7/3
    void aggregationFormula_data() {
        QTest::addColumn<MeanScope>("scope");
        QTest::addColumn<BiasMode>("bias");
        QTest::addColumn<Values>("aggregated");
        const double third = 1.0 / 3.0;
        QTest::newRow("fan-in own") << MeanScope::FanIn << BiasMode::Own << Values{1.5, 1.5, 6, 1, 1, 3};
        QTest::newRow("fan-in join") << MeanScope::FanIn << BiasMode::Join
                                     << Values{3, 3, 3, 5 * third, 5 * third, 5 * third};
        QTest::newRow("fan-out own") << MeanScope::FanOut << BiasMode::Own << Values{2.5, 0, 6, 2.5, 0, 3};
        QTest::newRow("fan-out join") << MeanScope::FanOut << BiasMode::Join << Values{2.5, 0, 4.5, 2.5, 0, 4.5};
        QTest::newRow("layer own") << MeanScope::Layer << BiasMode::Own << Values{1.25, 1.25, 6, 1.25, 1.25, 3};
        QTest::newRow("layer join") << MeanScope::Layer << BiasMode::Join
                                    << Values{7 * third, 7 * third, 7 * third, 7 * third, 7 * third, 7 * third};
    }
    void aggregationFormula() {
        QFETCH(MeanScope, scope);
        QFETCH(BiasMode, bias);
        QFETCH(Values, aggregated);
        const Values b{1, 2, 6, 4, -2, 3};
        const Values g2{0.5, -1, 0.25, 2, 1, -1};
        const Matrix B = layer(b), G2 = layer(g2), agg = layer(aggregated);
        const Matrix w0 = layer(kW0);
        QString why;

        // The primitive itself.
        const ml::MomentumAggregation aggregation(scope, bias);
        Matrix buffer = B;
        aggregation.aggregate(buffer);
        QVERIFY2(closeTo(buffer, aggregated, 1e-6, why), qPrintable("aggregate: " + why));
        buffer = B;
        aggregation.accumulate(buffer, G2, 0.25f, 2.0f);
        QVERIFY2(closeTo(buffer, Matrix(0.25f * agg + 2.0f * G2), 1e-6, why), qPrintable("accumulate: " + why));

        // momentum, dampening 0: b1 = g1 = B, b2 = mu*Agg(B) + g2; w2 = w0 - lr*B - lr*b2.
        const float mu = 0.5f, lr = 0.1f;
        {
            HyperParameters h = withMean("momentum", scope, bias);
            h.momentum = mu;
            h.lr = lr;
            auto opt = ml::createOptimizer("momentum", h);
            Parameters w{w0};
            opt->step(w, Parameters{B});
            QVERIFY2(closeTo(opt->layerState(0).firstMoment, B, 1e-6, why), qPrintable("momentum b1: " + why));
            opt->step(w, Parameters{G2});
            const Matrix b2 = mu * agg + G2;
            QVERIFY2(closeTo(opt->layerState(0).firstMoment, b2, 1e-6, why), qPrintable("momentum b2: " + why));
            QVERIFY2(closeTo(w[0], Matrix(w0 - lr * B - lr * b2), 1e-6, why), qPrintable("momentum w2: " + why));
        }
        // nesterov: same buffer; w2 = w0 - lr*(g1 + mu*b1) - lr*(g2 + mu*b2).
        {
            HyperParameters h = withMean("nesterov", scope, bias);
            h.momentum = mu;
            h.lr = lr;
            auto opt = ml::createOptimizer("nesterov", h);
            Parameters w{w0};
            opt->step(w, Parameters{B});
            opt->step(w, Parameters{G2});
            const Matrix b2 = mu * agg + G2;
            QVERIFY2(closeTo(opt->layerState(0).firstMoment, b2, 1e-6, why), qPrintable("nesterov b2: " + why));
            const Matrix expected = w0 - lr * (B + mu * B) - lr * (G2 + mu * b2);
            QVERIFY2(closeTo(w[0], expected, 1e-6, why), qPrintable("nesterov w2: " + why));
        }
        // sgdm-ema: m1 = (1-beta)*B; m2 = beta*Agg(m1) + (1-beta)*g2 = beta*(1-beta)*Agg(B) + (1-beta)*g2
        // (Agg is linear). adam / adamw first moment: the same with beta1.
        for (const char* name : {"sgdm-ema", "adam", "adamw"}) {
            HyperParameters h = withMean(name, scope, bias);
            const float beta = 0.75f;
            h.momentum = beta;
            h.beta1 = beta;
            auto opt = ml::createOptimizer(name, h);
            Parameters w{w0};
            opt->step(w, Parameters{B});
            QVERIFY2(closeTo(opt->layerState(0).firstMoment, Matrix((1 - beta) * B), 1e-6, why),
                     qPrintable(QString(name) + " m1: " + why));
            opt->step(w, Parameters{G2});
            const Matrix m2 = beta * (1 - beta) * agg + (1 - beta) * G2;
            QVERIFY2(closeTo(opt->layerState(0).firstMoment, m2, 1e-6, why), qPrintable(QString(name) + " m2: " + why));
        }
    }

    // neuronMeans(): one value per group; meanPerEntry(): the group mean spread back (own: bias
    // column keeps the bias). Scope none reports fan-in means. B as above.
    void neuronMeans_data() {
        QTest::addColumn<MeanScope>("scope");
        QTest::addColumn<BiasMode>("bias");
        QTest::addColumn<Values>("means");
        QTest::addColumn<Values>("perEntry");
        const double t = 1.0 / 3.0;
        QTest::newRow("none own") << MeanScope::None << BiasMode::Own << Values{1.5, 1} << Values{1.5, 1.5, 6, 1, 1, 3};
        QTest::newRow("none join") << MeanScope::None << BiasMode::Join << Values{3, 5 * t}
                                   << Values{3, 3, 3, 5 * t, 5 * t, 5 * t};
        QTest::newRow("fan-in own") << MeanScope::FanIn << BiasMode::Own << Values{1.5, 1}
                                    << Values{1.5, 1.5, 6, 1, 1, 3};
        QTest::newRow("fan-in join") << MeanScope::FanIn << BiasMode::Join << Values{3, 5 * t}
                                     << Values{3, 3, 3, 5 * t, 5 * t, 5 * t};
        QTest::newRow("fan-out own") << MeanScope::FanOut << BiasMode::Own << Values{2.5, 0}
                                     << Values{2.5, 0, 6, 2.5, 0, 3};
        QTest::newRow("fan-out join") << MeanScope::FanOut << BiasMode::Join << Values{2.5, 0, 4.5}
                                      << Values{2.5, 0, 4.5, 2.5, 0, 4.5};
        QTest::newRow("layer own") << MeanScope::Layer << BiasMode::Own << Values{1.25}
                                   << Values{1.25, 1.25, 6, 1.25, 1.25, 3};
        QTest::newRow("layer join") << MeanScope::Layer << BiasMode::Join << Values{7 * t}
                                    << Values{7 * t, 7 * t, 7 * t, 7 * t, 7 * t, 7 * t};
    }
    void neuronMeans() {
        QFETCH(MeanScope, scope);
        QFETCH(BiasMode, bias);
        QFETCH(Values, means);
        QFETCH(Values, perEntry);
        const Matrix B = layer({1, 2, 6, 4, -2, 3});
        const ml::MomentumAggregation aggregation(scope, bias);
        Eigen::VectorXf got;
        aggregation.neuronMeans(B, got);
        QCOMPARE(got.size(), Eigen::Index(means.size()));
        for (int i = 0; i < means.size(); ++i)
            QVERIFY2(std::abs(got(i) - means[i]) <= 1e-6 * std::max(1.0, std::abs(means[i])),
                     qPrintable(QString("mean %1: got %2, expected %3").arg(i).arg(got(i)).arg(means[i])));
        Matrix spread;
        aggregation.meanPerEntry(B, spread);
        QString why;
        QVERIFY2(closeTo(spread, perEntry, 1e-6, why), qPrintable("meanPerEntry: " + why));
        QCOMPARE(B, layer({1, 2, 6, 4, -2, 3}));  // const input untouched
    }

    // ------------------------------------------------------------ first step: aggregation is a no-op
    void firstStepEqualsPlainRule_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<MeanScope>("scope");
        QTest::addColumn<BiasMode>("bias");
        const std::pair<MeanScope, const char*> scopes[] = {
            {MeanScope::FanIn, "fan-in"}, {MeanScope::FanOut, "fan-out"}, {MeanScope::Layer, "layer"}};
        for (const char* name : {"momentum", "nesterov", "sgdm-ema", "adam", "adamw"})
            for (const auto& [scope, scopeName] : scopes)
                for (BiasMode bias : {BiasMode::Own, BiasMode::Join})
                    QTest::addRow("%s %s %s", name, scopeName, bias == BiasMode::Own ? "own" : "join")
                        << QString(name) << scope << bias;
    }
    void firstStepEqualsPlainRule() {
        QFETCH(QString, name);
        QFETCH(MeanScope, scope);
        QFETCH(BiasMode, bias);
        const std::string n = name.toStdString();
        auto plain = ml::createOptimizer(n, withMean(n.c_str(), MeanScope::None, BiasMode::Own));
        auto aggregated = ml::createOptimizer(n, withMean(n.c_str(), scope, bias));
        QVERIFY(aggregated->aggregation().scope() == scope);
        QVERIFY(aggregated->aggregation().bias() == bias);
        Parameters a = twoLayers(), b = twoLayers();
        plain->step(a, gradientAt(1));
        aggregated->step(b, gradientAt(1));
        for (std::size_t l = 0; l < a.size(); ++l) {
            QCOMPARE(b[l], a[l]);  // bitwise
            QCOMPARE(aggregated->layerState(l).firstMoment, plain->layerState(l).firstMoment);
        }
        // ... and from the second step on, the aggregation changes something (layer 0 is 2x3).
        plain->step(a, gradientAt(2));
        aggregated->step(b, gradientAt(2));
        QVERIFY(a[0] != b[0]);
    }

    // ------------------------------------------------------------ neuron-mean == momentum fan-in
    void neuronMeanIsMomentumFanIn_data() {
        QTest::addColumn<BiasMode>("bias");
        QTest::addColumn<double>("dampening");
        QTest::addColumn<double>("weightDecay");
        QTest::newRow("own") << BiasMode::Own << 0.0 << 0.0;
        QTest::newRow("join") << BiasMode::Join << 0.0 << 0.0;
        QTest::newRow("own dampening weight_decay") << BiasMode::Own << 0.3 << 0.01;
        QTest::newRow("join dampening weight_decay") << BiasMode::Join << 0.3 << 0.01;
    }
    void neuronMeanIsMomentumFanIn() {
        QFETCH(BiasMode, bias);
        QFETCH(double, dampening);
        QFETCH(double, weightDecay);
        HyperParameters h = withMean("neuron-mean", MeanScope::FanIn, bias);
        h.momentum = 0.9;
        h.dampening = dampening;
        h.weightDecay = weightDecay;
        auto neuronMean = ml::createOptimizer("neuron-mean", h);
        auto momentum = ml::createOptimizer("momentum", h);
        HyperParameters plainHp = h;
        plainHp.momentumMean = MeanScope::None;
        auto plain = ml::createOptimizer("momentum", plainHp);
        Parameters a = twoLayers(), b = twoLayers(), c = twoLayers();
        for (int t = 1; t <= 6; ++t) {
            neuronMean->step(a, gradientAt(t));
            momentum->step(b, gradientAt(t));
            plain->step(c, gradientAt(t));
            for (std::size_t l = 0; l < a.size(); ++l) {
                QCOMPARE(a[l], b[l]);  // bitwise equal
                QCOMPARE(neuronMean->layerState(l).firstMoment, momentum->layerState(l).firstMoment);
            }
        }
        QVERIFY(a[0] != c[0]);  // and it is not plain momentum
    }

    // ------------------------------------------------------------ the state-sharing family
    // Blend and statistic by hand on B = [[1, 2, 6], [4, -2, 3]] (bias column 6, 3), own bias:
    //   fan-in mean, blend 0.5     : row means 1.5, 1 -> 0.5*B + 0.5*mean = [1.25, 1.75 | 2.5, -0.5]
    //   fan-in signed-abs-mean     : mean |.| 1.5, 3  -> [1.5, 1.5 | 3, -3]
    //   fan-out signed-abs, blend 0.5: column mean |.| 2.5, 2 -> [0.5+1.25, 1+1 | 2+1.25, -1-1]
    //   layer signed-abs-mean      : mean |.| of the 4 weights 2.25 -> [2.25, 2.25 | 2.25, -2.25]
    void sharedStatisticFormula_data() {
        QTest::addColumn<MeanScope>("scope");
        QTest::addColumn<double>("blend");
        QTest::addColumn<MeanStatistic>("statistic");
        QTest::addColumn<Values>("aggregated");
        QTest::newRow("fan-in mean blend 0.5")
            << MeanScope::FanIn << 0.5 << MeanStatistic::Mean << Values{1.25, 1.75, 6, 2.5, -0.5, 3};
        QTest::newRow("fan-in signed-abs-mean")
            << MeanScope::FanIn << 1.0 << MeanStatistic::SignedAbsMean << Values{1.5, 1.5, 6, 3, -3, 3};
        QTest::newRow("fan-out signed-abs-mean blend 0.5")
            << MeanScope::FanOut << 0.5 << MeanStatistic::SignedAbsMean << Values{1.75, 2, 6, 3.25, -2, 3};
        QTest::newRow("layer signed-abs-mean")
            << MeanScope::Layer << 1.0 << MeanStatistic::SignedAbsMean << Values{2.25, 2.25, 6, 2.25, -2.25, 3};
        QTest::newRow("fan-in blend 0") << MeanScope::FanIn << 0.0 << MeanStatistic::SignedAbsMean
                                        << Values{1, 2, 6, 4, -2, 3};
    }
    void sharedStatisticFormula() {
        QFETCH(MeanScope, scope);
        QFETCH(double, blend);
        QFETCH(MeanStatistic, statistic);
        QFETCH(Values, aggregated);
        Matrix buffer = layer({1, 2, 6, 4, -2, 3});
        ml::MomentumAggregation(scope, BiasMode::Own, blend, statistic).aggregate(buffer);
        QString why;
        QVERIFY2(closeTo(buffer, aggregated, 1e-6, why), qPrintable(why));
    }

    // lambda = 0 is ordinary momentum and lambda = 1 is the full group mean (neuron-mean for fan-in),
    // bit for bit, for every first-moment rule, scope, statistic and bias mode; 0.5 is neither.
    void blendEndpoints_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<MeanScope>("scope");
        QTest::addColumn<MeanStatistic>("statistic");
        QTest::addColumn<BiasMode>("bias");
        for (const char* name : {"momentum", "nesterov", "sgdm-ema", "adam", "adamw", "adam-mini"})
            for (MeanScope scope : {MeanScope::FanIn, MeanScope::FanOut, MeanScope::Layer})
                for (MeanStatistic statistic : {MeanStatistic::Mean, MeanStatistic::SignedAbsMean})
                    for (BiasMode bias : {BiasMode::Own, BiasMode::Join})
                        QTest::addRow("%s scope %d stat %d bias %d", name, int(scope), int(statistic), int(bias))
                            << QString(name) << scope << statistic << bias;
    }
    void blendEndpoints() {
        QFETCH(QString, name);
        QFETCH(MeanScope, scope);
        QFETCH(MeanStatistic, statistic);
        QFETCH(BiasMode, bias);
        const std::string n = name.toStdString();
        auto blended = [&](double blend) {
            HyperParameters h = withMean(n.c_str(), scope, bias);
            h.momentumMeanBlend = blend;
            h.momentumMeanStat = statistic;
            return ml::createOptimizer(n, h);
        };
        auto full = [&] {  // the rule before the blend existed: scope and statistic, no blend field set
            HyperParameters h = withMean(n.c_str(), scope, bias);
            h.momentumMeanStat = statistic;
            if (n == "momentum" && scope == MeanScope::FanIn && statistic == MeanStatistic::Mean)
                return ml::createOptimizer("neuron-mean", h);
            return ml::createOptimizer(n, h);
        }();
        auto plain = ml::createOptimizer(n, withMean(n.c_str(), MeanScope::None, bias));
        auto zero = blended(0.0), one = blended(1.0), half = blended(0.5);
        Parameters wPlain = twoLayers(), wFull = twoLayers(), wZero = twoLayers(), wOne = twoLayers(),
                   wHalf = twoLayers();
        for (int t = 1; t <= 5; ++t) {
            plain->step(wPlain, gradientAt(t));
            full->step(wFull, gradientAt(t));
            zero->step(wZero, gradientAt(t));
            one->step(wOne, gradientAt(t));
            half->step(wHalf, gradientAt(t));
            for (std::size_t l = 0; l < wPlain.size(); ++l) {
                QCOMPARE(wZero[l], wPlain[l]);  // bitwise
                QCOMPARE(zero->layerState(l).firstMoment, plain->layerState(l).firstMoment);
                QCOMPARE(wOne[l], wFull[l]);
                QCOMPARE(one->layerState(l).firstMoment, full->layerState(l).firstMoment);
            }
        }
        QVERIFY(wHalf[0] != wPlain[0]);
        QVERIFY(wHalf[0] != wFull[0]);
    }

    // Gradient centralization is the complement of the fan-in mean: GC(g) + M_fan-in(g) = g on the
    // weights, and the biases keep their gradient. sgd with lr 1 shows GC(g) as -update.
    void centralizationPlusNeuronMeanIsTheGradient() {
        HyperParameters h = defaultsOf("sgd");
        h.lr = 1.0;
        h.gradientCentralization = true;
        for (const Parameters& shape : {twoLayers(), Parameters{Matrix(5, 4)}}) {
            auto sgd = ml::createOptimizer("sgd", h);
            Parameters w = shape, g = shape;
            for (Matrix& m : g) m = Matrix::Random(m.rows(), m.cols());
            sgd->step(w, g);
            for (std::size_t l = 0; l < g.size(); ++l) {
                const Matrix centralized = -sgd->layerState(l).update;
                Matrix neuronMean;
                ml::MomentumAggregation(MeanScope::FanIn, BiasMode::Own).meanPerEntry(g[l], neuronMean);
                const Eigen::Index weights = g[l].cols() - 1;
                const Matrix sum = centralized.leftCols(weights) + neuronMean.leftCols(weights);
                QString why;
                QVERIFY2(closeTo(sum, Matrix(g[l].leftCols(weights)), 1e-6, why), qPrintable(why));
                QCOMPARE(Matrix(centralized.col(weights)), Matrix(g[l].col(weights)));  // biases untouched
                QVERIFY2(centralized.leftCols(weights).rowwise().sum().cwiseAbs().maxCoeff() < 1e-6f,
                         "a centralised row does not sum to 0");
            }
        }
    }

    // --second-moment-mean by hand on V = [[1, 4, 9], [16, 4, 1]] (bias column 9, 1):
    //   fan-in own: 2.5, 10; fan-out join: 8.5, 4, 5; layer own: 25/4
    //   factored own: rowmeans 2.5, 10, colmeans 8.5, 4, mean 6.25 ->
    //                 [2.5*8.5, 2.5*4 | 10*8.5, 10*4] / 6.25 = [3.4, 1.6 | 13.6, 6.4]
    void secondMomentSharingFormula_data() {
        QTest::addColumn<SecondMomentScope>("scope");
        QTest::addColumn<BiasMode>("bias");
        QTest::addColumn<Values>("shared");
        QTest::newRow("none") << SecondMomentScope::None << BiasMode::Join << Values{1, 4, 9, 16, 4, 1};
        QTest::newRow("fan-in own") << SecondMomentScope::FanIn << BiasMode::Own << Values{2.5, 2.5, 9, 10, 10, 1};
        QTest::newRow("fan-out join") << SecondMomentScope::FanOut << BiasMode::Join << Values{8.5, 4, 5, 8.5, 4, 5};
        QTest::newRow("layer own") << SecondMomentScope::Layer << BiasMode::Own << Values{6.25, 6.25, 9, 6.25, 6.25, 1};
        QTest::newRow("factored own") << SecondMomentScope::Factored << BiasMode::Own
                                      << Values{3.4, 1.6, 9, 13.6, 6.4, 1};
    }
    void secondMomentSharingFormula() {
        QFETCH(SecondMomentScope, scope);
        QFETCH(BiasMode, bias);
        QFETCH(Values, shared);
        Matrix v = layer({1, 4, 9, 16, 4, 1});
        ml::SecondMomentSharing(scope, bias).share(v);
        QString why;
        QVERIFY2(closeTo(v, shared, 1e-6, why), qPrintable(why));
        Matrix zero = Matrix::Zero(2, 3);  // mean(v) = 0: stays 0, no division by zero
        ml::SecondMomentSharing(scope, bias).share(zero);
        QCOMPARE(zero, Matrix(Matrix::Zero(2, 3)));
    }

    // factored is Adafactor's rank-1 estimate: a rank-1 v = a b^T comes back unchanged.
    void factoredKeepsRankOne() {
        Eigen::VectorXf a(4), b(6);
        a << 0.5f, 2.0f, 1e-3f, 3.0f;
        b << 1.0f, 0.25f, 4.0f, 2e-2f, 7.0f, 0.5f;
        const Matrix rankOne = a * b.transpose();
        for (BiasMode bias : {BiasMode::Own, BiasMode::Join}) {
            Matrix v = rankOne;
            ml::SecondMomentSharing(SecondMomentScope::Factored, bias).share(v);
            QString why;
            QVERIFY2(closeTo(v, rankOne, 1e-6, why), qPrintable(why));
        }
        Matrix notRankOne = rankOne;  // and it does change a v of higher rank
        notRankOne(0, 0) += 1.0f;
        ml::SecondMomentSharing(SecondMomentScope::Factored, BiasMode::Join).share(notRankOne);
        QVERIFY(!notRankOne.isApprox(rankOne, 1e-3f));
    }

    // Group sizes (seeing the family) on the seed's 1-2-2-1, by hand: layer 1 has one
    // input per neuron, layer 3 one neuron. weight/bias: entries per group, per parameter layer;
    // idle: the layers the scope changes nothing for.
    void groupSizesOfTheSeedNetwork_data() {
        QTest::addColumn<SecondMomentScope>("scope");
        QTest::addColumn<BiasMode>("bias");
        QTest::addColumn<Values>("weight");
        QTest::addColumn<Values>("biasGroup");
        QTest::addColumn<Values>("idle");
        QTest::newRow("none") << SecondMomentScope::None << BiasMode::Join << Values{1, 1, 1} << Values{1, 1, 1}
                              << Values{1, 1, 1};
        QTest::newRow("fan-in own") << SecondMomentScope::FanIn << BiasMode::Own << Values{1, 2, 2} << Values{1, 1, 1}
                                    << Values{1, 0, 0};
        QTest::newRow("fan-in join") << SecondMomentScope::FanIn << BiasMode::Join << Values{2, 3, 3} << Values{2, 3, 3}
                                     << Values{0, 0, 0};
        QTest::newRow("fan-out own") << SecondMomentScope::FanOut << BiasMode::Own << Values{2, 2, 1} << Values{1, 1, 1}
                                     << Values{0, 0, 1};
        QTest::newRow("fan-out join") << SecondMomentScope::FanOut << BiasMode::Join << Values{2, 2, 1}
                                      << Values{2, 2, 1} << Values{0, 0, 1};
        QTest::newRow("layer own") << SecondMomentScope::Layer << BiasMode::Own << Values{2, 4, 2} << Values{1, 1, 1}
                                   << Values{0, 0, 0};
        QTest::newRow("layer join") << SecondMomentScope::Layer << BiasMode::Join << Values{4, 6, 3} << Values{4, 6, 3}
                                    << Values{0, 0, 0};
        // factored: blocks 2x1, 2x2, 1x2 (own) and 2x2, 2x3, 1x3 (join); a single row or column is its own estimate
        QTest::newRow("factored own") << SecondMomentScope::Factored << BiasMode::Own << Values{2, 4, 2}
                                      << Values{1, 1, 1} << Values{1, 0, 1};
        QTest::newRow("factored join") << SecondMomentScope::Factored << BiasMode::Join << Values{4, 6, 3}
                                       << Values{4, 6, 3} << Values{0, 0, 1};
    }
    void groupSizesOfTheSeedNetwork() {
        QFETCH(SecondMomentScope, scope);
        QFETCH(BiasMode, bias);
        QFETCH(Values, weight);
        QFETCH(Values, biasGroup);
        QFETCH(Values, idle);
        const std::vector<ml::LayerGroups> groups = ml::networkGroups({1, 2, 2, 1}, scope, bias);
        QCOMPARE(int(groups.size()), 3);
        for (int l = 0; l < 3; ++l) {
            QCOMPARE(double(groups[std::size_t(l)].weightGroup), weight[l]);
            QCOMPARE(double(groups[std::size_t(l)].biasGroup), biasGroup[l]);
            QCOMPARE(groups[std::size_t(l)].changesNothing(), idle[l] != 0.0);
        }
        if (scope != SecondMomentScope::Factored) {  // the first-moment overload gives the same groups
            const auto first = ml::networkGroups({1, 2, 2, 1}, static_cast<MeanScope>(scope), bias);
            for (int l = 0; l < 3; ++l) QCOMPARE(first[std::size_t(l)].weightGroup, groups[std::size_t(l)].weightGroup);
        }
    }

    // The sizes are those of the groups MomentumAggregation and SecondMomentSharing average: a
    // single 1 at (j, i) spreads over exactly its group, as 1/size.
    void groupSizesAreWhatIsAveraged() {
        const int outputs = 3, inputs = 4;
        for (MeanScope scope : {MeanScope::None, MeanScope::FanIn, MeanScope::FanOut, MeanScope::Layer})
            for (BiasMode bias : {BiasMode::Own, BiasMode::Join}) {
                const ml::LayerGroups groups = ml::layerGroups(inputs, outputs, scope, bias);
                for (int j = 0; j < outputs; ++j)
                    for (int i = 0; i <= inputs; ++i) {
                        const long expected = i == inputs ? groups.biasGroup : groups.weightGroup;
                        Matrix first = Matrix::Zero(outputs, inputs + 1);
                        first(j, i) = 1.0f;
                        Matrix second = first;
                        ml::MomentumAggregation(scope, bias).aggregate(first);
                        ml::SecondMomentSharing(static_cast<SecondMomentScope>(scope), bias).share(second);
                        for (const Matrix* shared : {&first, &second}) {
                            QCOMPARE(long((shared->array() != 0.0f).count()), expected);
                            QCOMPARE((*shared)(j, i), 1.0f / float(expected));
                        }
                    }
            }
    }

    // factored changes nothing exactly where the sizes say so: a single row or column of weights.
    void factoredIdleWhereTheBlockIsARowOrColumn() {
        for (auto [inputs, outputs] : {std::pair{1, 3}, std::pair{3, 1}, std::pair{2, 2}, std::pair{1, 1}})
            for (BiasMode bias : {BiasMode::Own, BiasMode::Join}) {
                Matrix v(outputs, inputs + 1);
                for (int j = 0; j < outputs; ++j)
                    for (int i = 0; i <= inputs; ++i)
                        v(j, i) = float(1 + (j * 7 + i * 3) % 5) * (j == 0 && i == 0 ? 4.0f : 1.0f);
                Matrix shared = v;
                ml::SecondMomentSharing(SecondMomentScope::Factored, bias).share(shared);
                const bool idle = ml::layerGroups(inputs, outputs, SecondMomentScope::Factored, bias).changesNothing();
                QVERIFY2(shared.isApprox(v, 1e-6f) == idle,
                         qPrintable(QString("%1 inputs, %2 outputs, bias %3").arg(inputs).arg(outputs).arg(int(bias))));
            }
    }

    // The shared-versus-own decomposition: a = M(a) + (a - M(a)). Exactly (==) on values whose
    // group means and differences are exact in float: every group of this 2 x (3 + 1) matrix sums
    // to a multiple of its size (rows: 6 and 12 over 3, 8 and 16 over 4; columns; 18 over 6; 24 over 8).
    void sharedPlusOwnIsTheMoment() {
        Matrix positive(2, 4), signedMoment(2, 4);
        positive << 1, 2, 3, 2, 3, 6, 3, 4;
        signedMoment << 1, -2, 3, 2, -3, 6, 3, -4;  // the same magnitudes: signed-abs-mean is exact too
        for (MeanScope scope : {MeanScope::None, MeanScope::FanIn, MeanScope::FanOut, MeanScope::Layer})
            for (BiasMode bias : {BiasMode::Own, BiasMode::Join})
                for (MeanStatistic statistic : {MeanStatistic::Mean, MeanStatistic::SignedAbsMean}) {
                    const Matrix& a = statistic == MeanStatistic::Mean ? positive : signedMoment;
                    const ml::MomentumAggregation aggregation(scope, bias, 0.5,
                                                              statistic);  // the blend does not matter
                    Matrix shared, own, mean;
                    aggregation.splitShared(a, shared, own);
                    aggregation.meanPerEntry(a, mean);
                    QCOMPARE(shared, mean);
                    QCOMPARE(Matrix(shared + own), a);
                    QVERIFY(own != Matrix::Zero(2, 4) || scope == MeanScope::None);  // none: the fan-in mean
                }
        // Any values: equal up to the rounding of the subtraction.
        const Matrix a = Matrix::Random(5, 9);
        Matrix shared, own;
        ml::MomentumAggregation(MeanScope::FanOut, BiasMode::Join).splitShared(a, shared, own);
        QVERIFY(((shared + own) - a).cwiseAbs().maxCoeff() <= 4 * std::numeric_limits<float>::epsilon());
    }

    // The group mean of a constant is that constant, for every scope of both moments.
    void groupMeanOfAConstantIsTheConstant() {
        for (float c : {0.75f, -0.75f, 0.0f})
            for (BiasMode bias : {BiasMode::Own, BiasMode::Join}) {
                const Matrix constant = Matrix::Constant(3, 5, c);
                for (MeanScope scope : {MeanScope::None, MeanScope::FanIn, MeanScope::FanOut, MeanScope::Layer})
                    for (MeanStatistic statistic : {MeanStatistic::Mean, MeanStatistic::SignedAbsMean}) {
                        Matrix shared, own;
                        ml::MomentumAggregation(scope, bias, 1.0, statistic).splitShared(constant, shared, own);
                        QCOMPARE(shared, constant);
                        QCOMPARE(own, Matrix(Matrix::Zero(3, 5)));
                    }
                if (c < 0.0f) continue;  // a second moment is >= 0
                for (SecondMomentScope scope :
                     {SecondMomentScope::None, SecondMomentScope::FanIn, SecondMomentScope::FanOut,
                      SecondMomentScope::Layer, SecondMomentScope::Factored}) {
                    Matrix mean;
                    ml::SecondMomentSharing(scope, bias).groupMean(constant, mean);
                    QCOMPARE(mean, constant);
                }
            }
        // none stands for the neuron's fan-in mean (what adam-mini would keep).
        Matrix v = layer({1, 4, 9, 16, 4, 1}), mean;
        ml::SecondMomentSharing(SecondMomentScope::None, BiasMode::Own).groupMean(v, mean);
        QString why;
        QVERIFY2(closeTo(mean, Values{2.5, 2.5, 9, 10, 10, 1}, 1e-6, why), qPrintable(why));
    }

    // adam-mini is adamw with one second moment per neuron: bit for bit, with either bias mode.
    void adamMiniIsAdamwWithFanInSecondMoment() {
        for (BiasMode bias : {BiasMode::Own, BiasMode::Join}) {
            HyperParameters h = defaultsOf("adam-mini");
            h.weightDecay = 0.05;
            h.bias = bias;
            HyperParameters w = h;
            w.secondMomentMean = SecondMomentScope::FanIn;
            auto mini = ml::createOptimizer("adam-mini", h);
            auto adamw = ml::createOptimizer("adamw", w);
            auto plainAdamw = ml::createOptimizer("adamw", h);
            Parameters a = twoLayers(), b = twoLayers(), c = twoLayers();
            for (int t = 1; t <= 5; ++t) {
                mini->step(a, gradientAt(t));
                adamw->step(b, gradientAt(t));
                plainAdamw->step(c, gradientAt(t));
                for (std::size_t l = 0; l < a.size(); ++l) {
                    QCOMPARE(a[l], b[l]);
                    QCOMPARE(mini->layerState(l).secondMoment, adamw->layerState(l).secondMoment);
                }
            }
            QVERIFY(a[0] != c[0]);                               // and not plain adamw
            const Matrix& v = mini->layerState(0).secondMoment;  // one value per neuron's weights
            QCOMPARE(v(0, 0), v(0, 1));
        }
    }

    // nero on a row of three weights (on the golden 2x3 layer every centred unit row is +-(1, -1)/sqrt(2)).
    // W = [1, 2, 4 | 0.5], g = [0.3, -0.6, 0.1 | 0.2], lr 0.1, beta 0.9, one step:
    //   projection: centred [-4, -1, 5]/3, unit length [-4, -1, 5]/sqrt(42); weight scale 1, bias scale 0.5
    //   S = 0.1*0.46, S/(1-beta) = 0.46: w <- w - 0.1*g/sqrt(0.46), then centred and normalised:
    //   [-0.66653974, -0.07513382, 0.74167357] (Python doubles)
    //   bias: S = 0.1*0.04, S/(1-beta) = 0.04: b <- 0.5 - 0.1*0.5*0.2/0.2 = 0.45
    void neroOnThreeInputs() {
        HyperParameters h = defaultsOf("nero");
        h.lr = 0.1;
        h.beta2 = 0.9;
        auto nero = ml::createOptimizer("nero", h);
        Matrix w(1, 4), g(1, 4);
        w << 1.0f, 2.0f, 4.0f, 0.5f;
        g << 0.3f, -0.6f, 0.1f, 0.2f;
        Parameters p{w};
        QVERIFY(nero->constrainInitialParameters(p));
        QVERIFY(nero->step(p, Parameters{g}));
        Matrix expected(1, 4);
        expected << -0.6665397446f, -0.0751338209f, 0.7416735655f, 0.45f;
        QString why;
        QVERIFY2(closeTo(p[0], expected, 1e-6, why), qPrintable(why));
        QCOMPARE(nero->layerState(0).tensorScales(1), 0.5f);
    }

    // nero.py centres and normalises the weight rows when the optimizer is created, so the first
    // gradient is taken at projected weights. The trainer does the same (constrainInitialParameters
    // before the first forward pass): a nero run from W0 equals nero's update applied by hand, full
    // batch, from W0 with its rows projected by hand in double; a momentum run beside it starts from
    // W0 itself, and each run's initial weights (weights_initial.json) are what it started from.
    void neroStartsFromProjectedWeights() {
        ml::DenseDataset::RowMatrix x(5, 2), y(5, 1);
        x << 0.5f, -1.0f, 1.5f, 0.25f, -0.75f, 2.0f, 1.0f, 1.0f, -2.0f, 0.5f;
        y << 1.0f, -0.5f, 0.25f, 2.0f, -1.0f;
        ml::DataSplit data{"five points", std::make_shared<ml::DenseDataset>(ml::DenseDataset::regression(x, y)), {}};
        ml::Experiment e;
        e.network.setSizes({2, 3, 1});
        e.network.activation = ml::Activation::Tanh;
        e.network.loss = ml::LossKind::Mse;
        e.data = "toy:sine";  // only named in messages; the split above is what trains
        e.batchSize = 0;
        e.steps = 4;
        HyperParameters nero = defaultsOf("nero");
        nero.lr = 0.05;
        e.runs = {{"nero", "nero", nero}, {"momentum", "momentum", defaultsOf("momentum")}};
        Matrix w1(3, 3), w2(1, 4);
        w1 << 0.3f, -0.8f, 0.1f, 1.2f, 0.4f, -0.2f, -0.5f, -0.6f, 0.05f;
        w2 << 0.7f, -0.3f, 0.9f, 0.2f;
        const Parameters w0{w1, w2};
        ml::LockstepTrainer trainer(e, data, ml::InitialWeights{w0, "test"});
        ml::RunControl control;
        trainer.run(control);

        Parameters projected = w0;  // by hand, in double
        for (Matrix& layer : projected)
            for (Eigen::Index i = 0; i < layer.rows(); ++i) {
                const Eigen::Index n = layer.cols() - 1;
                double mean = 0.0, squares = 0.0;
                for (Eigen::Index j = 0; j < n; ++j) mean += layer(i, j) / static_cast<double>(n);
                for (Eigen::Index j = 0; j < n; ++j) squares += (layer(i, j) - mean) * (layer(i, j) - mean);
                for (Eigen::Index j = 0; j < n; ++j)
                    layer(i, j) = static_cast<float>((layer(i, j) - mean) / std::sqrt(squares));
            }
        QString why;
        for (std::size_t l = 0; l < w0.size(); ++l) {
            QVERIFY2(closeTo(trainer.initialParameters(0)[l], projected[l], 1e-6, why), qPrintable(why));
            QCOMPARE(trainer.initialParameters(1)[l], w0[l]);  // momentum: W0 itself
            QCOMPARE(trainer.initialParameters()[l], w0[l]);
        }

        ml::Network network(e.network);
        network.setParameters(projected, "projected W0");
        auto reference = ml::createOptimizer("nero", nero);
        QVERIFY(!reference->constrainInitialParameters(network.parameters()));  // already projected: kept
        ml::Batch batch;
        const std::vector<Eigen::Index> all{0, 1, 2, 3, 4};
        data.train->gather(all, batch);
        Parameters gradients = ml::zerosLike(projected);
        for (long t = 1; t <= e.steps; ++t) {
            network.computeGradients(batch, gradients);
            QVERIFY(reference->step(network.parameters(), gradients));
        }
        for (std::size_t l = 0; l < w0.size(); ++l)
            QVERIFY2(closeTo(trainer.parameters(0)[l], network.parameters()[l], 1e-5, why),
                     qPrintable(QString("layer %1 after %2 steps: %3").arg(l).arg(e.steps).arg(why)));
    }

    // A fork whose nero starts fresh: from a nero run's saved weights (already projected) it keeps
    // them bit for bit; from a momentum run's it starts from them projected.
    void neroForkStartsFromConstrainedWeights() {
        ml::DenseDataset::RowMatrix x(3, 2), y(3, 1);
        x << 0.5f, -1.0f, 1.5f, 0.25f, -0.75f, 2.0f;
        y << 1.0f, -0.5f, 0.25f;
        ml::DataSplit data{"three points", std::make_shared<ml::DenseDataset>(ml::DenseDataset::regression(x, y)), {}};
        ml::Experiment e;
        e.network.setSizes({2, 3, 1});
        e.network.loss = ml::LossKind::Mse;
        e.data = "toy:sine";  // only named in messages
        e.batchSize = 0;
        e.steps = 2;
        e.runs = {{"nero", "nero", defaultsOf("nero")}, {"momentum", "momentum", defaultsOf("momentum")}};
        ml::LockstepTrainer source(e, data);
        ml::RunControl control;
        source.run(control);
        ml::Experiment fork = e;
        fork.steps = 4;
        fork.runs = {{"nero", "nero", defaultsOf("nero")}};
        for (int run = 0; run < 2; ++run) {
            const ml::TrainingState state = source.trainingState(run);
            ml::LockstepTrainer branch(fork, data);
            branch.resumeFrom(state, {false});
            for (std::size_t l = 0; l < state.parameters.size(); ++l) {
                const Matrix& start = branch.parameters(0)[l];
                if (run == 0) QCOMPARE(start, state.parameters[l]);  // bitwise
                else QVERIFY(start != state.parameters[l]);
                for (Eigen::Index i = 0; i < start.rows(); ++i) {
                    const auto row = start.row(i).head(start.cols() - 1);
                    QVERIFY(std::abs(row.mean()) < 1e-6f && std::abs(row.norm() - 1.0f) < 1e-6f);
                }
            }
        }
    }

    // Constraining constrained weights changes nothing, bit for bit (a fork resumes from them).
    void neroConstraintKeepsConstrainedWeights() {
        auto nero = ml::createOptimizer("nero", defaultsOf("nero"));
        Parameters w = twoLayers();
        QVERIFY(nero->constrainInitialParameters(w));
        const Parameters once = w;
        QVERIFY(!nero->constrainInitialParameters(w));
        for (std::size_t l = 0; l < w.size(); ++l) QCOMPARE(w[l], once[l]);
        for (const std::string& name : ml::optimizerNames()) {
            if (name == "nero") continue;
            Parameters other = twoLayers();
            QVERIFY2(!ml::createOptimizer(name, ml::optimizerInfo(name).defaults)->constrainInitialParameters(other),
                     name.c_str());
        }
    }

    // A zero gradient (nu = 0, S = 0, ||G|| = 0) moves no weight of sm3, lars, lamb, novograd or
    // adafactor and leaves nothing non-finite (the rules' "0 where undefined"); nero only projects.
    void zeroGradientIsNoStep() {
        for (const char* name : {"sm3", "lars", "novograd", "adafactor", "nero"}) {
            auto optimizer = ml::createOptimizer(name, defaultsOf(name));
            Parameters w = twoLayers();
            const Parameters zero{Matrix::Zero(2, 3), Matrix::Zero(1, 3)};
            QVERIFY2(optimizer->step(w, zero), name);
            QVERIFY2(optimizer->step(w, zero), name);
            for (std::size_t l = 0; l < w.size(); ++l) {
                QVERIFY2(optimizer->layerState(l).update.allFinite(), name);
                if (QString(name) != "nero") QCOMPARE(w[l], twoLayers()[l]);
            }
        }
    }

    // Where a row without gradient (a dead unit) meets a column without gradient (an input that is
    // always 0), adafactor's V = (3*eps1)*(3*eps1)/sum(R) ~ 1e-60 underflows to 0 in float: the step
    // there is 0, not 0/0 (the 8x8 digits preset diverged at step 1 before).
    void adafactorDeadRowMeetsDeadColumn() {
        auto adafactor = ml::createOptimizer("adafactor", defaultsOf("adafactor"));
        Matrix g = Matrix::Constant(3, 4, 0.5f);
        g.row(0).setZero();
        g.col(0).setZero();
        Parameters w{Matrix::Constant(3, 4, 0.1f)};
        QVERIFY(adafactor->step(w, Parameters{g}));
        QCOMPARE(adafactor->layerState(0).secondMoment(0, 0), 0.0f);  // the underflow this is about
        QCOMPARE(adafactor->layerState(0).update(0, 0), 0.0f);
        QVERIFY(adafactor->layerState(0).update(1, 1) < 0.0f);
    }

    // ------------------------------------------------------------ validation
    void invalidHyperParameters_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<HyperParameters>("hp");
        QTest::addColumn<QStringList>("mustContain");
        HyperParameters h = defaultsOf("momentum");
        h.lr = -0.1;
        QTest::newRow("negative lr") << "momentum" << h << QStringList{"--lr", "-0.1"};
        h = defaultsOf("adagrad");
        h.lr = -1;
        QTest::newRow("adagrad negative lr") << "adagrad" << h << QStringList{"--lr"};
        h = defaultsOf("momentum");
        h.momentum = 1.0;
        QTest::newRow("momentum 1") << "momentum" << h << QStringList{"--momentum", "1"};
        h.momentum = -0.1;
        QTest::newRow("momentum -0.1") << "momentum" << h << QStringList{"--momentum", "-0.1"};
        h = defaultsOf("sgdm-ema");
        h.momentum = 1.0;
        QTest::newRow("sgdm-ema beta 1") << "sgdm-ema" << h << QStringList{"--momentum"};
        h = defaultsOf("nesterov");
        h.dampening = 0.1;
        QTest::newRow("nesterov dampening") << "nesterov" << h << QStringList{"nesterov", "--dampening"};
        h = defaultsOf("nesterov");
        h.momentum = 0.0;
        QTest::newRow("nesterov momentum 0") << "nesterov" << h << QStringList{"nesterov", "--momentum"};
        h = defaultsOf("adam");
        h.beta2 = 1.0;
        QTest::newRow("adam beta2 1") << "adam" << h << QStringList{"--beta2"};
        h = defaultsOf("adamw");
        h.beta1 = 1.0;
        QTest::newRow("adamw beta1 1") << "adamw" << h << QStringList{"--beta1"};
        h = defaultsOf("adam");
        h.eps = -1e-8;
        QTest::newRow("adam negative eps") << "adam" << h << QStringList{"--eps"};
        h = defaultsOf("rmsprop");
        h.eps = -1e-8;
        QTest::newRow("rmsprop negative eps") << "rmsprop" << h << QStringList{"--eps"};
        h = defaultsOf("adagrad");
        h.eps = -1.0;
        QTest::newRow("adagrad negative eps") << "adagrad" << h << QStringList{"--eps"};
        // Real hyper-parameters must fit a float (the rules compute in float; 1e39 would be inf).
        h = defaultsOf("sgd");
        h.lr = 1e39;
        QTest::newRow("lr beyond float") << "sgd" << h << QStringList{"--lr", "1e+39", "float"};
        h = defaultsOf("adam");
        h.eps = 1e39;
        QTest::newRow("adam eps beyond float") << "adam" << h << QStringList{"--eps", "1e+39", "float"};
        h = defaultsOf("adagrad");
        h.weightDecay = 1e300;
        QTest::newRow("weight decay beyond float") << "adagrad" << h << QStringList{"--weight-decay", "1e+300"};
        h = defaultsOf("rmsprop");
        h.centered = true;
        h.secondMomentMean = SecondMomentScope::Layer;
        QTest::newRow("rmsprop centered shared v")
            << "rmsprop" << h << QStringList{"--centered", "--second-moment-mean"};
        h = defaultsOf("momentum");
        h.momentumMeanBlend = 1.5;
        QTest::newRow("blend above 1") << "momentum" << h << QStringList{"--momentum-mean-blend", "1.5", "[0, 1]"};
        h = defaultsOf("momentum");
        QTest::newRow("unknown optimizer") << "adamax" << h << QStringList{"adamax", "sgd", "neuron-mean", "adamw"};
    }
    void invalidHyperParameters() {
        QFETCH(QString, name);
        QFETCH(HyperParameters, hp);
        QFETCH(QStringList, mustContain);
        const std::string n = name.toStdString();
        const QString validated = inputErrorOf([&] { ml::validateHyperParameters(n, hp, "ctx"); });
        QVERIFY2(!validated.isEmpty(), "validateHyperParameters accepted it");
        const QString created = inputErrorOf([&] { ml::createOptimizer(n, hp); });
        QVERIFY2(!created.isEmpty(), "createOptimizer accepted it");
        for (const QString& part : mustContain) {
            QVERIFY2(validated.contains(part), qPrintable("'" + validated + "' lacks '" + part + "'"));
            QVERIFY2(created.contains(part), qPrintable("'" + created + "' lacks '" + part + "'"));
        }
    }
    // The counterpart: defaults and boundary values are accepted (so the refusals above are
    // about the values, not about the setup).
    void validHyperParametersAccepted() {
        for (const std::string& name : ml::optimizerNames()) {
            const HyperParameters h = ml::optimizerInfo(name).defaults;
            QCOMPARE(inputErrorOf([&] { ml::createOptimizer(name, h); }), QString());
        }
        HyperParameters h = defaultsOf("momentum");
        h.lr = 0.0;
        h.momentum = 0.0;
        h.dampening = 1.0;
        QCOMPARE(inputErrorOf([&] { ml::validateHyperParameters("momentum", h, "ctx"); }), QString());
        h = defaultsOf("nesterov");
        h.momentum = 0.999;
        QCOMPARE(inputErrorOf([&] { ml::validateHyperParameters("nesterov", h, "ctx"); }), QString());
        h = defaultsOf("adam");
        h.beta2 = 0.0;
        h.eps = 0.0;
        QCOMPARE(inputErrorOf([&] { ml::validateHyperParameters("adam", h, "ctx"); }), QString());
        // The largest float is the largest learning rate.
        h = defaultsOf("sgd");
        h.lr = std::numeric_limits<float>::max();
        QCOMPARE(inputErrorOf([&] { ml::validateHyperParameters("sgd", h, "ctx"); }), QString());
        // A parameter the rule does not read is not checked (sgd reads no momentum).
        h = defaultsOf("sgd");
        h.momentum = 5.0;
        QCOMPARE(inputErrorOf([&] { ml::validateHyperParameters("sgd", h, "ctx"); }), QString());
    }

    // Text and JSON go through the same range check: the message names the field and the range.
    void parsedValueBeyondFloatRefused() {
        HyperParameters h;
        const QString error = inputErrorOf([&] { ml::findParameterField("lr")->set(h, "1e39", "--lr"); });
        QVERIFY2(error.contains("--lr") && error.contains("1e+39") && error.contains("float"), qPrintable(error));
        const QString json = inputErrorOf([&] { ml::findParameterField("eps")->setReal(h, 1e39, "runs[0].eps"); });
        QVERIFY2(json.contains("runs[0].eps") && json.contains("float"), qPrintable(json));
    }

    // ------------------------------------------------------------ non-finite updates are refused
    // A step whose result would not be finite changes no layer and reports false; a finite step
    // reports true. Also when the update itself is finite but the sum overflows.
    void nonFiniteStepLeavesParametersUntouched() {
        HyperParameters h = defaultsOf("sgd");
        h.lr = 1e30;
        auto sgd = ml::createOptimizer("sgd", h);
        Parameters w = twoLayers();
        const Parameters before = w;
        Parameters g = gradientAt(1);
        g[1] *= 1e10f;  // layer 1's update is 1e40: inf in float; layer 0's is finite
        QVERIFY(!sgd->step(w, g));
        QCOMPARE(w[0], before[0]);  // bitwise: no layer changed, not even the finite one
        QCOMPARE(w[1], before[1]);

        h.lr = 1.0;
        auto overflow = ml::createOptimizer("sgd", h);
        Parameters big{Matrix::Constant(2, 3, 3e38f)};
        const Parameters bigBefore = big;
        QVERIFY(!overflow->step(big, Parameters{Matrix::Constant(2, 3, -3e38f)}));  // 3e38 + 3e38 = inf
        QCOMPARE(big[0], bigBefore[0]);

        auto fine = ml::createOptimizer("sgd", defaultsOf("sgd"));
        QVERIFY(fine->step(w, gradientAt(1)));
        QVERIFY(w[0] != before[0]);
    }

    // The trainer's promise: a diverged run keeps its last finite weights. Inputs of 1e5 make the
    // first gradient ~1e10, so lr = 1e30 gives an update of ~1e40 while the loss (~1e10) is finite:
    // only the optimizer can notice. The lr = 0 run shows the initial weights.
    void divergedRunKeepsItsLastFiniteWeights() {
        ml::DenseDataset::RowMatrix x(4, 1), y(4, 1);
        x << 1e5f, -2e5f, 3e5f, 5e4f;
        y << 1.0f, 2.0f, -1.0f, 0.0f;
        ml::DataSplit data{"large inputs", std::make_shared<ml::DenseDataset>(ml::DenseDataset::regression(x, y)), {}};
        ml::Experiment e;
        e.network.setSizes({1, 2, 1});
        e.network.activation = ml::Activation::Identity;
        e.network.loss = ml::LossKind::Mse;
        e.data = "toy:sine";  // only named in messages; the split above is what trains
        e.batchSize = 0;
        e.steps = 5;
        HyperParameters wild = defaultsOf("sgd"), still = defaultsOf("sgd");
        wild.lr = 1e30;
        still.lr = 0.0;
        e.runs = {{"wild", "sgd", wild}, {"still", "sgd", still}};
        ml::LockstepTrainer trainer(e, data);
        ml::RunControl control;
        trainer.run(control);
        QVERIFY(trainer.result(0).status == ml::RunStatus::Diverged);
        QCOMPARE(trainer.result(0).divergedAtStep, 1L);
        QCOMPARE(trainer.result(0).steps, 0L);
        QVERIFY(ml::allFinite(trainer.parameters(0)));
        for (std::size_t l = 0; l < trainer.parameters(0).size(); ++l)
            QCOMPARE(trainer.parameters(0)[l], trainer.parameters(1)[l]);  // the initial weights
        QVERIFY(trainer.result(1).status == ml::RunStatus::Done);
    }

    // ------------------------------------------------------------ LayerState::update
    void updateIsParameterChange_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<HyperParameters>("hp");
        for (const std::string& name : ml::optimizerNames())
            QTest::addRow("%s defaults", name.c_str())
                << QString::fromStdString(name) << ml::optimizerInfo(name).defaults;
        for (const GoldenRow& row : goldenRows())
            QTest::addRow("%s (golden)", row.label) << QString(row.name) << row.hp;
    }
    void updateIsParameterChange() {
        QFETCH(QString, name);
        QFETCH(HyperParameters, hp);
        auto optimizer = ml::createOptimizer(name.toStdString(), hp);
        Parameters w = twoLayers();
        for (int t = 1; t <= 3; ++t) {
            const Parameters before = w;
            optimizer->step(w, gradientAt(t));
            QCOMPARE(optimizer->layerCount(), w.size());
            for (std::size_t l = 0; l < w.size(); ++l) {
                const Matrix& update = optimizer->layerState(l).update;
                QCOMPARE(update.rows(), w[l].rows());
                QCOMPARE(update.cols(), w[l].cols());
                QVERIFY2(update.norm() > 0.0f, "no update recorded");
                const Matrix change = w[l] - before[l];
                // (before + u) - before == u up to the rounding of the sum: <= 1 ulp of the larger value.
                const float tolerance =
                    2.0f * std::numeric_limits<float>::epsilon() *
                    std::max(1.0f, std::max(before[l].cwiseAbs().maxCoeff(), w[l].cwiseAbs().maxCoeff()));
                QVERIFY2((update - change).cwiseAbs().maxCoeff() <= tolerance,
                         qPrintable(QString("step %1 layer %2: |update - change| = %3")
                                        .arg(t)
                                        .arg(l)
                                        .arg((update - change).cwiseAbs().maxCoeff())));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestOptim)
#include "test_optim.moc"
