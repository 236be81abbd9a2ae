// `ywb`: YOLO Workbench on the command line (Ultralytics-style `ywb VERB key=value ...`).
#include <iostream>

#include "cli/verb_registry.h"
#include "ywb/crash_report.h"
#include "ywb/error.h"
#include "ywb/version.h"

using namespace ywb::cli;

namespace {

void printUsage() {
  std::cout << "YOLO Workbench " << ywb::kVersion << " - train YOLO object detectors natively\n\n"
            << "usage: ywb VERB [key=value ...] [--json] [--help]\n\nverbs:\n";
  for (const auto& v : allVerbs()) {
    std::string pad(v.name.size() < 16 ? 16 - v.name.size() : 1, ' ');
    std::cout << "  " << v.name << pad << v.summary << "\n";
  }
  std::cout << "\n`ywb VERB --help` describes a verb and its arguments.\n";
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
  if (args.words[0] == "version") {
    std::cout << ywb::kVersion << "\n";
    return 0;
  }
  size_t used = 0;
  const Verb* verb = findVerb(args.words, &used);
  if (!verb || used != args.words.size()) {
    std::string name = args.words[0];
    for (size_t i = 1; i < args.words.size(); ++i) name += " " + args.words[i];
    std::cerr << "ywb: error: unknown verb '" << name << "'\n\n";
    printUsage();
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
