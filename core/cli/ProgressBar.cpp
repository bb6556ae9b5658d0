#include "cli/ProgressBar.h"

#include <string>

namespace ml {

ProgressBar::ProgressBar(long totalSteps, int runCount, std::FILE* out)
    : totalSteps_(totalSteps), runCount_(runCount), out_(out) {}

void ProgressBar::stepFinished(const StepMetrics& metrics) {
    // Redraw at most 10 times a second, on the last run of a lockstep step.
    if (metrics.run != runCount_ - 1) return;
    const auto now = Clock::now();
    if (now - lastDraw_ < std::chrono::milliseconds(100) && metrics.step != totalSteps_) return;
    lastDraw_ = now;
    draw(metrics.step, metrics.trainLoss);
}

void ProgressBar::draw(long step, float loss) {
    constexpr int kWidth = 30;
    const double fraction = totalSteps_ > 0 ? static_cast<double>(step) / static_cast<double>(totalSteps_) : 1.0;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const long eta = fraction > 0 ? static_cast<long>(elapsed / fraction - elapsed + 0.5) : 0;
    const int filled = static_cast<int>(fraction * kWidth);
    const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
    std::fprintf(out_, "\r[%s] %3d%%  step %ld/%ld  loss %.4g  ETA %ld:%02ld ", bar.c_str(),
                 static_cast<int>(fraction * 100), step, totalSteps_, static_cast<double>(loss), eta / 60, eta % 60);
    std::fflush(out_);
}

void ProgressBar::done() {
    std::fputc('\n', out_);
    std::fflush(out_);
}

}  // namespace ml
