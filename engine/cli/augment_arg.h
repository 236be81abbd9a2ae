// The `augment=` argument of `ywb val` and `ywb predict` (test-time augmentation): its help and the note
// printed when an end-to-end model's NMS-free path leaves it unused.
#pragma once
#include <string>

namespace ywb::cli {

/// The help paragraph on augment=, for both verbs.
std::string augmentHelp();

/// Why augment=true did not apply (an end-to-end model predicted NMS-free), and how to have it.
std::string augmentIgnoredNote();

}  // namespace ywb::cli
