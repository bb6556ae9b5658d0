#pragma once
// The groups a run shares its optimizer state over, in words, for the diagram (neuron tooltip,
// column caption), the neuron inspector's title and the experiment form's warning. The sizes come
// from core's layerGroups() (optim/GroupSizes.h), the one answer for all of them.
//   groupSizeText(g, bias)          "3 connections per group, bias included"
//                                   "1 connection per group, bias on its own"
//                                   "rank-1 estimate of a 2 × 3 block, bias on its own" (factored)
//   sharingLines(snapshot, l)       per shared state of the run, for parameter layer l:
//                                   "momentum fan-in: 3 connections per group, bias included",
//                                   "second moment layer: 6 connections per group, ..."; empty
//                                   when the run shares nothing
//   sharingCaption(snapshot, l)     short, under a diagram column: "group 3" (momentum), else
//                                   "v group 3" / "v 2 × 3 factored"; empty when nothing is shared
//   noEffectNote(subject, groups, bias)  the form's warning when a scope changes nothing for
//                                   some layers: subject "momentum-mean fan-in" gives "momentum-mean
//                                   fan-in changes nothing for layer 1: 1 connection per group, bias
//                                   on its own."; empty when it changes something in every layer
//                                   (groups: networkGroups())
#include "optim/GroupSizes.h"
#include "train/Snapshot.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace ml {

QString groupSizeText(const LayerGroups& groups, BiasMode bias);
QStringList sharingLines(const Snapshot& snapshot, int layer);
QString sharingCaption(const Snapshot& snapshot, int layer);
QString noEffectNote(const QString& subject, const std::vector<LayerGroups>& groups, BiasMode bias);

}  // namespace ml
