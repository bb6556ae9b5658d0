#include "instruments/CurvatureInstrument.h"

#include "diagnostics/CurvatureWriter.h"
#include "instruments/StepCount.h"

namespace ml {

void CurvatureInstrument::addOptions(QCommandLineParser& parser) {
    parser.addOption({"curvature-every",
                      "Write curvature.csv every N steps: the largest Hessian eigenvalue of the loss on a fixed "
                      "batch (power iteration) beside 2/lr and (2+2mu)/lr.",
                      "N"});
    parser.addOption({"curvature-batch",
                      "The fixed batch of --curvature-every and --hessian-spectrum: the first B training samples "
                      "(default " +
                          QString::number(kDefaultCurvatureBatch) + ").",
                      "B"});
}

int CurvatureInstrument::batch(const InstrumentRequest& request) {
    return request.wholeNumber("curvature-batch", kDefaultCurvatureBatch, 1);
}

std::unique_ptr<Instrument> CurvatureInstrument::make(const InstrumentRequest& request) {
    const int every = request.wholeNumber("curvature-every", clampToInt(request.experiment().curvatureEvery), 1);
    const int fixedBatch = batch(request);
    return every > 0 ? std::make_unique<CurvatureInstrument>(every, fixedBatch) : nullptr;
}

std::string CurvatureInstrument::describe() const { return "curvature.csv every " + std::to_string(every_) + " steps"; }

std::unique_ptr<TrainingObserver> CurvatureInstrument::start(const LockstepTrainer& trainer,
                                                             const InstrumentOutputs& outputs) {
    if (!outputs.folder && !outputs.mailbox) return nullptr;
    CurvatureWriter::Listener live;
    if (RecordMailbox* mailbox = outputs.mailbox)
        live = [mailbox](int run, const CurvaturePoint& point) {
            InstrumentRecords records;
            records.curvature.push_back({run, point});
            mailbox->post(std::move(records));
        };
    return std::make_unique<CurvatureWriter>(outputs.folder, trainer, every_, batch_, std::move(live));
}

}  // namespace ml
