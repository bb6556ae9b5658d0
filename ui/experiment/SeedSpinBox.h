#pragma once
// A spin box for the experiment's 64-bit seed (0 .. 2^64 - 1). QSpinBox holds an int only, so
// seeds above 2^31 - 1 would be clamped and the GUI would train differently from the CLI. Typing
// accepts digits up to 2^64 - 1 (larger numbers are refused as typed); the arrows step by one
// without wrapping. value() is the last acceptable value (an emptied field restores it).
#include <QAbstractSpinBox>

#include <cstdint>

namespace ml {

class SeedSpinBox : public QAbstractSpinBox {
    Q_OBJECT
public:
    explicit SeedSpinBox(QWidget* parent = nullptr);

    std::uint64_t value() const { return value_; }
    void setValue(std::uint64_t value);

    QValidator::State validate(QString& input, int& position) const override;
    void fixup(QString& input) const override;
    void stepBy(int steps) override;

protected:
    StepEnabled stepEnabled() const override;

private:
    std::uint64_t value_ = 0;
};

}  // namespace ml
