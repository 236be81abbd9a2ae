// Tests of the .pt reader's torch-free core: the restricted unpickler's rules on hand-written pickles (each
// opcode commented), checkpoint extraction (module tree -> state-dict names), every malformed-archive error,
// and a replay of the kept fuzz corpus (tests/fuzz/corpus_pt).
#include <QDir>
#include <QElapsedTimer>
#include <QtTest>
#include <functional>

#include "core/atomic_file.h"
#include "io/pt_archive.h"
#include "io/pt_checkpoint.h"
#include "io/unpickler.h"
#include "pt_test_util.h"
#include "support/error_of.h"
#include "ywb/error.h"

using pt_test::Pkl;
using ywb::pickle::Kind;

namespace {

ywb::pickle::PickleData load(const std::string& b) {
  return ywb::pickle::unpickle(reinterpret_cast<const uint8_t*>(b.data()), b.size(), "t.pkl");
}

// _rebuild_tensor_v2(('storage', torch.<type>, key, 'cpu', numel), offset, size, stride, False,
// OrderedDict())
void tensor(Pkl& p, const std::string& type, const std::string& key, int numel, int offset,
            std::initializer_list<int> size, std::initializer_list<int> stride) {
  p.global("torch._utils", "_rebuild_tensor_v2");  // GLOBAL: the rebuild function
  p.raw({'('});                                    // MARK: its arguments
  p.raw({'('}).str("storage").global("torch", type).str(key).str("cpu").integer(numel);  // MARK + pid items
  p.raw({'t', 'Q'});                                       // TUPLE, BINPERSID: the storage
  p.integer(offset);                                       // storage offset
  p.raw({'('});                                            // MARK
  for (int s : size) p.integer(s);                         //   sizes
  p.raw({'t', '('});                                       // TUPLE, MARK
  for (int s : stride) p.integer(s);                       //   strides
  p.raw({'t', 0x89});                                      // TUPLE, NEWFALSE: requires_grad
  p.global("collections", "OrderedDict").raw({')', 'R'});  // OrderedDict() via EMPTY_TUPLE, REDUCE: hooks
  p.raw({'t', 'R'});                                       // TUPLE, REDUCE: the tensor
}

// A torch.nn.Module: NEWOBJ of its class, BUILD with {_parameters, _buffers, _non_persistent_buffers_set,
// _modules}; `body` writes the key/value pairs inside the state dict's MARK ... SETITEMS.
void module(Pkl& p, const std::string& mod, const std::string& cls, const std::function<void(Pkl&)>& body) {
  p.global(mod, cls).raw({')', 0x81});  // GLOBAL class, EMPTY_TUPLE, NEWOBJ
  p.raw({'}', '('});                    // EMPTY_DICT, MARK
  body(p);
  p.raw({'u', 'b'});  // SETITEMS, BUILD
}

}  // namespace

class TestIoPt : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void plainData() {
    Pkl p;
    p.raw({0x80, 2, '}', 'q', 0, '('});                   // PROTO 2, EMPTY_DICT, BINPUT 0, MARK
    p.str("int").raw({'J', 0xFE, 0xFF, 0xFF, 0xFF});      // 'int': BININT -2
    p.str("big").raw({0x8a, 5, 0, 0, 0, 0, 1});           // 'big': LONG1 5 bytes = 2^32
    p.str("neg").raw({0x8a, 1, 0xFF});                    // 'neg': LONG1 1 byte = -1
    p.str("f").raw({'G', 0x3F, 0xF8, 0, 0, 0, 0, 0, 0});  // 'f': BINFLOAT 1.5 (big-endian double)
    p.str("l").raw({']', '(', 'N', 0x88, 0x89, 'M', 0x39, 0x30, 'e'});  // [None, True, False, 12345] APPENDS
    p.str("t").raw({'K', 1, 'K', 2, 0x86});                             // 't': TUPLE2 (1, 2)
    p.str("b")
        .global("_codecs", "encode")
        .str(
            "\xC3\xBF"
            "a")
        .str("latin1")
        .raw({0x86, 'R'});                                                    // b'\xffa'
    p.str("s").global("builtins", "set").raw({']', 'K', 7, 'a', 0x85, 'R'});  // set([7])
    p.str("o").global("collections", "OrderedDict").raw({')', 'R'});          // OrderedDict() -> dict
    p.str("self").raw({'h', 0});  // 'self': BINGET 0, the root dict itself (a cycle)
    p.raw({'u', '.'});            // SETITEMS, STOP
    const auto d = load(p.b);
    const auto* r = d.root;
    QCOMPARE(int(r->kind), int(Kind::Dict));
    QCOMPARE(r->get("int")->i, int64_t(-2));
    QCOMPARE(r->get("big")->i, int64_t(1) << 32);
    QCOMPARE(r->get("neg")->i, int64_t(-1));
    QCOMPARE(r->get("f")->f, 1.5);
    const auto* l = r->get("l");
    QCOMPARE(l->items.size(), size_t(4));
    QCOMPARE(int(l->items[0]->kind), int(Kind::None));
    QVERIFY(l->items[1]->b && !l->items[2]->b);
    QCOMPARE(l->items[3]->i, int64_t(0x3039));  // BININT2 little-endian 0x39 0x30
    QCOMPARE(r->get("t")->items[1]->i, int64_t(2));
    QCOMPARE(r->get("b")->s, std::string("\xFF"
                                         "a"));  // U+00FF encodes to the single byte 0xFF
    QCOMPARE(int(r->get("s")->kind), int(Kind::Set));
    QCOMPARE(int(r->get("o")->kind), int(Kind::Dict));
    QCOMPARE(r->get("self"), r);
    const std::string e = errorOf([] { load(std::string("\x80\x02h\x05.", 5)); });  // BINGET 5: never stored
    QVERIFY2(e.find("memo entry 5 was never stored") != std::string::npos, e.c_str());
  }

  void tensorDescriptors() {
    Pkl q;  // a parameter: a 2x3 view of a 12-element half storage at offset 2 with row stride 4
    q.raw({0x80, 2});
    q.global("torch._utils", "_rebuild_parameter");  // _rebuild_parameter(tensor, True, OrderedDict())
    q.raw({'('});
    tensor(q, "HalfStorage", "7", 12, 2, {2, 3}, {4, 1});
    q.raw({0x88})
        .global("collections", "OrderedDict")
        .raw({')', 'R', 't', 'R', '.'});  // NEWTRUE .. TUPLE REDUCE STOP
    const auto d = load(q.b);
    const auto& t = d.root->tensor;
    QCOMPARE(int(d.root->kind), int(Kind::Tensor));
    QCOMPARE(t.dtype, std::string("F16"));
    QCOMPARE(t.storage_key, std::string("7"));
    QCOMPARE(t.storage_numel, int64_t(12));
    QCOMPARE(t.offset, int64_t(2));
    QCOMPARE(t.sizes, (std::vector<int64_t>{2, 3}));
    QCOMPARE(t.strides, (std::vector<int64_t>{4, 1}));
    QVERIFY(t.parameter);

    // Last element index = 2 + (2-1)*4 + (3-1)*1 = 8 < 12 above; with offset 6 it is 12: outside.
    Pkl bad;
    bad.raw({0x80, 2});
    tensor(bad, "HalfStorage", "7", 12, 6, {2, 3}, {4, 1});
    bad.raw({'.'});
    const std::string e = errorOf([&] { load(bad.b); });
    QVERIFY2(e.find("reaches past its storage '7' of 12 elements") != std::string::npos, e.c_str());

    Pkl st;  // an unknown storage class
    st.raw({0x80, 2});
    tensor(st, "QInt8Storage", "0", 4, 0, {4}, {1});
    const std::string e2 = errorOf([&] { load(st.b); });
    QVERIFY2(e2.find("unsupported storage type 'torch.QInt8Storage'") != std::string::npos, e2.c_str());
  }

  void inertClassesHoldTheirState() {
    Pkl p;
    p.raw({0x80, 2});
    p.global("types", "SimpleNamespace").raw({')', 'R'});            // SimpleNamespace() via REDUCE
    p.raw({'}', 'q', 1}).str("imgsz").integer(640).raw({'s', 'b'});  // EMPTY_DICT, BINPUT, SETITEM, BUILD
    p.global("pathlib", "PosixPath").str("runs").str("x").raw({0x86, 'R'});  // PosixPath('runs', 'x')
    p.raw({0x86, '.'});                                                      // TUPLE2, STOP
    const auto d = load(p.b);
    const auto* ns = d.root->items[0];
    QCOMPARE(int(ns->kind), int(Kind::Object));
    QCOMPARE(ns->s, std::string("types.SimpleNamespace"));
    QCOMPARE(ns->state->get("imgsz")->i, int64_t(640));
    QCOMPARE(d.root->items[1]->s, std::string("pathlib.PosixPath"));
    QCOMPARE(d.root->items[1]->items[1]->s, std::string("x"));
  }

  void refusesCodeAndUnknownOpcodes() {
    // cos\nsystem\n ... REDUCE: refused at the GLOBAL opcode, before anything could be called.
    Pkl os;
    os.raw({0x80, 2}).global("os", "system").str("echo hi").raw({0x85, 'R', '.'});
    std::string e = errorOf([&] { load(os.b); });
    QVERIFY2(e.find("refuses global 'os.system'") != std::string::npos, e.c_str());
    QVERIFY2(e.find("t.pkl: byte 2") == 0, e.c_str());  // names the pickle and the offset
    Pkl ev;
    ev.raw({0x80, 2}).global("builtins", "eval");
    e = errorOf([&] { load(ev.b); });
    QVERIFY2(e.find("refuses global 'builtins.eval'") != std::string::npos, e.c_str());
    // A lower-case function of an ordinary module may be referenced but not called.
    Pkl fn;
    fn.raw({0x80, 2}).global("torch", "load").str("x.pt").raw({0x85, 'R', '.'});
    e = errorOf([&] { load(fn.b); });
    QVERIFY2(e.find("unsupported global 'torch.load'") != std::string::npos, e.c_str());
    // INST (protocol 0 instantiation) is not among the opcodes torch.save writes.
    e = errorOf([&] { load(std::string("(i__main__\nX\n.")); });
    QVERIFY2(
        e.find("opcode 0x69 INST") != std::string::npos && e.find("unsupported opcode") != std::string::npos,
        e.c_str());
    e = errorOf([&] { load(std::string("\x80\x02]q\x00", 5)); });  // no STOP
    QVERIFY2(e.find("truncated pickle") != std::string::npos, e.c_str());
    e = errorOf([&] {
      load(
          std::string("\x80\x02"
                      "a.",
                      4));
    });  // APPEND on an empty stack
    QVERIFY2(e.find("stack underflow") != std::string::npos, e.c_str());
    e = errorOf([&] {
      load(
          std::string("\x80\x02X\xff\xff\xff\x7f"
                      "ab.",
                      10));
    });  // string longer than data
    QVERIFY2(e.find("needs 2147483647 more bytes") != std::string::npos, e.c_str());
    e = errorOf([&] { load(std::string("\x80\x05N.", 4)); });
    QVERIFY2(e.find("protocol 5") != std::string::npos, e.c_str());
  }

  void extractsUltralyticsModuleTree() {
    // {'model': DetectionModel{_modules: {'model': Conv2d}}, 'ema': DetectionModel(...)}: ema wins.
    auto detection = [](Pkl& p, const std::string& key, int numel) {
      module(p, "ultralytics.nn.tasks", "DetectionModel", [&](Pkl& m) {
        m.str("_parameters").raw({'}'}).str("_buffers").raw({'}'});  // empty own parameters/buffers
        m.str("_modules").raw({'}', '('}).str("model");              // _modules: {'model': Conv2d}
        module(m, "torch.nn.modules.conv", "Conv2d", [&](Pkl& c) {
          c.str("_parameters").raw({'}', '('}).str("weight");
          tensor(c, "FloatStorage", key, numel, 0, {numel}, {1});
          c.str("bias").raw({'N', 'u'});  // bias None: left out, as PyTorch's state_dict does
          c.str("_buffers").raw({'}', '('}).str("tmp");
          tensor(c, "FloatStorage", key, numel, 0, {1}, {1});
          c.raw({'u'}).str("_non_persistent_buffers_set");
          c.global("builtins", "set")
              .raw({']', 'X', 3, 0, 0, 0, 't', 'm', 'p', 'a', 0x85, 'R'});  // set(['tmp'])
          c.str("_modules").raw({'}'});
        });
        m.raw({'u'});
        m.str("names").raw({'}', 'K', 0}).str("cat").raw({'s'});  // {0: 'cat'}
        m.str("yaml").raw({'}'}).str("nc").integer(1).raw({'s'});
      });
    };
    Pkl p;
    p.raw({0x80, 2, '}', '('}).str("model");
    detection(p, "0", 4);
    p.str("ema");
    detection(p, "1", 8);
    p.str("version").str("8.3.253").raw({'u', '.'});
    const auto d = load(p.b);
    const ywb::PtCheckpoint c = ywb::extractCheckpoint(d, "t.pt");
    QCOMPARE(c.tensors.size(), size_t(1));  // weight only: bias None, 'tmp' non-persistent
    QCOMPARE(c.tensors[0].first, std::string("model.weight"));
    QCOMPARE(c.tensors[0].second.storage_key, std::string("1"));  // from the EMA model
    QCOMPARE(c.metadata.at("names"), std::string("[\"cat\"]"));
    QCOMPARE(c.metadata.at("nc"), std::string("1"));
    QCOMPARE(c.metadata.at("yaml"), std::string("{\"nc\":1}"));
    QCOMPARE(c.metadata.at("ultralytics_version"), std::string("8.3.253"));
    QCOMPARE(c.metadata.at("format"), std::string(ywb::kPtUltralyticsFormat));
  }

  void extractsStateDictOrSaysWhatItIs() {
    Pkl sd;  // OrderedDict([('a.weight', tensor)]) as torch.save(model.state_dict()) writes it
    sd.raw({0x80, 2}).global("collections", "OrderedDict").raw({')', 'R', '('}).str("a.weight");
    tensor(sd, "BFloat16Storage", "0", 3, 0, {3}, {1});
    sd.raw({'u', '.'});
    const auto c = ywb::extractCheckpoint(load(sd.b), "sd.pt");
    QCOMPARE(c.tensors.size(), size_t(1));
    QCOMPARE(c.tensors[0].second.dtype, std::string("BF16"));
    QCOMPARE(c.metadata.at("format"), std::string(ywb::kPtStateDictFormat));

    // "Billion laughs": train_args = (((None, None), (None, None)), ...) 60 levels deep through DUP: 2^60
    // leaves from 130 bytes. The metadata walk stops at its budget ("...") instead of running for ever.
    Pkl bomb;
    bomb.raw({0x80, 2, '}', '('}).str("train_args").raw({'N'});  // PROTO, EMPTY_DICT, MARK, key, NONE
    for (int i = 0; i < 60; ++i) bomb.raw({'2', 0x86});          // DUP, TUPLE2: x -> (x, x)
    bomb.str("state_dict").raw({'}'}).str("w");                  // 'state_dict': {'w': tensor}
    tensor(bomb, "FloatStorage", "0", 1, 0, {1}, {1});
    bomb.raw({'s', 'u', '.'});  // SETITEM, SETITEMS, STOP
    QElapsedTimer timer;
    timer.start();
    const auto b = ywb::extractCheckpoint(load(bomb.b), "bomb.pt");
    QVERIFY(b.metadata.at("args").find("\"...\"") != std::string::npos);
    QVERIFY2(timer.elapsed() < 5000, "the metadata walk must stay bounded");

    std::string e = errorOf([&] {
      ywb::extractCheckpoint(load(std::string("\x80\x02]K\x01"
                                              "a.",
                                              7)),
                             "l.pt");
    });
    QVERIFY2(e.find("l.pt: not a checkpoint: data.pkl holds a list") == 0, e.c_str());
    Pkl none;  // {'model': None, 'epoch': 3}
    none.raw({0x80, 2, '}', '('}).str("model").raw({'N'}).str("epoch").integer(3).raw({'u', '.'});
    e = errorOf([&] { ywb::extractCheckpoint(load(none.b), "n.pt"); });
    QVERIFY2(e.find("holds no model") != std::string::npos, e.c_str());
    Pkl other;  // {'lr': 0.1}: neither a model nor tensors
    other.raw({0x80, 2, '}'}).str("lr").raw({'G', 0x3F, 0xB9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9A, 's', '.'});
    e = errorOf([&] { ywb::extractCheckpoint(load(other.b), "o.pt"); });
    QVERIFY2(e.find("not a checkpoint") != std::string::npos && e.find("keys: lr") != std::string::npos,
             e.c_str());
  }

  void archiveErrorsNameTheFile() {
    // A valid archive: one F32 tensor of 2 elements in storage '0'.
    Pkl sd;
    sd.raw({0x80, 2, '}'}).str("w");
    tensor(sd, "FloatStorage", "0", 2, 0, {2}, {1});
    sd.raw({'s', '.'});
    const std::string eight(8, '\x01');
    auto open = [](const std::string& bytes) {
      const ywb::PtArchive a(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "m.pt");
      ywb::checkStorages(a, ywb::extractCheckpoint(a.pickle(), "m.pt"));
    };
    const std::string good = pt_test::zip({{"m/data.pkl", sd.b}, {"m/data/0", eight}, {"m/version", "3\n"}});
    QCOMPARE(errorOf([&] { open(good); }), std::string());
    const std::pair<std::string, std::string> cases[] = {
        {"not a PyTorch checkpoint (a .pt file is a zip", "GIF89a......."},
        {"legacy (pre-1.6)", std::string("\x80\x02\x8a\x0a", 4) + "ignored"},
        {"no end-of-directory record", good.substr(0, good.size() - 30)},
        {"without <name>/data.pkl", pt_test::zip({{"m/other.txt", "x"}})},
        {"TorchScript archive",
         pt_test::zip({{"m/data.pkl", sd.b}, {"m/constants.pkl", "x"}, {"m/code/m.py", ""}})},
        {"storage '0' (m/data/0) is missing", pt_test::zip({{"m/data.pkl", sd.b}})},
        {"holds 7 bytes, its 2 F32 elements need 8",
         pt_test::zip({{"m/data.pkl", sd.b}, {"m/data/0", "1234567"}})},
        {"big' byte order", pt_test::zip({{"m/data.pkl", sd.b}, {"m/byteorder", "big"}})},
    };
    for (const auto& [want, bytes] : cases) {
      const std::string e = errorOf([&] { open(bytes); });
      QVERIFY2(e.rfind("m.pt: ", 0) == 0 && e.find(want) != std::string::npos, (want + " -> " + e).c_str());
    }
    std::string damaged = good;  // flip a byte of data.pkl: its CRC-32 no longer matches
    damaged[damaged.find("storage") + 2] ^= 0x20;
    const std::string e = errorOf([&] { open(damaged); });
    QVERIFY2(e.find("CRC-32 mismatch") != std::string::npos, e.c_str());
  }

  void fuzzCorpusNeverCrashes() {
    // The kept libFuzzer corpus: every input opens, or is a ywb::Error (the fuzz target's two paths).
    const QDir corpus(QString(YW_SOURCE_DIR) + "/tests/fuzz/corpus_pt");
    const QStringList files = corpus.entryList(QDir::Files);
    QVERIFY2(files.size() >= 10, "the .pt fuzz corpus is missing");
    int ok = 0;
    for (const QString& f : files) {
      const std::string b = ywb::readFile(corpus.filePath(f).toStdString());
      const auto* data = reinterpret_cast<const uint8_t*>(b.data());
      try {
        if (ywb::looksLikeZip(data, b.size())) {
          const ywb::PtArchive a(data, b.size(), "corpus");
          ywb::checkStorages(a, ywb::extractCheckpoint(a.pickle(), "corpus"));
        } else {
          ywb::extractCheckpoint(ywb::pickle::unpickle(data, b.size(), "corpus"), "corpus");
        }
        ++ok;
      } catch (const ywb::Error&) {
      }
    }
    qInfo("pt fuzz corpus: %d inputs, %d open as checkpoints", int(files.size()), ok);
  }
};

QTEST_GUILESS_MAIN(TestIoPt)
#include "test_io_pt.moc"
