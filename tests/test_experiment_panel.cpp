// The experiment panel as a user meets it: the mouse wheel scrolls the panel instead of changing
// the field under the pointer, invalid input is marked in the field that holds it (and the mark
// goes when the value is valid again), messages name the field as the form labels it.
#include "experiment/ExperimentPanel.h"
#include "experiment/FieldMark.h"
#include "experiment/HyperParameterForm.h"
#include "InputError.h"
#include "TestSupport.h"
#include "optim/OptimizerCatalog.h"

#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QToolButton>
#include <QtTest>

using namespace ml;

namespace {

Experiment sineExperiment(long steps) {
    Experiment experiment;
    experiment.name = "panel test";
    experiment.network.setSizes({1, 2, 2, 1});
    experiment.data = "toy:sine";
    experiment.steps = steps;
    experiment.runs = {{"momentum", "momentum", optimizerInfo("momentum").defaults}};
    return experiment;
}

void sendWheelDown(QWidget* widget) {
    const QPointF center(widget->width() / 2.0, widget->height() / 2.0);
    QWheelEvent wheel(center, widget->mapToGlobal(center), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &wheel);
}

}  // namespace

class TestExperimentPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Scrolling the panel over a field changed it (a length of 2000 became 1997).
    void wheelScrollsThePanelUnlessTheFieldHasFocus() {
        QScrollArea area;
        auto* panel = new ExperimentPanel;
        panel->setExperiment(sineExperiment(2000));
        area.setWidget(panel);
        area.setWidgetResizable(true);
        area.resize(380, 250);  // shorter than the panel: there is something to scroll
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        auto* length = panel->findChild<QSpinBox*>("length");
        auto* activation = panel->findChild<QComboBox*>("activation");
        QVERIFY(length && activation);
        const QString activationBefore = activation->currentText();

        sendWheelDown(length);
        sendWheelDown(activation);
        QCOMPARE(length->value(), 2000);
        QCOMPARE(activation->currentText(), activationBefore);
        QCOMPARE(panel->experiment().steps, 2000L);
        QVERIFY2(area.verticalScrollBar()->value() > 0, "the wheel goes on to the scroll area");

        // A focused field still takes the wheel.
        area.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&area));
        length->setFocus();
        QVERIFY(length->hasFocus());
        sendWheelDown(length);
        QCOMPARE(length->value(), 1999);
    }

    // A bad network is marked in its field when it is left, not only in a dialog at Start.
    void badNetworkIsMarkedInTheField() {
        ExperimentPanel panel;
        panel.setExperiment(sineExperiment(10));
        auto* network = panel.findChild<QLineEdit*>("network");
        QVERIFY(network);
        QSignalSpy invalid(&panel, &ExperimentPanel::invalidValue);
        network->setText("0-3");
        Q_EMIT network->editingFinished();
        QVERIFY(isMarkedInvalid(network));
        QCOMPARE(invalid.count(), 1);
        QVERIFY2(invalid.at(0).at(0).toString().startsWith("Network:"), qPrintable(invalid.at(0).at(0).toString()));
        QVERIFY(network->toolTip().contains("Network:"));
        network->setText("1-3-1");  // valid again: the mark goes as it is typed
        QVERIFY(!isMarkedInvalid(network));
        QVERIFY(network->styleSheet().isEmpty());
    }

    // A refused hyper-parameter comes back to its last valid value, so its red mark does not stay.
    void revertedFieldKeepsNoRedMark() {
        HyperParameterForm form("momentum", optimizerInfo("momentum").defaults);
        auto* lr = qobject_cast<QLineEdit*>(form.editor("lr"));
        QVERIFY(lr);
        lr->setText("-1");
        Q_EMIT lr->editingFinished();
        QCOMPARE(lr->text(), QString("0.01"));
        QVERIFY(isMarkedInvalid(lr));  // a flash points at the field that reverted
        QTRY_VERIFY_WITH_TIMEOUT(!isMarkedInvalid(lr), kInvalidFlashMs + 1000);
        QVERIFY(lr->styleSheet().isEmpty());
    }

    // Messages name the field as the form labels it, not the CLI flag.
    void messagesNameTheFormFieldNotTheFlag() {
        Experiment experiment = sineExperiment(10);
        experiment.runs.clear();
        ExperimentPanel panel;
        panel.setExperiment(experiment);
        const QString message = test::inputErrorOf([&] { panel.experiment(); });
        QVERIFY2(message.startsWith("Optimizer runs:"), qPrintable(message));
        QVERIFY2(!message.contains("--"), qPrintable(message));
    }

    // Another data set: the network's input and output sizes follow it (iris: 4 features, 3 classes).
    void dataSetAdaptsTheNetworksInputsAndOutputs() {
        ExperimentPanel panel;
        panel.setExperiment(sineExperiment(10));  // 1-2-2-1 on toy:sine
        auto* data = panel.findChild<QComboBox*>("data");
        QVERIFY(data);
        QSignalSpy told(&panel, &ExperimentPanel::message);
        const int iris = data->findText("iris");
        QVERIFY(iris >= 0);
        data->setCurrentIndex(iris);
        Q_EMIT data->activated(iris);
        QCOMPARE(panel.experiment().network.text(), std::string("4-2-2-3"));
        QCOMPARE(told.count(), 1);
        // A data set that cannot be read is marked, and the network is left alone.
        data->setCurrentText("csv:/no/such/file.csv");
        Q_EMIT data->lineEdit()->editingFinished();
        QVERIFY(isMarkedInvalid(data));
        QCOMPARE(panel.experiment().network.text(), std::string("4-2-2-3"));
    }

    // The status bar's message about a refused value goes once that field is valid again:
    // valueAccepted() follows the invalidValue() of the same field, not of another one.
    void fieldValidAgainWithdrawsItsMessage() {
        ExperimentPanel panel;
        panel.setExperiment(sineExperiment(10));
        auto* network = panel.findChild<QLineEdit*>("network");
        auto* data = panel.findChild<QComboBox*>("data");
        QVERIFY(network && data);
        QSignalSpy invalid(&panel, &ExperimentPanel::invalidValue);
        QSignalSpy accepted(&panel, &ExperimentPanel::valueAccepted);
        network->setText("0-3");
        Q_EMIT network->editingFinished();
        QCOMPARE(invalid.count(), 1);
        QCOMPARE(accepted.count(), 0);
        network->setText("1-3-1");
        QCOMPARE(accepted.count(), 1);
        network->setText("1-4-1");  // nothing stale to withdraw
        Q_EMIT network->editingFinished();
        QCOMPARE(accepted.count(), 1);

        data->setCurrentText("csv:/no/such/file.csv");
        Q_EMIT data->lineEdit()->editingFinished();
        QCOMPARE(invalid.count(), 2);
        network->setText("1-5-1");  // another field: the data set's message stays
        Q_EMIT network->editingFinished();
        QCOMPARE(accepted.count(), 1);
        data->setCurrentText("toy:sine");
        Q_EMIT data->lineEdit()->editingFinished();
        QCOMPARE(accepted.count(), 2);

        auto* lr = panel.findChild<QLineEdit*>("lr");
        QVERIFY(lr);
        lr->setText("-1");
        Q_EMIT lr->editingFinished();
        QCOMPARE(invalid.count(), 3);
        lr->setText("0.05");
        Q_EMIT lr->editingFinished();
        QCOMPARE(accepted.count(), 3);
    }

    // Choosing class data with a regression experiment's fields (mse, full batch, 2-unit hidden
    // layers) offers the data set's needs in a hint, applied with one click; the hint follows the
    // fields and goes when they agree. Regression data (toy:sine) asks for mse again.
    void dataSetOffersItsSettingsInAHint() {
        ExperimentPanel panel;
        panel.setExperiment(sineExperiment(10));  // 1-2-2-1, mse, full batch
        panel.show();
        auto* data = panel.findChild<QComboBox*>("data");
        auto* hint = panel.findChild<QLabel*>("dataHint");
        auto* apply = panel.findChild<QToolButton*>("applyDataHint");
        auto* loss = panel.findChild<QComboBox*>("loss");
        QVERIFY(data && hint && apply && loss);
        QVERIFY(!hint->isVisible());
        const auto choose = [data](const QString& spec) {
            data->setCurrentText(spec);
            Q_EMIT data->lineEdit()->editingFinished();
        };
        choose("digits");  // 1,437 training images of 8 x 8 pixels, 10 classes
        QCOMPARE(panel.experiment().network.text(), std::string("64-2-2-10"));  // not changed unasked
        QVERIFY(hint->isVisible());
        QCOMPARE(hint->text(), QString("digits suggests: cross-entropy, batch 64, 64-32-10"));
        loss->setCurrentText("cross-entropy");  // done by hand: the hint drops it
        QCOMPARE(hint->text(), QString("digits suggests: batch 64, 64-32-10"));
        apply->click();
        const Experiment applied = panel.experiment();
        QCOMPARE(applied.network.text(), std::string("64-32-10"));
        QVERIFY(applied.network.loss == LossKind::CrossEntropy);
        QCOMPARE(applied.batchSize, 64L);
        QVERIFY(!hint->isVisible());

        choose("toy:sine");
        QCOMPARE(hint->text(), QString("toy:sine suggests: mse"));
        apply->click();
        QVERIFY(panel.experiment().network.loss == LossKind::Mse);
        QCOMPARE(panel.experiment().batchSize, 64L);  // a mini-batch is the user's to keep
        QVERIFY(!hint->isVisible());

        choose("iris");  // 120 samples of 4 features: only the loss
        QCOMPARE(hint->text(), QString("iris suggests: cross-entropy"));
        panel.setExperiment(sineExperiment(10));  // a loaded experiment is taken as it is
        QVERIFY(!hint->isVisible());
    }

    // A scope that changes nothing for a layer is allowed, with a warning under the field that
    // chose it, in the form's words: on 1-2-2-1 each first-layer neuron has one weight, so fan-in
    // with the bias on its own shares nothing there; joining the bias, or a wider first layer,
    // makes it share. neuron-mean's scope is fixed: its note sits under "bias".
    void scopeThatChangesNothingIsNoted() {
        Experiment experiment = sineExperiment(10);
        experiment.runs = {{"neuron-mean", "neuron-mean", optimizerInfo("neuron-mean").defaults},
                           {"adam", "adam", optimizerInfo("adam").defaults}};
        experiment.runs[1].hp.momentumMean = MeanScope::FanOut;
        experiment.runs[1].hp.secondMomentMean = SecondMomentScope::Factored;
        ExperimentPanel panel;
        panel.setExperiment(experiment);
        auto* form = panel.findChild<HyperParameterForm*>();
        QVERIFY(form && form->optimizer() == "neuron-mean");
        const QString note = form->note("bias");
        QVERIFY2(
            note == "neuron-mean's fan-in mean changes nothing for layer 1: 1 connection per group, bias on its own.",
            qPrintable(note));
        auto* label = form->findChild<QLabel*>("bias-note");
        QVERIFY(label && label->isVisibleTo(form));

        auto* bias = qobject_cast<QComboBox*>(form->editor("bias"));
        QVERIFY(bias);
        bias->setCurrentText("join");
        QVERIFY2(form->note("bias").isEmpty(), qPrintable(form->note("bias")));
        QVERIFY(!label->isVisibleTo(form));
        bias->setCurrentText("own");
        QVERIFY(!form->note("bias").isEmpty());
        auto* network = panel.findChild<QLineEdit*>("network");
        network->setText("1-2-1");  // layer 1 still has one weight per neuron
        QVERIFY(!form->note("bias").isEmpty());
        network->setText("2-2-1");
        QVERIFY2(form->note("bias").isEmpty(), qPrintable(form->note("bias")));
        network->setText("0-");  // unreadable: no warning rather than a wrong one
        QVERIFY(form->note("bias").isEmpty());
        network->setText("1-2-2-1");
        QVERIFY(!form->note("bias").isEmpty());

        // A scope with its own field: the note sits under it. fan-out: layer 3 has one neuron;
        // factored: layer 1's weights are a 2 x 1 block, layer 3's a 1 x 2 block.
        auto* runs = panel.findChild<QListWidget*>();
        QVERIFY(runs);
        runs->setCurrentRow(1);
        auto* adamForm = panel.findChild<HyperParameterForm*>();
        QVERIFY(adamForm && adamForm->optimizer() == "adam");
        const QString fanOut = adamForm->note("momentum-mean");
        QVERIFY2(fanOut.startsWith("momentum-mean fan-out changes nothing for layer 3:"), qPrintable(fanOut));
        const QString factored = adamForm->note("second-moment-mean");
        QVERIFY2(factored.startsWith("second-moment-mean factored changes nothing for layers 1 and 3:"),
                 qPrintable(factored));
        QVERIFY(adamForm->note("bias").isEmpty());
        QVERIFY(!fanOut.contains("--") && !factored.contains("--"));
    }

    // A study trial's experiment (holdout validation or test) lost its holdout when edited in the
    // panel: trained again, it evaluated on the test split instead of the one it was tuned on.
    void editedExperimentKeepsItsHoldout() {
        for (const Holdout holdout : {Holdout::Validation, Holdout::Test}) {
            Experiment experiment = sineExperiment(10);
            experiment.holdout = holdout;
            ExperimentPanel panel;
            panel.setExperiment(experiment);
            panel.findChild<QSpinBox*>("length")->setValue(20);
            const Experiment edited = panel.experiment();
            QCOMPARE(edited.steps, 20L);
            QVERIFY(edited.holdout == holdout);
        }
        ExperimentPanel panel;  // and a plain experiment stays plain
        panel.setExperiment(sineExperiment(10));
        QVERIFY(panel.experiment().holdout == Holdout::None);
    }
};

QTEST_MAIN(TestExperimentPanel)
#include "test_experiment_panel.moc"
