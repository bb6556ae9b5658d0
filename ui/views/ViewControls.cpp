#include "views/ViewControls.h"

#include <QHBoxLayout>
#include <QStyle>
#include <QLabel>
#include <QVBoxLayout>

namespace ml {

QuantitySelector::QuantitySelector(QWidget* parent) : QComboBox(parent) {
    list(allQuantities());
    setToolTip(tr("What colours the connections (only what the run's optimizer keeps)"));
    connect(this, &QComboBox::activated, this, [this] { chosen_ = quantity(); });  // the user's choice
    connect(this, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT quantityChanged(quantity()); });
}

Quantity QuantitySelector::quantity() const { return static_cast<Quantity>(currentData().toInt()); }

void QuantitySelector::setQuantity(Quantity quantity) {
    chosen_ = quantity;
    const int index = findData(static_cast<int>(quantity));
    if (index >= 0) setCurrentIndex(index);
}

void QuantitySelector::offer(const std::vector<Quantity>& quantities) {
    if (quantities.empty() || quantities == listed_) return;
    const Quantity before = quantity();
    {
        const QSignalBlocker blocker(this);
        list(quantities);
    }
    if (quantity() != before) Q_EMIT quantityChanged(quantity());
}

// The items, with the chosen quantity selected when listed (else the first).
void QuantitySelector::list(const std::vector<Quantity>& quantities) {
    listed_ = quantities;
    QComboBox::clear();
    for (Quantity quantity : quantities) {
        addItem(displayName(quantity), static_cast<int>(quantity));
        setItemData(count() - 1, quantityHelp(quantity), Qt::ToolTipRole);
    }
    setCurrentIndex(std::max(0, findData(static_cast<int>(chosen_))));
}

ColorLimitSpinBox::ColorLimitSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
    setPrefix(QStringLiteral("± "));
    setSpecialValueText(tr("± auto"));
    setDecimals(4);
    setRange(0.0, 1000.0);  // also keeps the box narrow
    setSingleStep(0.01);
    setValue(0.0);
    setToolTip(tr("Colour range: auto = symmetric ±max|value| of what is shown; a number fixes it"));
    // As wide as a typical limit, not the range's widest ("± 1000.0000"): keeps the panels narrow.
    setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("± 0.0000")) +
                    style()->pixelMetric(QStyle::PM_SpinBoxSliderHeight) + 28);
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
