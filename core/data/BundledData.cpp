#include "BundledData.h"

#include "CsvReader.h"
#include "DataFiles.h"
#include "DenseDataset.h"
#include "ImageDataset.h"
#include "Split.h"

#include <QString>

namespace ml {

namespace {

std::string_view view(const QByteArray& bytes) { return {bytes.constData(), static_cast<std::size_t>(bytes.size())}; }

}  // namespace

DataSplit loadIris() {
    // Header "150,4,setosa,versicolor,virginica" (rows, features, class names), then
    // "f1,f2,f3,f4,label" rows.
    const QString resource = QStringLiteral(":/data/iris.csv");
    const QByteArray text = readFileBytes(resource);
    CsvReader reader(view(text), resource.toStdString());
    std::vector<std::string_view> cells;
    if (!reader.nextRow(cells) || cells.size() < 3) reader.failFile("missing the header row");
    const int rows = reader.parseIndex(cells[0], 1, "sample count", 1000);
    const int features = reader.parseIndex(cells[1], 2, "feature count", 100);
    const int classes = static_cast<int>(cells.size()) - 2;

    DenseDataset::RowMatrix x(rows, features);
    Eigen::VectorXi labels(rows);
    int row = 0;
    for (; reader.nextRow(cells); ++row) {
        if (row >= rows || static_cast<int>(cells.size()) != features + 1)
            reader.fail(0, {},
                        "expected " + std::to_string(rows) + " rows of " + std::to_string(features + 1) + " fields");
        for (int c = 0; c < features; ++c) x(row, c) = reader.parseFloat(cells[c], c + 1);
        labels(row) = reader.parseIndex(cells[features], features + 1, "label", classes - 1);
    }
    if (row != rows) reader.failFile("has " + std::to_string(row) + " rows, expected " + std::to_string(rows));

    const DenseDataset all = DenseDataset::classification(std::move(x), std::move(labels), classes);
    const IndexSplit split = stratifiedSplit(std::span(all.labels().data(), rows), classes, 0.2, kFixedSplitSeed);
    auto train = std::make_shared<DenseDataset>(all.subset(split.train));
    auto test = std::make_shared<DenseDataset>(all.subset(split.test));
    const Eigen::RowVectorXf mean = train->features().colwise().mean();
    const Eigen::RowVectorXf stddev = ((train->features().rowwise() - mean).array().square().colwise().mean()).sqrt();
    train->standardize(mean, stddev);
    test->standardize(mean, stddev);
    return {"iris", std::move(train), std::move(test)};
}

DataSplit loadDigits() {
    // No header; each row: 64 pixel values (row-major 8x8, 0..16), then the label.
    constexpr int kSide = 8, kPixels = kSide * kSide, kClasses = 10, kTestCount = 360;
    const QString resource = QStringLiteral(":/data/digits.csv.gz");
    const QByteArray text = gunzip(readFileBytes(resource), resource);
    CsvReader reader(view(text), "digits.csv (" + resource.toStdString() + ")");
    std::vector<std::uint8_t> pixels, labels;
    std::vector<std::string_view> cells;
    while (reader.nextRow(cells)) {
        if (cells.size() != kPixels + 1) reader.fail(0, {}, "expected 65 fields (64 pixels and the label)");
        for (int c = 0; c < kPixels; ++c)
            pixels.push_back(static_cast<std::uint8_t>(reader.parseIndex(cells[c], c + 1, "pixel", 16)));
        labels.push_back(
            static_cast<std::uint8_t>(reader.parseIndex(cells[kPixels], kPixels + 1, "label", kClasses - 1)));
    }
    const ImageDataset all(std::move(pixels), std::move(labels), {kSide, kSide}, kClasses, 1.0f / 16.0f);
    const IndexSplit split = shuffledSplit(all.size(), kTestCount, kFixedSplitSeed);
    return {"digits", std::make_shared<ImageDataset>(all.subset(split.train)),
            std::make_shared<ImageDataset>(all.subset(split.test))};
}

}  // namespace ml
