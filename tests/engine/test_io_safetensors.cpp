// Tests of the safetensors reader/writer: bit-exact round trip of every dtype, metadata, the byte layout
// the format specifies, and every kind of bad input (each must be a ywb::Error naming the tensor and the
// problem, with no byte read past the end of the buffer), plus a replay of the kept fuzz corpus.
#include <sys/mman.h>
#include <unistd.h>

#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>

#include "core/atomic_file.h"
#include "io/safetensors.h"
#include "ywb/error.h"
#include "ywb/weights.h"

namespace {

// Holds bytes so that the last one sits just before an inaccessible page: any read past the end of
// the buffer faults at once (a real check even without AddressSanitizer).
class GuardedBuffer {
 public:
  explicit GuardedBuffer(const std::string& bytes) : size_(bytes.size()) {
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    const size_t pages = (size_ + page - 1) / page + 1;
    total_ = pages * page;
    void* p = ::mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) qFatal("mmap failed");
    base_ = static_cast<uint8_t*>(p);
    ::mprotect(base_ + total_ - page, page, PROT_NONE);
    data_ = base_ + total_ - page - size_;
    if (size_) std::memcpy(data_, bytes.data(), size_);
  }
  ~GuardedBuffer() { ::munmap(base_, total_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* base_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t size_ = 0, total_ = 0;
};

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i, n >>= 8) s[size_t(i)] = char(n & 0xff);
  return s;
}

// A file from a header text and `data_bytes` bytes of data (value 1, so BOOL data is valid).
std::string rawFile(const std::string& header, size_t data_bytes) {
  return le64(header.size()) + header + std::string(data_bytes, '\1');
}

// Parses the bytes (in a guarded buffer) and returns the error message; empty when parsing succeeded.
std::string parseError(const std::string& bytes) {
  const GuardedBuffer buf(bytes);
  try {
    ywb::decodeSafetensors(buf.data(), buf.size(), "t.safetensors");
  } catch (const ywb::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("NOT A ywb::Error: ") + e.what();
  }
  return "";
}

#define EXPECT_ERROR(bytes, ...)                                                                           \
  do {                                                                                                     \
    const std::string msg_ = parseError(bytes);                                                            \
    QVERIFY2(!msg_.empty(), "no error raised");                                                            \
    for (const char* part_ : {__VA_ARGS__}) QVERIFY2(msg_.find(part_) != std::string::npos, msg_.c_str()); \
  } while (0)

// A tensor of `type` and `shape` filled with random bit patterns (all 256 byte values occur, so floats
// include NaN payloads, infinities, -0 and subnormals); BOOL gets 0/1.
at::Tensor randomBits(c10::ScalarType type, at::IntArrayRef shape, int64_t seed) {
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(type));
  const int64_t bytes = t.numel() * int64_t(t.element_size());
  const at::Tensor noise = at::randint(0, type == c10::kBool ? 2 : 256, {bytes},
                                       at::make_generator<at::CPUGeneratorImpl>(uint64_t(seed)),
                                       at::TensorOptions().dtype(c10::kByte));
  if (bytes) std::memcpy(t.data_ptr(), noise.data_ptr(), size_t(bytes));
  return t;
}

bool sameBytes(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  const at::Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.data_ptr(), cb.data_ptr(), size_t(ca.numel()) * ca.element_size()) == 0;
}

}  // namespace

class TestIoSafetensors : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void everyDtypeRoundTripsBitExact() {
    QTemporaryDir dir;
    const std::vector<c10::ScalarType> types = {c10::kFloat, c10::kHalf, c10::kBFloat16, c10::kDouble,
                                                c10::kLong,  c10::kInt,  c10::kShort,    c10::kChar,
                                                c10::kByte,  c10::kBool};
    ywb::NamedTensors in;
    int64_t seed = 1;
    for (c10::ScalarType t : types) {
      const std::string n = c10::toString(t);
      in.emplace_back("model.0." + n + ".weight", randomBits(t, {3, 5, 7}, seed++));
      in.emplace_back("model.0." + n + ".scalar", randomBits(t, {}, seed++));  // 0-dim: shape []
      in.emplace_back("model.0." + n + ".empty", randomBits(t, {4, 0}, seed++));
    }
    // A non-contiguous view must be written as its logical (row-major) content.
    in.emplace_back("transposed", randomBits(c10::kFloat, {6, 9}, 99).t());
    const std::string path = (dir.path() + "/w.safetensors").toStdString();
    ywb::writeSafetensors(path, in, {});
    const ywb::SafetensorsFile out = ywb::readSafetensors(path);
    QCOMPARE(out.tensors.size(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      QCOMPARE(out.tensors[i].first, in[i].first);  // file order = written order
      QVERIFY2(sameBytes(out.tensors[i].second, in[i].second), in[i].first.c_str());
    }
    QVERIFY(out.metadata.empty());
    // The data section starts 8-byte aligned (the header is padded with spaces, spec).
    const std::string bytes = ywb::readFile(path);
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    QCOMPARE((8 + n) % 8, uint64_t(0));
    QVERIFY(bytes[8] == '{');
  }

  void metadataRoundTrips() {
    QTemporaryDir dir;
    const std::map<std::string, std::string> meta = {
        {ywb::weights_key::kFormat, ywb::kWeightsFormat},
        {ywb::weights_key::kNames, "[\"person\",\"bicycle\",\"caf\\u00e9 \\\"quoted\\\"\"]"},
        {ywb::weights_key::kNc, "3"},
        {ywb::weights_key::kYaml, "nc: 3\nbackbone:\n  - [-1, 1, Conv, [16, 3, 2]]\n"},
        {"unicode", "\xc3\xa9\xe2\x82\xac"}};  // UTF-8 for e-acute and the euro sign
    const std::string path = (dir.path() + "/m.safetensors").toStdString();
    ywb::writeSafetensors(path, {{"a", at::ones({2})}}, meta);
    QCOMPARE(ywb::readSafetensors(path).metadata, meta);
    const ywb::WeightsInfo info = ywb::inspectWeights(path);
    QCOMPARE(info.metadata, meta);
    QCOMPARE(info.tensors.size(), size_t(1));
    QCOMPARE(info.tensors[0].dtype, std::string("F32"));
    QCOMPARE(info.elements, uint64_t(2));
    QCOMPARE(info.file_size, uint64_t(ywb::readFile(path).size()));
  }

  void layoutMatchesTheSpecByteForByte() {
    // Hand-written from the format description: u64 LE header length, compact JSON header padded with
    // spaces to 8-byte alignment, then the raw little-endian data. Header below is 54 bytes; 8 + 54 = 62,
    // so 2 spaces pad it to 64. Data: 1.0f = 00 00 80 3f, 2.0f = 00 00 00 40.
    const std::string header = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    QCOMPARE(header.size(), size_t(54));
    const std::string expected =
        le64(56) + header + "  " + std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8);
    const std::string got = ywb::encodeSafetensors({{"a", at::tensor({1.0f, 2.0f})}}, {});
    QCOMPARE(got, expected);
    // And a file written by another writer (unpadded, metadata after the tensors, keys in another order)
    // reads back in data order.
    const std::string other = rawFile(
        R"({"b":{"shape":[1],"dtype":"U8","data_offsets":[4,5]},"a":{"dtype":"I32","shape":[],"data_offsets":[0,4]},)"
        R"("__metadata__":{"k":"v"}})",
        5);
    const GuardedBuffer buf(other);
    const ywb::SafetensorsFile f = ywb::decodeSafetensors(buf.data(), buf.size(), "other");
    QCOMPARE(f.tensors.size(), size_t(2));
    QCOMPARE(f.tensors[0].first, std::string("a"));
    QCOMPARE(f.at("a").item<int32_t>(), 0x01010101);  // four bytes of value 1, little-endian
    QCOMPARE(f.at("b").item<uint8_t>(), uint8_t(1));
    QCOMPARE(f.metadata.at("k"), std::string("v"));
    QVERIFY(!f.contains("c"));
    QVERIFY_THROWS_EXCEPTION(ywb::Error, f.at("c"));
  }

  void emptyAndTruncatedFilesAreErrors() {
    EXPECT_ERROR(std::string(), "t.safetensors", "empty");
    EXPECT_ERROR(std::string("\x10\x00\x00", 3), "3 bytes, fewer than the 8-byte header length");
    const std::string good = ywb::encodeSafetensors({{"w", at::arange(10, at::kFloat)}}, {{"k", "v"}});
    QVERIFY(parseError(good).empty());
    // Every truncation is an error (never a crash, never a read past the end): the guard page proves it.
    for (size_t len = 0; len < good.size(); ++len) {
      QVERIFY2(!parseError(good.substr(0, len)).empty(), std::to_string(len).c_str());
    }
    // Cut inside the data: the offsets of 'w' reach beyond what is left.
    EXPECT_ERROR(good.substr(0, good.size() - 1), "tensor 'w'", "beyond the data section of 39 bytes");
    // Cut inside the header: the length field promises more than the file holds.
    EXPECT_ERROR(good.substr(0, 20), "header length", "beyond the end of the file (20 bytes");
  }

  void headerLengthBeyondFile() {
    EXPECT_ERROR(le64(1000) + "{}", "header length 1000 reaches beyond the end of the file (10 bytes");
    EXPECT_ERROR(le64(~uint64_t(0)) + "{}", "reaches beyond the end of the file");
  }

  void malformedHeaders() {
    EXPECT_ERROR(rawFile(R"({"a": {)", 0), "not valid JSON");
    EXPECT_ERROR(rawFile("[1, 2]", 0), "does not start with a JSON object");
    EXPECT_ERROR(rawFile("{}  x", 0), "not valid JSON");
    EXPECT_ERROR(rawFile("{\"\xff\":1}", 0), "not valid JSON");  // invalid UTF-8
    EXPECT_ERROR(rawFile(R"({"a":[1]})", 0), "tensor 'a'", "not a JSON object");
    EXPECT_ERROR(rawFile(R"({"a":{"dtype":"F32","shape":[1]}})", 4), "tensor 'a'", "missing data_offsets");
    EXPECT_ERROR(rawFile(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4), "tensor 'a'",
                 "non-negative integer");
    EXPECT_ERROR(rawFile(R"({"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}})", 4), "tensor 'a'",
                 "non-negative integer");
    EXPECT_ERROR(rawFile(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", 4), "tensor 'a'",
                 "unexpected field 'x'");
    EXPECT_ERROR(rawFile(R"({"__metadata__":{"k":1}})", 0), "__metadata__ value of 'k' must be a string");
    // Padding with spaces is allowed (the reference writer does it), other padding is not.
    QVERIFY(parseError(rawFile("{}      ", 0)).empty());
    EXPECT_ERROR(rawFile(std::string("{}\0\0", 4), 0), "not valid JSON");
  }

  void offsetsAreChecked() {
    const char* f32 = R"("dtype":"F32","shape":[2])";
    // [0,8) and [4,12): 'b' starts inside 'a'.
    EXPECT_ERROR(rawFile(std::string(R"({"a":{)") + f32 + R"(,"data_offsets":[0,8]},"b":{)" + f32 +
                             R"(,"data_offsets":[4,12]}})",
                         12),
                 "tensor 'b'", "overlap tensor 'a' [0, 8)");
    // Same range twice.
    EXPECT_ERROR(rawFile(std::string(R"({"a":{)") + f32 + R"(,"data_offsets":[0,8]},"b":{)" + f32 +
                             R"(,"data_offsets":[0,8]}})",
                         8),
                 "tensor 'b'", "overlap tensor 'a'");
    // Out of range: 8 bytes of data, offsets [8,16).
    EXPECT_ERROR(rawFile(std::string(R"({"a":{)") + f32 + R"(,"data_offsets":[8,16]}})", 8), "tensor 'a'",
                 "[8, 16) reach beyond the data section of 8 bytes");
    // Offsets that overflow when multiplied or added must not wrap around.
    EXPECT_ERROR(rawFile(R"({"a":{"dtype":"F64","shape":[2305843009213693952,8],"data_offsets":[0,0]}})", 0),
                 "tensor 'a'", "too many");
    // Zero elements, yet the other dimensions multiply past int64 (LibTorch's strides would overflow).
    EXPECT_ERROR(
        rawFile(R"({"a":{"dtype":"F32","shape":[4611686018427387904,4,0],"data_offsets":[0,0]}})", 0),
        "tensor 'a'", "too many");
    EXPECT_ERROR(rawFile(std::string(R"({"a":{)") + f32 + R"(,"data_offsets":[18446744073709551615,7]}})", 8),
                 "tensor 'a'", "end before begin");
    // A gap before 'a', and bytes after the last tensor that no entry describes.
    EXPECT_ERROR(rawFile(std::string(R"({"a":{)") + f32 + R"(,"data_offsets":[4,12]}})", 12), "tensor 'a'",
                 "gap of 4 bytes");
    EXPECT_ERROR(rawFile(std::string(R"({"a":{)") + f32 + R"(,"data_offsets":[0,8]}})", 9),
                 "cover 8 of the 9 bytes");
  }

  void dtypeAndLengthAreChecked() {
    EXPECT_ERROR(rawFile(R"({"a":{"dtype":"F12","shape":[2],"data_offsets":[0,8]}})", 8), "tensor 'a'",
                 "unknown dtype 'F12'");
    // shape [3] of F32 needs 3 x 4 = 12 bytes, the offsets give 8.
    EXPECT_ERROR(rawFile(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8), "tensor 'a'",
                 "shape [3] of F32 needs 12 bytes but data_offsets [0, 8) hold 8");
    // A dtype the format knows but LibTorch does not: valid file, clear error when decoding.
    EXPECT_ERROR(rawFile(R"({"a":{"dtype":"U16","shape":[2],"data_offsets":[0,4]}})", 4), "tensor 'a'",
                 "dtype U16");
    // BOOL data must be 0 or 1; rawFile fills with 1, so craft a 2.
    std::string b = rawFile(R"({"flag":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", 2);
    QVERIFY(parseError(b).empty());
    b.back() = '\2';
    EXPECT_ERROR(b, "tensor 'flag'", "BOOL element 1 holds the byte 2");
  }

  void duplicateNamesAreErrors() {
    EXPECT_ERROR(rawFile(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                         R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                         2),
                 "tensor 'a'", "more than once");
    QVERIFY_THROWS_EXCEPTION(ywb::Error,
                             ywb::encodeSafetensors({{"a", at::ones({1})}, {"a", at::ones({1})}}, {}));
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::encodeSafetensors({{"__metadata__", at::ones({1})}}, {}));
    QVERIFY_THROWS_EXCEPTION(ywb::Error,
                             ywb::encodeSafetensors({{"c", at::ones({1}, at::kComplexFloat)}}, {}));
  }

  void missingFileIsAnError() {
    try {
      ywb::readSafetensors("/nonexistent/w.safetensors");
      QFAIL("no error");
    } catch (const ywb::Error& e) {
      QVERIFY(std::string(e.what()).find("/nonexistent/w.safetensors") != std::string::npos);
    }
    QTemporaryDir dir;
    QVERIFY_THROWS_EXCEPTION(ywb::Error, ywb::inspectWeights(dir.path().toStdString()));  // a folder
  }

  void fuzzCorpusNeverCrashes() {
    // The kept libFuzzer corpus (tests/fuzz/corpus): each input either parses or is a ywb::Error.
    const QDir corpus(QString(YW_SOURCE_DIR) + "/tests/fuzz/corpus");
    const QStringList files = corpus.entryList(QDir::Files);
    QVERIFY2(files.size() >= 10, "the fuzz corpus is missing");
    int ok = 0;
    for (const QString& f : files) {
      const std::string msg = parseError(ywb::readFile(corpus.filePath(f).toStdString()));
      QVERIFY2(msg.rfind("NOT A", 0) != 0, msg.c_str());
      ok += msg.empty();
    }
    qInfo("fuzz corpus: %d inputs, %d valid", int(files.size()), ok);
  }

  void weightsInfoVerb() {
    // `ywb weights info` as a user runs it: valid file -> exit 0 with metadata; damaged file -> exit 1
    // with the tensor name and the problem.
    QTemporaryDir dir;
    const std::string good = (dir.path() + "/good.safetensors").toStdString();
    ywb::writeSafetensors(
        good, {{"model.0.conv.weight", at::zeros({4, 3, 3, 3})}, {"model.0.bn.bias", at::zeros({4})}},
        {{"format", ywb::kWeightsFormat}, {"nc", "80"}});
    QProcess p;
    p.start(YW_CLI_PATH, {"weights", "info", QString("weights=") + good.c_str(), "tensors=true", "--json"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject j = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QCOMPARE(j["tensor_count"].toInt(), 2);
    QCOMPARE(j["elements"].toInt(), 4 * 3 * 3 * 3 + 4);  // 108 + 4 = 112
    QCOMPARE(j["metadata"].toObject()["nc"].toString(), QString("80"));
    std::string bytes = ywb::readFile(good);
    bytes.resize(bytes.size() - 4);  // lose the last float of model.0.bn.bias
    ywb::writeFileAtomic((dir.path() + "/cut.safetensors").toStdString(), bytes);
    p.start(YW_CLI_PATH, {"weights", "info", "weights=" + dir.path() + "/cut.safetensors"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    const QByteArray err = p.readAllStandardError() + p.readAllStandardOutput();
    QVERIFY2(err.contains("tensor 'model.0.bn.bias'") && err.contains("truncated"), err.constData());
  }

  void largeFileIsFastAndExact() {
    // A checkpoint-sized file: YWB_IO_BENCH_MB (default 32) MB of F32 in 64 tensors.
    const int mb =
        qEnvironmentVariableIsSet("YWB_IO_BENCH_MB") ? qEnvironmentVariableIntValue("YWB_IO_BENCH_MB") : 32;
    ywb::NamedTensors in;
    const int64_t per = int64_t(mb) * 1024 * 1024 / 4 / 64;
    for (int i = 0; i < 64; ++i) in.emplace_back("model." + std::to_string(i) + ".weight", at::randn({per}));
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/big.safetensors").toStdString();
    QElapsedTimer timer;
    timer.start();
    ywb::writeSafetensors(path, in, {{"format", ywb::kWeightsFormat}});
    const qint64 write_ms = timer.restart();
    const ywb::SafetensorsFile out = ywb::readSafetensors(path);
    const qint64 read_ms = timer.elapsed();
    qInfo("%d MB: write %lld ms (incl. fsync), read %lld ms", mb, write_ms, read_ms);
    for (size_t i = 0; i < in.size(); ++i) QVERIFY(sameBytes(in[i].second, out.tensors[i].second));
  }
};

QTEST_GUILESS_MAIN(TestIoSafetensors)
#include "test_io_safetensors.moc"
