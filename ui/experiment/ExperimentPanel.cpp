#include "experiment/ExperimentPanel.h"

#include "data/DataRegistry.h"
#include "experiment/FieldMark.h"
#include "experiment/RunListEditor.h"
#include "experiment/SeedSpinBox.h"
#include "experiment/WheelGuard.h"
#include "InputError.h"
#include "experiment/Presets.h"

#include <QApplication>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <initializer_list>
#include <limits>

namespace ml {

namespace {

QComboBox* comboOf(const std::vector<std::string>& items, QWidget* parent) {
    auto* combo = new QComboBox(parent);
    for (const std::string& item : items) combo->addItem(QString::fromStdString(item));
    return combo;
}

QSpinBox* countBox(int minimum, const QString& special, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    box->setRange(minimum, std::numeric_limits<int>::max());
    box->setSpecialValueText(special);
    box->setAccelerated(true);
    return box;
}

// Two short fields on one form row ("Activation: [tanh]  Loss: [mse]"): the form must fit a
// 1366 x 768 screen beside the run's hyper-parameters.
QHBoxLayout* pairOf(QWidget* first, const QString& secondLabel, QWidget* second) {
    auto* row = new QHBoxLayout;
    row->addWidget(first, 1);
    auto* label = new QLabel(secondLabel, first->parentWidget());
    label->setBuddy(second);
    row->addWidget(label);
    row->addWidget(second, 1);
    return row;
}

// A field (combo or spin box) that may be narrower than its widest value (2^31 - 1,
// "cross-entropy"): wide enough for `typical` and its arrows; wider when the dock has room.
void allowNarrowField(QWidget* field, const QString& typical) {
    field->setMinimumWidth(field->fontMetrics().horizontalAdvance(typical) + 32);
}

// The data-set hint's thresholds: a full batch of more than kLargeTrainingSet samples makes each
// step slow; hidden layers narrower than kNarrowHidden starve an input of kWideInput or more.
constexpr long kLargeTrainingSet = 1000;
constexpr int kMiniBatch = 64;
constexpr int kNarrowHidden = 16;
constexpr int kWideInput = 64;

int hiddenWidthFor(int inputs) { return inputs >= 256 ? 128 : 32; }

// The dense network with one hidden layer in place of narrow ones, or nullopt when it has none
// (a conv network, no hidden layer, or wide enough ones are the user's choice).
std::optional<NetworkSpec> widenedNetwork(const NetworkSpec& network) {
    if (!network.isDense() || network.inputs() < kWideInput || network.layers.size() < 2) return std::nullopt;
    bool narrow = false;
    for (std::size_t i = 0; i + 1 < network.layers.size(); ++i)
        narrow = narrow || network.layers[i].size < kNarrowHidden;
    if (!narrow) return std::nullopt;
    NetworkSpec widened = network;
    widened.setSizes({network.inputs(), hiddenWidthFor(network.inputs()), network.layers.back().size});
    return widened;
}

}  // namespace

ExperimentPanel::ExperimentPanel(QWidget* parent)
    : QWidget(parent), presets_(new QComboBox(this)), name_(new QLineEdit(this)), network_(new QLineEdit(this)),
      activation_(comboOf(activationNames(), this)), loss_(comboOf(lossNames(), this)),
      data_(comboOf(knownDataSpecs(), this)), seed_(new SeedSpinBox(this)), batch_(countBox(0, tr("full batch"), this)),
      length_(countBox(1, QString(), this)), lengthUnit_(new QComboBox(this)),
      evalEvery_(countBox(0, tr("each epoch"), this)), runs_(new RunListEditor(this)), hintRow_(new QWidget(this)),
      dataHint_(new QLabel(hintRow_)), applyHint_(new QToolButton(hintRow_)) {
    // Object names: the fields' names for tests and for messages ("Length").
    for (auto [field, name] : {std::pair<QWidget*, const char*>{name_, "name"},
                               {network_, "network"},
                               {activation_, "activation"},
                               {loss_, "loss"},
                               {data_, "data"},
                               {seed_, "seed"},
                               {batch_, "batch"},
                               {length_, "length"},
                               {lengthUnit_, "lengthUnit"},
                               {evalEvery_, "evalEvery"}})
        field->setObjectName(QString::fromLatin1(name));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);

    presets_->addItem(tr("Load a preset…"));
    for (const Preset& preset : presets()) presets_->addItem(QString::fromStdString(preset.title));
    presets_->setToolTip(tr("The shipped experiments (resources/experiments)"));
    presets_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    presets_->setMinimumContentsLength(16);
    connect(presets_, &QComboBox::activated, this, [this](int index) {
        if (index <= 0) return;
        setExperiment(presets()[static_cast<std::size_t>(index - 1)].experiment);
        presets_->setCurrentIndex(0);
    });
    layout->addWidget(presets_);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    // Only the characters of --network tokens; checkNetwork() names a token that does not fit.
    network_->setValidator(
        new QRegularExpressionValidator(QRegularExpression("[0-9]+(x[0-9]*)*(-[0-9a-z]*)*"), network_));
    network_->setToolTip(
        tr("Layer sizes, inputs first: 1-2-2-1, 4-3, 784-128-10; image input and conv layers: "
           "1x8x8-conv4k3-pool2-10 (conv{C}k{K}[s{S}][p{P}], pool{K}, avgpool{K})"));
    data_->setEditable(true);
    data_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    data_->setMinimumContentsLength(12);
    data_->setToolTip(
        tr("toy:NAME, iris, digits, mnist, fashion-mnist, csv:FILE.csv, csv:TRAIN.csv,TEST.csv, idx:DIR"));
    seed_->setToolTip(tr("Seeds the initial weights, the batch order and the toy data"));
    batch_->setToolTip(tr("Samples per step; 0 = the whole training set"));
    lengthUnit_->addItems({tr("steps"), tr("epochs")});
    evalEvery_->setToolTip(tr("Evaluate on the test set every N steps (and always at the end of each epoch)"));
    auto* length = new QHBoxLayout;
    length->addWidget(length_, 1);
    length->addWidget(lengthUnit_);
    for (QWidget* field : std::initializer_list<QWidget*>{activation_, loss_, lengthUnit_, length_})
        allowNarrowField(field, QStringLiteral("tanh"));
    allowNarrowField(seed_, QStringLiteral("0000"));
    allowNarrowField(batch_, batch_->specialValueText());  // "full batch" is read whole
    allowNarrowField(evalEvery_, evalEvery_->specialValueText());
    form->addRow(tr("Name:"), name_);
    form->addRow(tr("Network:"), network_);
    form->addRow(tr("Activation:"), pairOf(activation_, tr("Loss:"), loss_));
    form->addRow(tr("Data:"), data_);
    dataHint_->setObjectName("dataHint");
    dataHint_->setWordWrap(true);
    applyHint_->setObjectName("applyDataHint");
    applyHint_->setText(tr("Use these"));
    auto* hint = new QHBoxLayout(hintRow_);
    hint->setContentsMargins(0, 0, 0, 0);
    hint->addWidget(dataHint_, 1);
    hint->addWidget(applyHint_, 0, Qt::AlignTop);
    hintRow_->hide();
    form->addRow(QString(), hintRow_);
    form->addRow(tr("Seed:"), pairOf(seed_, tr("Batch:"), batch_));
    form->addRow(tr("Length:"), length);
    // "Evaluate: every 10 steps" (a short label keeps the form's label column, and the dock, narrow).
    evalEvery_->setPrefix(tr("every "));
    evalEvery_->setSuffix(tr(" steps"));
    form->addRow(tr("Evaluate:"), evalEvery_);
    layout->addLayout(form);

    auto* group = new QGroupBox(tr("Optimizer runs (trained in lockstep)"), this);
    auto* groupLayout = new QVBoxLayout(group);
    groupLayout->setContentsMargins(6, 6, 6, 6);
    groupLayout->addWidget(runs_);
    layout->addWidget(group);
    layout->addStretch(1);

    connect(name_, &QLineEdit::textChanged, this, &ExperimentPanel::nameChanged);
    // changed(): any field edited (MainWindow compares the panel with the results on screen);
    // setExperiment() emits it once, when every field shows the new experiment.
    auto edited = [this] {
        if (!settingExperiment_) Q_EMIT changed();
    };
    for (QLineEdit* edit : findChildren<QLineEdit*>()) connect(edit, &QLineEdit::textChanged, this, edited);
    for (QComboBox* combo : {activation_, loss_, lengthUnit_})
        connect(combo, &QComboBox::currentIndexChanged, this, edited);
    connect(runs_, &RunListEditor::changed, this, edited);
    connect(runs_, &RunListEditor::changed, this, [this] { accepted(ErrorSource::Runs); });
    connect(runs_, &RunListEditor::invalidValue, this,
            [this](const QString& message) { reportInvalid(ErrorSource::Runs, message); });
    // The network is marked while it is invalid ("0-3"), from when it is left until it is valid.
    connect(network_, &QLineEdit::textChanged, this, [this] {
        if (isMarkedInvalid(network_)) checkNetwork();
    });
    connect(network_, &QLineEdit::editingFinished, this, &ExperimentPanel::checkNetwork);
    // The run form's scope warnings follow the network as it is typed. They count groups of dense
    // layers only, so a network with convolutions (or one not yet valid) shows none.
    connect(network_, &QLineEdit::textChanged, this, [this] {
        std::vector<int> denseSizes;
        try {
            NetworkSpec spec;
            spec.setLayers(network_->text().toStdString(), "Network");
            if (spec.isDense()) {
                denseSizes.push_back(spec.inputs());
                for (const LayerToken& layer : spec.layers) denseSizes.push_back(layer.size);
            }
        } catch (const InputError&) {}
        runs_->setNetworkSizes(denseSizes);
    });
    connect(data_, &QComboBox::activated, this, &ExperimentPanel::dataChosen);
    // The hint follows the fields it is about: it goes when they agree with the data set.
    connect(loss_, &QComboBox::currentIndexChanged, this, &ExperimentPanel::updateDataHint);
    connect(batch_, &QSpinBox::valueChanged, this, &ExperimentPanel::updateDataHint);
    connect(network_, &QLineEdit::textChanged, this, &ExperimentPanel::updateDataHint);
    connect(applyHint_, &QToolButton::clicked, this, &ExperimentPanel::applyDataHint);
    connect(data_->lineEdit(), &QLineEdit::editingFinished, this, &ExperimentPanel::dataChosen);
    WheelGuard::protect(this);
}

void ExperimentPanel::setExperiment(const Experiment& experiment) {
    settingExperiment_ = true;
    name_->setText(QString::fromStdString(experiment.name));
    name_->setCursorPosition(0);  // a long name shows its beginning
    // A recorded model's layers are no network the core trains: the diagram shows them as blocks.
    network_->setText(experiment.recorded.asBlocks ? QString() : QString::fromStdString(experiment.network.text()));
    network_->setPlaceholderText(experiment.recorded.asBlocks ? tr("recorded layers (blocks in the diagram)")
                                                              : QString());
    activation_->setCurrentText(QString::fromStdString(toString(experiment.network.activation)));
    loss_->setCurrentText(QString::fromStdString(toString(experiment.network.loss)));
    data_->setCurrentText(QString::fromStdString(experiment.data));
    seed_->setValue(experiment.seed);
    batch_->setValue(static_cast<int>(experiment.batchSize));
    const bool epochs = experiment.epochs > 0;
    length_->setValue(static_cast<int>(epochs ? experiment.epochs : experiment.steps));
    lengthUnit_->setCurrentIndex(epochs ? 1 : 0);
    evalEvery_->setValue(static_cast<int>(experiment.evalEvery));
    runs_->setRuns(experiment.runs);
    initWeightsFile_ = experiment.initWeightsFile;
    holdout_ = experiment.holdout;
    diagnosticsEvery_ = experiment.diagnosticsEvery;
    curvatureEvery_ = experiment.curvatureEvery;
    shownData_ = data_->currentText().trimmed();
    clearInvalidMark(network_);
    clearInvalidMark(data_);
    shownTraits_.reset();  // a loaded experiment is as its author meant it
    hintRow_->hide();
    settingExperiment_ = false;
    Q_EMIT changed();
    accepted(errorShown_);  // every field holds a valid value now
}

QString ExperimentPanel::experimentName() const { return name_->text(); }

Experiment ExperimentPanel::experiment() const {
    Experiment experiment;
    experiment.name = name_->text().trimmed().isEmpty() ? "experiment" : name_->text().trimmed().toStdString();
    experiment.network.setLayers(network_->text().toStdString(), "Network");
    experiment.network.activation = activationFromString(activation_->currentText().toStdString());
    experiment.network.loss = lossFromString(loss_->currentText().toStdString());
    experiment.data = data_->currentText().trimmed().toStdString();
    if (experiment.data.empty()) throw InputError("Data: choose a data set");
    experiment.seed = seed_->value();
    experiment.batchSize = batch_->value();
    (lengthUnit_->currentIndex() == 1 ? experiment.epochs : experiment.steps) = length_->value();
    experiment.evalEvery = evalEvery_->value();
    experiment.initWeightsFile = initWeightsFile_;
    experiment.holdout = holdout_;
    experiment.diagnosticsEvery = diagnosticsEvery_;
    experiment.curvatureEvery = curvatureEvery_;
    experiment.runs = runs_->runs();
    if (experiment.runs.empty()) throw InputError("Optimizer runs: add at least one run");
    experiment.validate();
    return experiment;
}

bool ExperimentPanel::checkNetwork() {
    try {
        NetworkSpec().setLayers(network_->text().toStdString(), "Network");
        clearInvalidMark(network_);
        accepted(ErrorSource::Network);
        return true;
    } catch (const InputError& error) {
        markInvalid(network_, QString::fromStdString(error.what()));
        reportInvalid(ErrorSource::Network, QString::fromStdString(error.what()));
        return false;
    }
}

void ExperimentPanel::reportInvalid(ErrorSource source, const QString& message) {
    errorShown_ = source;
    Q_EMIT invalidValue(message);
}

void ExperimentPanel::accepted(ErrorSource source) {
    if (source == ErrorSource::None || source != errorShown_) return;
    errorShown_ = ErrorSource::None;
    Q_EMIT valueAccepted();
}

void ExperimentPanel::dataChosen() {
    const QString spec = data_->currentText().trimmed();
    if (spec == shownData_ || spec.isEmpty()) return;
    shownData_ = spec;
    DataSplit split;
    try {
        QApplication::setOverrideCursor(Qt::WaitCursor);  // a real data set takes a moment to read
        split = loadDataSplit(spec.toStdString(), seed_->value());
        QApplication::restoreOverrideCursor();
    } catch (const std::exception& error) {  // InputError, or a file that cannot be read
        QApplication::restoreOverrideCursor();
        markInvalid(data_, QString::fromStdString(error.what()));
        reportInvalid(ErrorSource::Data, tr("Data: %1").arg(QString::fromStdString(error.what())));
        return;
    }
    clearInvalidMark(data_);
    accepted(ErrorSource::Data);
    shownTraits_ = DataTraits{spec, split.train->isClassification(), static_cast<long>(split.train->size()),
                              split.train->inputDim()};
    adaptNetwork(spec, split);
    updateDataHint();
}

// The data set fixes the network's first and last size: they follow it, the hidden layers stay.
void ExperimentPanel::adaptNetwork(const QString& spec, const DataSplit& split) {
    const int inputs = split.train->inputDim();
    const int outputs = split.train->outputDim();
    NetworkSpec network;
    try {
        network.setLayers(network_->text().toStdString(), "Network");
    } catch (const InputError&) {
        network.setSizes({inputs, outputs});  // nothing usable to keep
    }
    NetworkSpec adapted = network;
    const ImageShape image = split.train->imageShape();
    if (!network.imageInput) adapted.input = {inputs, 1, 1};
    else if (image.valid()) adapted.input = {1, image.height, image.width};  // an image network keeps its layers
    adapted.layers.back().size = outputs;
    if (adapted.text() == network_->text().toStdString()) return;
    try {
        adapted.shapes("Network");
    } catch (const InputError& error) {  // e.g. MNIST's convolutions on 8x8 digits: the user decides
        markInvalid(network_, QString::fromStdString(error.what()));
        reportInvalid(ErrorSource::Network, QString::fromStdString(error.what()));
        return;
    }
    network_->setText(QString::fromStdString(adapted.text()));
    clearInvalidMark(network_);
    accepted(ErrorSource::Network);
    Q_EMIT message(tr("Network: %1 inputs and %2 outputs, as %3 needs").arg(inputs).arg(outputs).arg(spec));
}

ExperimentPanel::Suggestion ExperimentPanel::suggestion() const {
    Suggestion s;
    if (!shownTraits_) return s;
    const DataTraits& data = *shownTraits_;
    const LossKind loss = lossFromString(loss_->currentText().toStdString());
    const LossKind wanted = data.classification ? LossKind::CrossEntropy : LossKind::Mse;
    if (loss != wanted) {
        s.loss = wanted;
        s.shown << QString::fromStdString(toString(wanted));
        s.why << (data.classification ? tr("class labels: cross-entropy") : tr("numeric targets: mse"));
    }
    if (batch_->value() == 0 && data.trainSize > kLargeTrainingSet) {
        s.batch = kMiniBatch;
        s.shown << tr("batch %1").arg(kMiniBatch);
        s.why << tr("%L1 training samples: each full-batch step is slow; mini-batches of %2")
                     .arg(data.trainSize)
                     .arg(kMiniBatch);
    }
    try {
        NetworkSpec network;
        network.setLayers(network_->text().toStdString(), "Network");
        if (const std::optional<NetworkSpec> widened = widenedNetwork(network)) {
            s.network = widened->text();
            s.shown << QString::fromStdString(*s.network);
            s.why << tr("%1 inputs: hidden layers narrower than %2 lose most of them; one of %3")
                         .arg(data.inputs)
                         .arg(kNarrowHidden)
                         .arg(hiddenWidthFor(data.inputs));
        }
    } catch (const InputError&) {  // the network's own mark says what is wrong
    }
    return s;
}

void ExperimentPanel::updateDataHint() {
    const Suggestion s = suggestion();
    hintRow_->setVisible(!s.shown.isEmpty());
    if (s.shown.isEmpty()) return;
    dataHint_->setText(tr("%1 suggests: %2").arg(shownTraits_->spec, s.shown.join(", ")));
    const QString why = s.why.join("\n");
    dataHint_->setToolTip(why);
    applyHint_->setToolTip(tr("Set %1\n%2").arg(s.shown.join(", "), why));
}

void ExperimentPanel::applyDataHint() {
    const Suggestion s = suggestion();
    if (s.loss) loss_->setCurrentText(QString::fromStdString(toString(*s.loss)));
    if (s.batch) batch_->setValue(*s.batch);
    if (s.network) {
        network_->setText(QString::fromStdString(*s.network));
        checkNetwork();
    }
    if (!s.shown.isEmpty()) Q_EMIT message(tr("Data %1: %2").arg(shownTraits_->spec, s.shown.join(", ")));
    updateDataHint();
}

}  // namespace ml
