// The catalog is the one source of each optimizer's formula: docs/optimizers.md must equal the
// text generated from it, and each optimizer's header comment must quote its formula verbatim.
// MOMENTUM_LAB_SOURCE_DIR (a compile definition) is the source tree holding both.
#include "optim/OptimizerCatalog.h"
#include "optim/OptimizerReference.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <map>

namespace {

const QString kSourceDir = QStringLiteral(MOMENTUM_LAB_SOURCE_DIR);
const char* const kUpdateVariable = "MOMENTUM_LAB_UPDATE_DOCS";

// Where each optimizer's class lives (a new optimizer adds its line here).
const std::map<std::string, QString> kHeaders = {
    {"sgd", "Sgd.h"},
    {"momentum", "Sgd.h"},
    {"nesterov", "Sgd.h"},
    {"neuron-mean", "Sgd.h"},
    {"sgdm-ema", "EmaMomentum.h"},
    {"adagrad", "Adagrad.h"},
    {"rmsprop", "RmsProp.h"},
    {"adam", "Adam.h"},
    {"adamw", "Adam.h"},
    {"adam-mini", "AdamMini.h"},
    {"lamb", "Lamb.h"},
    {"lars", "Lars.h"},
    {"novograd", "NovoGrad.h"},
    {"sm3", "Sm3.h"},
    {"adafactor", "Adafactor.h"},
    {"nero", "Nero.h"},
};

QString readText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll());
}

}  // namespace

class TestOptimizerDocs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void referenceIsUpToDate() {
        const QString path = kSourceDir + "/docs/optimizers.md";
        const QString generated = QString::fromStdString(ml::optimizerReferenceMarkdown());
        if (qEnvironmentVariableIntValue(kUpdateVariable) == 1) {
            QFile file(path);
            QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable("cannot write " + path));
            file.write(generated.toUtf8());
        }
        const QString stored = readText(path);
        QVERIFY2(stored == generated,
                 qPrintable(path + " differs from the catalog (core/optim/OptimizerCatalog.cpp); regenerate it: " +
                            kUpdateVariable + "=1 build/tests/test_optimizer_docs"));
    }

    // The generated text carries each optimizer's summary, formula and defaults.
    void referenceDescribesEveryOptimizer() {
        const QString text = QString::fromStdString(ml::optimizerReferenceMarkdown());
        for (const ml::OptimizerInfo& info : ml::optimizerCatalog()) {
            const QString name = QString::fromStdString(info.name);
            const qsizetype section = text.indexOf("## " + name + "\n");
            QVERIFY2(section >= 0, qPrintable("no section for " + name));
            const qsizetype next = text.indexOf("\n## ", section + 1);
            const QString body = text.mid(section, next < 0 ? -1 : next - section);
            QVERIFY2(body.contains(QString::fromStdString(info.summary)), qPrintable(name + ": summary"));
            QVERIFY2(body.contains(QString::fromStdString(info.formula)), qPrintable(name + ": formula"));
            for (const std::string& key : info.parameters) {
                const ml::ParameterField& field = *ml::findParameterField(key);
                const QString row = QString::fromStdString("| `" + key + "` | " + field.get(info.defaults) + " | " +
                                                           field.rangeText() + " |");
                QVERIFY2(body.contains(row), qPrintable(name + ": no row " + row));
            }
        }
        // Spot checks against hand-written expectations (adam's default lr, adagrad's eps).
        QVERIFY(text.contains("| `lr` | 0.001 |"));
        QVERIFY(text.contains("| `eps` | 1e-10 |"));
    }

    // One notation in every formula line (and the parameters' help): a the first moment, M(a) its
    // group (neuron) mean, g, w, lr, μ the momentum factor, v the second moment, D the denominator;
    // as the update explainer writes them. Momentum once wrote b, M(b) and tau, neuron-mean a_jk
    // and mean_i.
    void formulasShareOneNotation() {
        const QRegularExpression foreign(
            QStringLiteral("\\b(mu|tau|lambda)\\b|\\bb\\s*<-|\\bb_1\\b|M\\(b\\)|mean_i\\(|a_jk|\\bd = "));
        for (const ml::OptimizerInfo& info : ml::optimizerCatalog()) {
            for (const std::string& text : {info.formula, info.summary}) {
                const QRegularExpressionMatch match = foreign.match(QString::fromStdString(text));
                QVERIFY2(!match.hasMatch(), qPrintable(QString::fromStdString(info.name) + ": '" + match.captured(0) +
                                                       "' in " + QString::fromStdString(text)));
            }
        }
        for (const char* name : {"momentum", "nesterov", "neuron-mean"})
            QVERIFY2(QString::fromStdString(ml::optimizerInfo(name).formula).contains("a <- μ*M(a) + "), name);
        for (const char* key : {"momentum", "dampening", "momentum-mean-blend"}) {
            const QString help = QString::fromStdString(ml::findParameterField(key)->help);
            QVERIFY2(!foreign.match(help).hasMatch(), qPrintable(QString(key) + ": " + help));
        }
    }

    void headersQuoteTheirFormula() {
        for (const ml::OptimizerInfo& info : ml::optimizerCatalog()) {
            const auto header = kHeaders.find(info.name);
            QVERIFY2(header != kHeaders.end(),
                     qPrintable("no header known for " + QString::fromStdString(info.name) + "; add it to kHeaders"));
            const QString path = kSourceDir + "/core/optim/" + header->second;
            const QString text = readText(path);
            QVERIFY2(!text.isEmpty(), qPrintable("cannot read " + path));
            QVERIFY2(text.contains(QString::fromStdString(info.formula)),
                     qPrintable(path + " does not state the catalog formula of " + QString::fromStdString(info.name) +
                                ": " + QString::fromStdString(info.formula)));
        }
    }
};

QTEST_GUILESS_MAIN(TestOptimizerDocs)
#include "test_optimizer_docs.moc"
