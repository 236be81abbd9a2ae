// The `ywb` verbs. Each verb_*.cpp defines one and registers it with a static RegisterVerb.
// Thread rules: registration happens during static initialisation; lookups after main() starts.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "cli/args.h"

namespace ywb::cli {

struct Verb {
  std::string name;                     ///< one or two words, e.g. "doctor", "dataset synth"
  std::string summary;                  ///< one line for `ywb --help`
  std::string help;                     ///< full help text for `ywb <verb> --help`
  std::function<int(const Args&)> run;  ///< returns the process exit code
};

const std::vector<Verb>& allVerbs();
/// Finds the verb named by the longest prefix of `words`; sets *used to the number of words consumed.
const Verb* findVerb(const std::vector<std::string>& words, size_t* used);

/// The verbs whose first word is `group` ("bench": bench epoch, bench eval, ...); empty when it names no
/// group.
std::vector<const Verb*> verbsInGroup(const std::string& group);
/// Why `words` (none of them key=value) name no verb: a group without its second word (listing them), a word
/// after a whole verb, or an unknown verb with the closest verb's name when one is near.
std::string unknownVerbMessage(const std::vector<std::string>& words);

struct RegisterVerb {
  explicit RegisterVerb(Verb verb);
};

/// Prints a JSON object or a line of text for an error, depending on --json. Returns exit code 1.
int reportError(const Args& args, const std::string& message);

}  // namespace ywb::cli
