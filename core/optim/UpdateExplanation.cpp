#include "optim/UpdateExplanation.h"

#include "optim/OptimizerCatalog.h"
#include "optim/UpdateRecipe.h"

namespace ml {

namespace {

const OptimizerInfo* catalogEntry(const std::string& name) {
    for (const OptimizerInfo& entry : optimizerCatalog())
        if (entry.name == name) return &entry;
    return nullptr;
}

}  // namespace

UpdateExplanation explainConnection(const std::string& optimizer, const HyperParameters& hp, long step,
                                    const LayerRecord* now, const LayerRecord* previous, int row, int column) {
    UpdateExplanation out;
    out.step = step;
    const OptimizerInfo* entry = catalogEntry(optimizer);
    if (!entry || !entry->explanation) {
        out.reason = optimizer +
                     " is not taken apart (the explainer knows the sgd, momentum, adam, rmsprop, adagrad families "
                     "and lars, lamb, novograd, sm3, adafactor, nero)";
        return out;
    }
    if (!now) {
        out.reason = "no such layer";
        return out;
    }
    if (now->gradient.size() == 0 || now->update.size() == 0 || row < 0 || row >= now->update.rows() || column < 0 ||
        column >= now->update.cols()) {
        out.reason = "the snapshot keeps no gradient or update here";
        return out;
    }
    const ExplainedConnection connection{hp,
                                         *now,
                                         step,
                                         row,
                                         column,
                                         column == now->update.cols() - 1,
                                         now->parameters(row, column) - now->update(row, column)};
    entry->explanation(hp).explain(connection, previous, out);
    return out;
}

}  // namespace ml
