#pragma once
// Small controls shared by the diagram panel and the layer heat-map, so that every view picks
// quantities and the colour range the same way (runs are chosen once, in views/ComparisonBar.h).
//
// Public API
//   QuantitySelector       combo of allQuantities(): quantity(), setQuantity(q),
//                          signal quantityChanged(ml::Quantity); offer(list) lists only those (what
//                          the shown run's rule keeps): the quantity last chosen comes back as soon
//                          as it is offered again, meanwhile the first offered one stands in
//   ColorLimitSpinBox      "±" spin box: 0 shows "auto" (symmetric max|value|), > 0 fixes the
//                          colour range; limit(), signal limitChanged(double)
//   layOutPanel(panel, controls, canvas)  a panel's look: one bar of controls (each after its
//                          label, if it has one) over the canvas, which takes the remaining space
//   allowNarrowCombo(w)    a combo box (other widgets: nothing) as wide as its contents when there
//                          is room, down to about eight characters (eliding) in a narrow dock
#include "model/Quantity.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QStringList>

#include <algorithm>
#include <vector>

namespace ml {

class QuantitySelector : public QComboBox {
    Q_OBJECT
public:
    explicit QuantitySelector(QWidget* parent = nullptr);
    Quantity quantity() const;
    void setQuantity(Quantity quantity);
    void offer(const std::vector<Quantity>& quantities);  // empty: no change

Q_SIGNALS:
    void quantityChanged(ml::Quantity quantity);

private:
    void list(const std::vector<Quantity>& quantities);
    std::vector<Quantity> listed_;
    Quantity chosen_ = Quantity::FirstMoment;  // what the user (or setQuantity) asked for
};

class ColorLimitSpinBox : public QDoubleSpinBox {
    Q_OBJECT
public:
    explicit ColorLimitSpinBox(QWidget* parent = nullptr);
    double limit() const { return value(); }

Q_SIGNALS:
    void limitChanged(double limit);
};

struct LabelledControl {
    QString label;  // empty: no label
    QWidget* control;
};
void allowNarrowCombo(QWidget* control);
void layOutPanel(QWidget* panel, const std::vector<LabelledControl>& controls, QWidget* canvas);

}  // namespace ml
