#pragma once
// A one-line progress bar with ETA for terminals (the CLI shows it when stderr is a terminal).
#include "train/TrainingObserver.h"

#include <chrono>
#include <cstdio>

namespace ml {

class ProgressBar : public TrainingObserver {
public:
    ProgressBar(long totalSteps, int runCount, std::FILE* out = stderr);
    void stepFinished(const StepMetrics& metrics) override;
    void done();

private:
    void draw(long step, float loss);
    using Clock = std::chrono::steady_clock;
    long totalSteps_;
    int runCount_;
    std::FILE* out_;
    Clock::time_point start_ = Clock::now();
    Clock::time_point lastDraw_{};
};

}  // namespace ml
