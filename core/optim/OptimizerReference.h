#pragma once
// docs/optimizers.md, generated from the catalog (summary, formula, hyper-parameters with their
// defaults and ranges), so the reference cannot drift from the code. tests/test_optimizer_docs
// fails when the checked-in file differs, and rewrites it on request.
#include <string>

namespace ml {

std::string optimizerReferenceMarkdown();

}  // namespace ml
