#include "landscape/LossSlice.h"

#include "InputError.h"

namespace ml {

LossSlice LossSlice::compute(LossProbe& probe, const Eigen::VectorXf& from, const Eigen::VectorXf& to, int points,
                             const LandscapeControl& control) {
    if (points < 2) throw InputError("loss slice: expected at least 2 points");
    if (from.size() != probe.parameterCount() || to.size() != probe.parameterCount())
        throw InputError("loss slice: the two weight vectors need the network's " +
                         std::to_string(probe.parameterCount()) + " weights");
    LossSlice slice;
    for (int i = 0; i < points; ++i) slice.t.push_back(kFrom + (kTo - kFrom) * i / (points - 1));
    slice.loss.reserve(slice.t.size());
    Eigen::VectorXf weights(from.size());
    for (std::size_t i = 0; i < slice.t.size(); ++i) {
        if (control.cancelled()) return slice;
        const float t = float(slice.t[i]);
        weights = from + t * (to - from);
        slice.loss.push_back(probe.lossAt(weights));
        if (control.progress) control.progress(long(i) + 1, long(slice.t.size()));
    }
    slice.complete = true;
    return slice;
}

}  // namespace ml
