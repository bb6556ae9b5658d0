#include "optim/OptimizerReference.h"

#include "optim/OptimizerCatalog.h"

#include <sstream>

namespace ml {

namespace {

void writeOptimizer(std::ostream& out, const OptimizerInfo& info) {
    out << "## " << info.name << "\n\n" << info.summary << ".\n\n";
    out << "```\n" << info.formula << "\n```\n\n";
    out << "| hyper-parameter | default | valid values | meaning |\n|---|---|---|---|\n";
    for (const std::string& key : info.parameters) {
        const ParameterField& field = *findParameterField(key);
        out << "| `" << key << "` | " << field.get(info.defaults) << " | " << field.rangeText() << " | " << field.help
            << " |\n";
    }
    out << "\nExample: `momentum-lab-cli train --optimizer " << info.name << ":" << info.parameters.front() << "="
        << findParameterField(info.parameters.front())->get(info.defaults) << " ...`\n\n";
}

}  // namespace

std::string optimizerReferenceMarkdown() {
    std::ostringstream out;
    out << "# Optimizers\n\n"
           "<!-- Generated from core/optim/OptimizerCatalog.cpp by optimizerReferenceMarkdown(); do not edit.\n"
           "     Regenerate: MOMENTUM_LAB_UPDATE_DOCS=1 build/tests/test_optimizer_docs -->\n\n"
           "Update rules follow PyTorch `torch.optim`'s documented algorithms, in float32. Notation: w the\n"
           "parameters of a layer (weights and biases), g its gradient (plus weight-decay * w where the\n"
           "rule lists `weight-decay` and does not decouple it; with `--gradient-centralization` each weight\n"
           "row then loses its mean, biases untouched), t the step (from 1), M the momentum aggregation of\n"
           "`--momentum-mean`, `--bias`, `--momentum-mean-blend` and `--momentum-mean-stat` (identity for\n"
           "none), S the second-moment sharing of `--second-moment-mean` and `--bias` (identity for none).\n"
           "Each hyper-parameter is a CLI flag (`--lr 0.1`), a per-run option (`--optimizer adam:lr=0.001`)\n"
           "and a JSON key.\n\n"
           "| optimizer | summary |\n|---|---|\n";
    for (const OptimizerInfo& info : optimizerCatalog())
        out << "| [`" << info.name << "`](#" << info.name << ") | " << info.summary << " |\n";
    out << "\n";
    for (const OptimizerInfo& info : optimizerCatalog()) writeOptimizer(out, info);
    return out.str();
}

}  // namespace ml
