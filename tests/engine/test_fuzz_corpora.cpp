// Replays the kept libFuzzer corpora of the user-file parsers (tests/fuzz/corpus_labels, corpus_data_yaml,
// corpus_args_yaml, corpus_coco_json, corpus_image) through the same harness the fuzzers run
// (tests/fuzz/fuzz_parsers.h): every input must be accepted with the parser's promises kept, or refused with
// ywb::Error. Any other exception fails the test naming the input, so a fixed finding stays fixed.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <string>

#include "core/atomic_file.h"
#include "fuzz/fuzz_parsers.h"
#include "ywb/error.h"

namespace {

enum class Kind { Labels, DataYaml, ArgsYaml, CocoJson, Image };

struct Replay {
  int inputs = 0, accepted = 0;
};

Replay replay(const char* folder, Kind kind, const std::string& scratch) {
  const QDir corpus(QString(YW_SOURCE_DIR) + "/tests/fuzz/" + folder);
  Replay r;
  for (const QString& f : corpus.entryList(QDir::Files)) {
    const std::string bytes = ywb::readFile(corpus.filePath(f).toStdString());
    const auto* d = reinterpret_cast<const uint8_t*>(bytes.data());
    ++r.inputs;
    try {
      switch (kind) {
        case Kind::Labels:
          if (!ywb::fuzz::labelRows(d, bytes.size())) continue;  // reported as invalid: refused
          break;
        case Kind::DataYaml:
          ywb::fuzz::dataYaml(d, bytes.size(), scratch);
          break;
        case Kind::ArgsYaml:
          ywb::fuzz::argsYaml(d, bytes.size());
          break;
        case Kind::CocoJson:
          ywb::fuzz::cocoJson(d, bytes.size());
          break;
        case Kind::Image:
          ywb::fuzz::imageFile(d, bytes.size(), scratch);
          break;
      }
      ++r.accepted;
    } catch (const ywb::Error&) {
      // Refused with a message: fine.
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string(folder) + "/" + f.toStdString() + ": " + e.what());
    }
  }
  return r;
}

}  // namespace

class TestFuzzCorpora : public QObject {
  Q_OBJECT

  void check(const char* folder, Kind kind, int min_inputs) {
    QTemporaryDir dir;
    ywb::fuzz::prepareDataYamlDir(dir.path().toStdString());
    Replay r;
    try {
      r = replay(folder, kind, dir.path().toStdString());
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    qInfo("%s: %d inputs, %d accepted", folder, r.inputs, r.accepted);
    // The corpora hold the real seed files (make_parser_seeds.py), which load: both outcomes must occur.
    QVERIFY2(r.inputs >= min_inputs, "the kept corpus is missing (tests/fuzz)");
    QVERIFY(r.accepted > 0);
    QVERIFY(r.accepted < r.inputs);
  }

 private Q_SLOTS:
  void labelRows() { check("corpus_labels", Kind::Labels, 16); }
  void dataYaml() { check("corpus_data_yaml", Kind::DataYaml, 10); }
  void argsYaml() { check("corpus_args_yaml", Kind::ArgsYaml, 9); }
  void cocoJson() { check("corpus_coco_json", Kind::CocoJson, 6); }
  void imageFile() { check("corpus_image", Kind::Image, 12); }
};

QTEST_GUILESS_MAIN(TestFuzzCorpora)
#include "test_fuzz_corpora.moc"
