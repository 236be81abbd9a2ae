// Compiled only so that the ywb_test_pch target builds the precompiled header the TORCH_PCH tests share
// (tests/CMakeLists.txt). Holds nothing.
namespace ywb_test_pch {
int owner() {
  return 0;
}
}  // namespace ywb_test_pch
