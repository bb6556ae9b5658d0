#include "export/ViewFigures.h"

namespace ml {

NamedFigure namedFigure(const ViewFigure& figure) {
    return {figure.name, figure.caption, figure.plot ? Figure::ofPlot(figure.plot) : Figure::ofRenderer(figure.paint),
            figure.leftOutBecause};
}

std::vector<NamedFigure> namedFigures(const std::vector<ViewFigure>& figures) {
    std::vector<NamedFigure> named;
    for (const ViewFigure& figure : figures) named.push_back(namedFigure(figure));
    return named;
}

}  // namespace ml
