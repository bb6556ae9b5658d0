#include "landscape/LandscapeFiles.h"

#include "io/Files.h"
#include "io/NumberText.h"
#include "runfolder/RunCsv.h"

#include <QByteArray>

namespace ml {

namespace {

// Coordinates as shortest floats: 7 significant digits, far finer than any grid step.
void appendCoordinate(QByteArray& out, double value) { appendShortest(out, float(value)); }

}  // namespace

void writeGridCsv(const QString& path, const LossGrid& grid) {
    QByteArray text = "x,y,loss\n";
    for (int j = 0; j < grid.size; ++j)
        for (int i = 0; i < grid.size; ++i) {
            appendCoordinate(text, grid.x(i));
            text += ',';
            appendCoordinate(text, grid.y(j));
            text += ',';
            appendShortest(text, grid.loss(j, i));
            text += '\n';
        }
    writeFileAtomically(path, text);
}

void writeTrajectoriesCsv(const QString& path, const std::vector<Trajectory>& trajectories,
                          const std::vector<std::vector<Eigen::Vector2d>>& projected) {
    QByteArray text = "run,step,x,y\n";
    for (std::size_t r = 0; r < trajectories.size(); ++r)
        for (std::size_t k = 0; k < projected[r].size(); ++k) {
            text += csvField(trajectories[r].label);
            text += ',';
            appendInteger(text, trajectories[r].steps[k]);
            text += ',';
            appendCoordinate(text, projected[r][k].x());
            text += ',';
            appendCoordinate(text, projected[r][k].y());
            text += '\n';
        }
    writeFileAtomically(path, text);
}

void writeSliceCsv(const QString& path, const LossSlice& slice) {
    QByteArray text = "t,loss\n";
    for (std::size_t i = 0; i < slice.loss.size(); ++i) {
        appendCoordinate(text, slice.t[i]);
        text += ',';
        appendShortest(text, slice.loss[i]);
        text += '\n';
    }
    writeFileAtomically(path, text);
}

}  // namespace ml
