#include "views/ViewControls.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace ml {

QuantitySelector::QuantitySelector(QWidget* parent) : QComboBox(parent) {
    for (Quantity quantity : allQuantities()) addItem(displayName(quantity), static_cast<int>(quantity));
    setQuantity(Quantity::FirstMoment);
    setToolTip(tr("What colours the connections"));
    connect(this, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT quantityChanged(quantity()); });
}

Quantity QuantitySelector::quantity() const { return static_cast<Quantity>(currentData().toInt()); }

void QuantitySelector::setQuantity(Quantity quantity) {
    const int index = findData(static_cast<int>(quantity));
    if (index >= 0) setCurrentIndex(index);
}

void QuantitySelector::setAvailable(const std::vector<Quantity>& quantities) {
    std::vector<Quantity> listed;
    for (int k = 0; k < count(); ++k) listed.push_back(static_cast<Quantity>(itemData(k).toInt()));
    if (listed == quantities || quantities.empty()) return;
    const Quantity previous = quantity();
    {
        const QSignalBlocker blocker(this);
        QComboBox::clear();
        for (Quantity q : quantities) addItem(displayName(q), static_cast<int>(q));
        setQuantity(previous);
    }
    if (quantity() != previous) Q_EMIT quantityChanged(quantity());
}

ColorLimitSpinBox::ColorLimitSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
    setPrefix(QStringLiteral("± "));
    setSpecialValueText(tr("± auto"));
    setDecimals(4);
    setRange(0.0, 1000.0);  // also keeps the box narrow
    setSingleStep(0.01);
    setValue(0.0);
    setToolTip(tr("Colour range: auto = symmetric ±max|value| of what is shown; a number fixes it"));
    connect(this, &QDoubleSpinBox::valueChanged, this, &ColorLimitSpinBox::limitChanged);
}

void allowNarrowCombo(QWidget* control) {
    if (auto* combo = qobject_cast<QComboBox*>(control))
        combo->setMinimumWidth(combo->fontMetrics().horizontalAdvance(QStringLiteral("momentum")) + 32);
}

void layOutPanel(QWidget* panel, const std::vector<LabelledControl>& controls, QWidget* canvas) {
    auto* bar = new QHBoxLayout;
    for (const LabelledControl& item : controls) {
        if (!item.label.isEmpty()) bar->addWidget(new QLabel(item.label, panel));
        allowNarrowCombo(item.control);
        bar->addWidget(item.control);
    }
    bar->addStretch();
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(canvas, 1);
}

}  // namespace ml
