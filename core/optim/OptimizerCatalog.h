#pragma once
// The optimizers a user can pick, by name: what each is, which hyper-parameters it reads (only
// those appear in its GUI form and its resolved config), their defaults, its own constraints and
// how to build it and how the update explainer takes its update apart. Adding an optimizer is one
// row here (OptimizerCatalog.cpp) plus its class, with its explanation parts beside it.
#include "optim/Optimizer.h"

#include <memory>
#include <string>
#include <vector>

namespace ml {

struct OptimizerInfo {
    // Builds the rule under the catalog's name; the hyper-parameters are already validated.
    using Factory = std::unique_ptr<Optimizer> (*)(std::string name, const HyperParameters& hp);
    // The rule's own constraints beyond each field's range; throws InputError prefixed by `context`.
    using Constraint = void (*)(const HyperParameters& hp, const std::string& context);
    // The rule's parts for the update explainer (UpdateRecipe.h), for these hyper-parameters.
    using Explanation = const UpdateRecipe& (*)(const HyperParameters& hp);

    std::string name;                     // "momentum", "neuron-mean", ...
    std::string summary;                  // one line for help texts and tooltips
    std::string formula;                  // the update rule in one or two lines
    std::vector<std::string> parameters;  // keys of ParameterField it reads
    HyperParameters defaults;
    Factory create = nullptr;
    Explanation explanation = nullptr;  // every row has one (test_explainer checks)
    Constraint constraint = nullptr;    // nullptr: the field ranges are all

    bool uses(const std::string& key) const;
};

const std::vector<OptimizerInfo>& optimizerCatalog();
std::vector<std::string> optimizerNames();
// Throws InputError listing the known names.
const OptimizerInfo& optimizerInfo(const std::string& name);

// Range checks of the parameters `name` reads plus the rule's own constraint (e.g. nesterov needs
// momentum > 0 and no dampening). Throws InputError; `context` prefixes the message.
void validateHyperParameters(const std::string& name, const HyperParameters& hp, const std::string& context);

// Validates, then builds the optimizer.
std::unique_ptr<Optimizer> createOptimizer(const std::string& name, const HyperParameters& hp);

}  // namespace ml
