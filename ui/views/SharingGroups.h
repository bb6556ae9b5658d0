#pragma once
// The groups a run shares its optimizer state over, in words, for the diagram (neuron tooltip,
// column caption), the neuron inspector's title and the experiment form's warning. The sizes come
// from core's layerGroups() (optim/GroupSizes.h), the one answer for all of them.
//   groupSizeText(g)                "3 connections per group", "1 connection per group",
//                                   "rank-1 estimate of a 2 × 3 block" (factored)
//   biasText(bias)                  "bias included" / "bias on its own"
//   sharingLines(snapshot, l)       per shared state of the run, for parameter layer l:
//                                   "momentum fan-in: 3 connections per group, bias included",
//                                   "second moment layer: 6 connections per group, ..."; empty
//                                   when the run shares nothing
//   sharingSummary(snapshot, l)     the same, short, for the inspector's title: "group: 2
//                                   connections (fan-in)" (the momentum's), "group: 2 connections
//                                   (fan-in, momentum and v)", "group: 2 connections (fan-in) · v
//                                   group: 6 connections (layer)", "v: rank-1 estimate of a 2 × 3 block"
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

QString groupSizeText(const LayerGroups& groups);
QString biasText(BiasMode bias);
QStringList sharingLines(const Snapshot& snapshot, int layer);
QString sharingSummary(const Snapshot& snapshot, int layer);
QString sharingCaption(const Snapshot& snapshot, int layer);
QString noEffectNote(const QString& subject, const std::vector<LayerGroups>& groups, BiasMode bias);

}  // namespace ml
