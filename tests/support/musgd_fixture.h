// Replays a MuSGD fixture (../shared/fixtures/ultralytics84/musgd-*.safetensors, README there): its
// parameters start at `before.<name>`, take MuSGD steps with the gradients `grad1.<name>` and `grad2.<name>`
// in the parameter groups its metadata `groups` lists (lr, momentum, weight_decay, nesterov, use_muon,
// members), and are compared with Ultralytics' `after1.<name>` and `after2.<name>`.
#pragma once
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "train/musgd.h"

namespace ywb::test {

struct MuSGDFixtureResult {
  double max_rel[2] = {0, 0};         ///< per step: max over parameters of max|ours - theirs| / max|theirs|
  std::string worst[2] = {"-", "-"};  ///< the parameter of that maximum ("-" when every error is 0)
  size_t parameters = 0;              ///< parameters in the fixture
  size_t muon_parameters = 0;         ///< of them in use_muon groups
};

inline std::vector<std::string> musgdFixtureNames(const SafetensorsFile& f) {
  std::vector<std::string> names;
  for (const auto& [key, t] : f.tensors)
    if (key.rfind("before.", 0) == 0) names.push_back(key.substr(7));
  return names;
}

inline MuSGDFixtureResult replayMuSGDFixture(const std::string& path) {
  const SafetensorsFile f = readSafetensors(path);
  const auto groups = nlohmann::json::parse(f.metadata.at("groups"));
  const std::vector<std::string> names = musgdFixtureNames(f);
  std::map<std::string, at::Tensor> params;
  for (const auto& n : names) params[n] = f.at("before." + n).clone().set_requires_grad(true);
  std::vector<torch::optim::OptimizerParamGroup> opt_groups;
  MuSGDFixtureResult r;
  r.parameters = names.size();
  for (const auto& g : groups) {
    std::vector<at::Tensor> members;
    for (const auto& m : g.at("members"))
      if (params.count(m.get<std::string>())) members.push_back(params[m.get<std::string>()]);
    auto o = std::make_unique<MuSGDOptions>(g.at("lr").get<double>());
    o->momentum(g.at("momentum").get<double>())
        .weight_decay(g.at("weight_decay").get<double>())
        .nesterov(g.at("nesterov").get<bool>());
    o->use_muon(g.at("use_muon").get<bool>());
    if (o->use_muon()) r.muon_parameters += members.size();
    opt_groups.emplace_back(members, std::move(o));
  }
  MuSGD opt(opt_groups, MuSGDOptions(0.01));
  for (int step = 0; step < 2; ++step) {
    const std::string s = std::to_string(step + 1);
    for (auto& [n, p] : params) p.mutable_grad() = f.at("grad" + s + "." + n).clone();
    opt.step();
    for (auto& [n, p] : params) {
      const at::Tensor& ref = f.at("after" + s + "." + n);
      const double scale = std::max(ref.abs().max().item<double>(), 1e-30);
      const double rel = (p.detach() - ref).abs().max().item<double>() / scale;
      if (rel > r.max_rel[step]) {
        r.max_rel[step] = rel;
        r.worst[step] = n;
      }
    }
  }
  return r;
}

}  // namespace ywb::test
