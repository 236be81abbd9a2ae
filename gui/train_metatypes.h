// Qt meta-type declarations of the engine's training event structs (for queued signals and QSignalSpy).
// Included by every header whose signals carry them, so the declaration precedes any use.
#pragma once
#include <QMetaType>

#include "ywb/train_events.h"

Q_DECLARE_METATYPE(ywb::TrainPhase)
Q_DECLARE_METATYPE(ywb::StepMetrics)
Q_DECLARE_METATYPE(ywb::EpochMetrics)
Q_DECLARE_METATYPE(ywb::TrainSummary)
