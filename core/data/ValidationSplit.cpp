#include "data/ValidationSplit.h"

#include "InputError.h"
#include "data/Split.h"

#include <algorithm>

namespace ml {

std::string toString(Holdout holdout) {
    switch (holdout) {
    case Holdout::None: return "none";
    case Holdout::Validation: return "validation";
    case Holdout::Test: return "test";
    }
    return "none";
}

Holdout holdoutFromString(const std::string& text, const std::string& context) {
    for (const Holdout holdout : {Holdout::None, Holdout::Validation, Holdout::Test})
        if (text == toString(holdout)) return holdout;
    throw InputError(context + ": \"" + text + "\" is not a holdout; expected none, validation or test");
}

Eigen::Index validationSize(Eigen::Index trainSize) {
    if (trainSize <= 0) return 0;
    return std::max<Eigen::Index>(1, (trainSize + 3) / 6);  // round(n / 6), halves up
}

DataSplit applyHoldout(DataSplit data, Holdout holdout) {
    if (holdout == Holdout::None) return data;
    const Eigen::Index n = data.train->size();
    if (n < 2)
        throw InputError("holdout " + toString(holdout) + ": data set " + data.spec + " has " + std::to_string(n) +
                         " training samples; a validation split needs at least 2");
    const IndexSplit split = shuffledSplit(n, validationSize(n), kValidationSplitSeed);
    std::shared_ptr<const Dataset> rest = data.train->select(split.train);
    if (holdout == Holdout::Validation) data.test = data.train->select(split.test);
    data.train = std::move(rest);
    return data;
}

}  // namespace ml
