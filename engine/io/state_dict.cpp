#include "io/state_dict.h"

#include <map>
#include <sstream>

#include "core/error.h"

namespace ywb {
namespace {

void collect(const torch::nn::Module& m, const std::string& prefix,
             std::vector<std::pair<std::string, at::Tensor>>& out) {
  for (const auto& p : m.named_parameters(/*recurse=*/false)) {
    if (p.value().defined()) out.emplace_back(prefix + p.key(), p.value());
  }
  for (const auto& b : m.named_buffers(/*recurse=*/false)) {
    if (b.value().defined()) out.emplace_back(prefix + b.key(), b.value());
  }
  for (const auto& c : m.named_children()) collect(*c.value(), prefix + c.key() + ".", out);
}

std::string describe(const at::Tensor& t) {
  std::ostringstream os;
  os << t.sizes() << " " << c10::toString(t.scalar_type());
  return os.str();
}

bool sameKind(const at::Tensor& a, const at::Tensor& b) {
  const auto kind = [](const at::Tensor& t) {
    if (t.is_floating_point()) return 0;
    if (t.is_complex()) return 1;
    return 2;  // integers and bool
  };
  return kind(a) == kind(b);
}

std::string listed(const char* what, const std::vector<std::string>& names) {
  std::ostringstream os;
  constexpr size_t kShown = 20;
  os << "\n  " << what << " (" << names.size() << "):";
  for (size_t i = 0; i < names.size() && i < kShown; ++i) os << "\n    " << names[i];
  if (names.size() > kShown) os << "\n    ... and " << (names.size() - kShown) << " more";
  return os.str();
}

}  // namespace

std::string StateDictReport::summary() const {
  std::ostringstream os;
  os << "transferred " << transferred << "/" << total << " tensors";
  if (!mismatched.empty()) os << ", " << mismatched.size() << " skipped for shape/dtype";
  if (!missing.empty()) os << ", " << missing.size() << " not in the weights";
  if (!unexpected.empty()) os << ", " << unexpected.size() << " unused from the weights";
  return os.str();
}

std::vector<std::pair<std::string, at::Tensor>> namedStateDict(const torch::nn::Module& module) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  collect(module, "", out);
  return out;
}

StateDictReport loadStateDict(torch::nn::Module& module,
                              const std::vector<std::pair<std::string, at::Tensor>>& tensors, bool strict) {
  std::map<std::string, const at::Tensor*> given;
  for (const auto& [name, t] : tensors) {
    if (!given.emplace(name, &t).second)
      fail("the weights hold tensor '", name, "' twice; cannot tell which to load");
  }
  const auto entries = namedStateDict(module);
  StateDictReport r;
  r.total = int(entries.size());
  std::vector<std::pair<at::Tensor, const at::Tensor*>> copies;
  std::map<std::string, bool> used;
  for (const auto& [name, dst] : entries) {
    const auto it = given.find(name);
    if (it == given.end()) {
      r.missing.push_back(name);
      continue;
    }
    used[name] = true;
    const at::Tensor& src = *it->second;
    if (!src.defined() || src.sizes() != dst.sizes() || !sameKind(src, dst)) {
      r.mismatched.push_back(name + ": weights " + (src.defined() ? describe(src) : "undefined") +
                             " vs model " + describe(dst));
      continue;
    }
    copies.emplace_back(dst, &src);
  }
  for (const auto& [name, t] : tensors) {
    if (!used.count(name)) r.unexpected.push_back(name);
  }
  if (strict && (!r.missing.empty() || !r.unexpected.empty() || !r.mismatched.empty())) {
    std::ostringstream os;
    os << "the weights do not match the model (" << r.summary() << "); nothing was loaded.";
    if (!r.mismatched.empty()) os << listed("shape or dtype differs", r.mismatched);
    if (!r.missing.empty()) os << listed("missing from the weights", r.missing);
    if (!r.unexpected.empty()) os << listed("not in the model", r.unexpected);
    os << "\nUse weights made for this model YAML and class count, or load them non-strictly to transfer "
          "the matching tensors.";
    fail(os.str());
  }
  torch::NoGradGuard no_grad;
  for (auto& [dst, src] : copies) dst.copy_(*src);
  r.transferred = int(copies.size());
  return r;
}

}  // namespace ywb
