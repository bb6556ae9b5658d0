#include "model/RunPalette.h"

#include <QPixmap>

#include <array>

namespace ml {

QColor runColor(int run) {
    static const std::array<QColor, 10> palette = {
        QColor(31, 119, 180), QColor(214, 39, 40),   QColor(44, 160, 44),  QColor(255, 127, 14), QColor(148, 103, 189),
        QColor(140, 86, 75),  QColor(227, 119, 194), QColor(23, 190, 207), QColor(188, 189, 34), QColor(127, 127, 127)};
    return palette[static_cast<std::size_t>(run < 0 ? 0 : run) % palette.size()];
}

QColor runColor(RunLook look) {
    const QColor own = runColor(look.slot);
    if (!look.kept) return own;
    // Half-way to white: clearly the same hue, clearly not the live run.
    return QColor((own.red() + 255) / 2, (own.green() + 255) / 2, (own.blue() + 255) / 2);
}

std::vector<RunLook> ownLooks(int count) {
    std::vector<RunLook> looks;
    for (int run = 0; run < count; ++run) looks.push_back({run, false});
    return looks;
}

QIcon runSwatch(RunLook look) {
    QPixmap square(64, 64);
    square.fill(runColor(look));
    return QIcon(square);
}

QIcon runSwatch(int run) { return runSwatch(RunLook{run, false}); }

}  // namespace ml
