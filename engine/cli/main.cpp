// `ywb`: YOLO Workbench on the command line (Ultralytics-style `ywb VERB key=value ...`).
#include <iostream>

#include "cli/verb_registry.h"
#include "ywb/crash_report.h"
#include "ywb/error.h"
#include "ywb/version.h"

using namespace ywb::cli;

namespace {

void printVerbs(const std::vector<const Verb*>& verbs) {
  for (const Verb* v : verbs) {
    std::string pad(v->name.size() < 16 ? 16 - v->name.size() : 1, ' ');
    std::cout << "  " << v->name << pad << v->summary << "\n";
  }
  std::cout << "\n`ywb VERB --help` describes a verb and its arguments.\n";
}

void printUsage() {
  std::cout << "YOLO Workbench " << ywb::kVersion << " - train YOLO object detectors natively\n\n"
            << "usage: ywb VERB [key=value ...] [--json] [--help]\n\nverbs:\n";
  std::vector<const Verb*> verbs;
  for (const auto& v : allVerbs()) verbs.push_back(&v);
  printVerbs(verbs);
}

}  // namespace

int main(int argc, char** argv) {
  ywb::installCrashReport("ywb");
  Args args;
  try {
    args = parseArgs(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::cerr << "ywb: error: " << e.what() << "\n";
    return 2;
  }
  if (args.words.empty()) {
    if (args.values.empty() && !args.json) {
      printUsage();
      return args.help ? 0 : 2;
    }
    std::cerr << "ywb: error: no verb given (try `ywb --help`)\n";
    return 2;
  }
  // Ultralytics' optional task word (`yolo detect train ...`): detection is what ywb does; its other tasks
  // are named as not supported rather than called unknown verbs.
  if (args.words[0] == "detect" && args.words.size() > 1) args.words.erase(args.words.begin());
  for (const char* task : {"segment", "classify", "pose", "obb"}) {
    if (args.words[0] == task) {
      std::cerr << "ywb: error: Ultralytics' task '" << task
                << "' is not supported: ywb trains and runs object detectors (task detect; `ywb "
                << (args.words.size() > 1 ? "detect " + args.words[1] : std::string("detect train"))
                << "` or just `ywb " << (args.words.size() > 1 ? args.words[1] : std::string("train"))
                << "`)\n";
      return 2;
    }
  }
  if (args.words[0] == "version") {
    std::cout << ywb::kVersion << "\n";
    return 0;
  }
  size_t used = 0;
  const Verb* verb = findVerb(args.words, &used);
  if (!verb || used != args.words.size()) {
    // A group's first word alone ("ywb bench --help") lists that group's verbs; anything else is an error.
    const auto group = verbsInGroup(args.words[0]);
    if (args.help && args.words.size() == 1 && !group.empty()) {
      std::cout << "usage: ywb " << args.words[0] << " WORD [key=value ...] [--json] [--help]\n\nverbs:\n";
      printVerbs(group);
      return 0;
    }
    std::cerr << "ywb: error: " << unknownVerbMessage(args.words) << "\n";
    if (verb) {
      std::cerr << "`ywb " << verb->name << " --help` lists its arguments\n";
    } else if (group.empty()) {
      std::cerr << "\n";
      printUsage();
    } else {
      std::cerr << "\n";
      std::cout << "verbs:\n";
      printVerbs(group);
    }
    return 2;
  }
  if (args.help) {
    std::cout << "usage: ywb " << verb->name << " " << verb->help << "\n";
    return 0;
  }
  try {
    return verb->run(args);
  } catch (const ywb::Error& e) {
    return reportError(args, e.what());
  } catch (const std::exception& e) {
    return reportError(args, std::string("internal error: ") + e.what());
  }
}
