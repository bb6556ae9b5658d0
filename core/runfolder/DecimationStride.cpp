#include "runfolder/DecimationStride.h"

#include <algorithm>

namespace ml {

DecimationStride::DecimationStride(int capacity) : capacity_(std::max(2, capacity + capacity % 2)) {}

}  // namespace ml
